from setveil.testing import ConformanceSuite


class TestTruncateConformance(ConformanceSuite):
    model = "truncate"
    params = {"m": "2"}
    unsafe_windows = [[["p0", "p1", "p2"]]]
    safe_windows = [[["p0", "p1"], ["p2"]]]
    invalid_params = [{"m": "0"}, {"m": "two"}]
