"""Table 1 of Jia et al.: the retail example at ρ = 0.5 with condom the only sensitive item."""

import numpy as np
import pytest

from setveil.core.engine import Pipeline
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window

TABLE_1 = [
    ["bread", "beer", "condom"],
    ["coffee", "fruits"],
    ["beer", "condom"],
    ["coffee", "fruits"],
    ["flour", "condom"],
    ["bread", "coffee"],
    ["fruits", "condom"],
]
CONTEXT = Context(schema=ItemSchema(private=frozenset({"condom"})))


def configured(policy):
    return get_registry().configure("rho", policy, {"rho": "0.5"}, CONTEXT)


def deleted(original, release):
    return [sorted(set(a) - set(b)) for a, b in zip(original, release)]


def test_the_original_is_unsafe_through_beer_and_flour():
    window = Window.from_transactions(TABLE_1)
    found = {(v.itemset, v.target, v.summary.split("confidence ")[1].split(" >")[0])
             for v in configured("mine").model.violations(window, window) if v.rule == "rho"}
    assert (("beer",), "condom", "2/2") in found
    assert (("flour",), "condom", "1/1") in found


@pytest.mark.parametrize(
    "policy, expected",
    [
        # Table 1(c): the distribution-preserving approach deletes condom and flour
        ("dist", [["condom"], [], [], [], ["flour"], [], []]),
        # Table 1(d): the rule-preserving approach deletes two condoms
        ("mine", [["condom"], [], [], [], ["condom"], [], []]),
        # Table 1(b): global suppression deletes every condom
        ("global", [["condom"], [], ["condom"], [], ["condom"], [], ["condom"]]),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_approach_reproduces_its_column(policy, expected, seed):
    window = Window.from_transactions(TABLE_1)
    pipeline = Pipeline(configured(policy), get_plugin_manager())
    outcome = pipeline.run(window, np.random.default_rng(seed))
    assert deleted(window, outcome.release.window) == expected
    assert outcome.report["verified"]


def test_partial_suppression_deletes_two_where_global_needs_four():
    window = Window.from_transactions(TABLE_1)
    counts = {}
    for policy in ("dist", "mine", "global"):
        config = configured(policy)
        release = config.model.anonymize(window, config.policy, np.random.default_rng(0)).window
        counts[policy] = window.n_occurrences - release.n_occurrences
    assert counts == {"dist": 2, "mine": 2, "global": 4}
