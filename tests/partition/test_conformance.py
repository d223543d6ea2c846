from setveil.testing import ConformanceSuite


class TestKAnonymityConformance(ConformanceSuite):
    model = "kanonymity"
    params = {"k": "3"}
    invalid_params = [{"k": "0"}, {"k": "2.5"}, {"k": "three"}]
    unsafe_windows = [[["p0"], ["p1"], ["p2"]]]
    safe_windows = [[["p0", "p1"], ["p0", "p1"], ["p0", "p1"]]]


class TestKmAnonymityConformance(ConformanceSuite):
    model = "km-anonymity"
    params = {"k": "3", "m": "2"}
    invalid_params = [{"k": "0"}, {"m": "0"}, {"m": "two"}]
    # {p1} is held by one transaction, fewer than k
    unsafe_windows = [[["p0"], ["p0"], ["p0", "p1"]]]
    safe_windows = [[["p0", "p1"], ["p0", "p1"], ["p0", "p1"]]]
