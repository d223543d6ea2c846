from setveil.testing import ConformanceSuite


class TestRhoConformance(ConformanceSuite):
    model = "rho"
    params = {"rho": "0.5", "workers": "1"}
    # the empty qid infers s0 with confidence 1, above 0.5
    unsafe_windows = [[["p0", "s0"]]]
    safe_windows = [[["p0", "s0"], ["p0"], ["p1"]]]
    invalid_params = [
        {"rho": "0"},
        {"rho": "1"},
        {"rho": "-0.2"},
        {"rho": "half"},
        {"qid_size": "0"},
        {"qid_size": "2.5"},
        {"qid_size": "some"},
        {"b_max": "0"},
        {"t_max": "0"},
        {"t_max": "never"},
        {"workers": "0"},
        {"workers": "257"},
        {"rule_support": "0"},
        {"rule_support": "1.5"},
        {"rule_confidence": "2"},
        {"rule_confidence": "0"},
        {"rule_max_size": "1"},
        {"rule_metrics": "maybe"},
    ]
