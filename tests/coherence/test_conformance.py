from setveil.testing import ConformanceSuite


class TestCoherenceConformance(ConformanceSuite):
    model = "coherence"
    params = {"h": "0.6", "k": "3", "p": "3"}
    invalid_params = [
        {"h": "0"},
        {"h": "1.5"},
        {"h": "high"},
        {"k": "0"},
        {"k": "2.5"},
        {"p": "0"},
        {"il": "weight"},
    ]
