from setveil.testing import ConformanceSuite


class TestKAnonymityConformance(ConformanceSuite):
    model = "kanonymity"
    params = {"k": "3"}
    invalid_params = [{"k": "0"}, {"k": "2.5"}, {"k": "three"}]


class TestKmAnonymityConformance(ConformanceSuite):
    model = "km-anonymity"
    params = {"k": "3", "m": "2"}
    invalid_params = [{"k": "0"}, {"m": "0"}, {"m": "two"}]
