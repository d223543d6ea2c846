from setveil.testing import ConformanceSuite


class TestTruncateConformance(ConformanceSuite):
    model = "truncate"
    params = {"m": "2"}
    invalid_params = [{"m": "0"}, {"m": "two"}]
