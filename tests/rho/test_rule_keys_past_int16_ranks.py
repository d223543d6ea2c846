"""association_rules ranks the frequent items in int32: with more than 2**15 of them (33,000 items
each in one transaction, at a support of one transaction every item is frequent) the rules of the
last two are the two that hold, x -> y at 2/3 and y -> x at 1, their itemsets listed at once or
mined a part at a time (pyfim's arules takes 4.6 s of CPU and 2.1 GB to list them here)."""

import numpy as np
import pytest

from setveil.core.window import Window
from setveil.plugins.rho import metrics
from setveil.plugins.rho.metrics import _rule_keys, association_rules

from .test_rule_keys_as_pyfim_lists_them import same_keys

WINDOW = Window.from_transactions([[f"s{n}"] for n in range(33_000)] + [["x", "y"], ["x", "y"], ["x"]])


@pytest.mark.parametrize("in_parts", [False, True])
def test_the_rules_of_items_ranked_past_int16_are_the_two_that_hold(monkeypatch, in_parts):
    if in_parts:
        monkeypatch.setattr(metrics, "_LISTED_AT_ONCE", -1)
    x, y = WINDOW.vocab.ids(["x", "y"]).tolist()
    found = association_rules(WINDOW, 1 / len(WINDOW), 0.5, None)
    assert same_keys(found, _rule_keys(np.array([[x, y], [y, x]], dtype=np.int32)))
