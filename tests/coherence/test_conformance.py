from setveil.testing import ConformanceSuite


class TestCoherenceConformance(ConformanceSuite):
    model = "coherence"
    params = {"h": "0.6", "k": "3", "p": "3"}
    # one transaction: fewer than k hold the empty itemset, and s0 is inferred with certainty
    unsafe_windows = [[["p0", "s0"]]]
    safe_windows = [[["p0", "p1"], ["p0", "p1"], ["p0", "p1", "s0"]]]
    invalid_params = [
        {"h": "0"},
        {"h": "1.5"},
        {"h": "high"},
        {"k": "0"},
        {"k": "2.5"},
        {"p": "0"},
        {"il": "weight"},
    ]
