"""Frequent itemsets of two items or more whose rules all fall short of the confidence give the keys
of no rule as arules' empty listing gives them, one column wide as those of a window without such
itemsets, so that counts and comparisons of the two agree."""

import pytest

from setveil.core.window import Window
from setveil.plugins.rho import metrics
from setveil.plugins.rho.metrics import association_rules, compare_rules

from .test_rule_keys_as_pyfim_lists_them import listed_by_arules, same_keys

# ab is frequent at a support of one transaction, a -> b and b -> a at 1/10 each
WINDOW = Window.from_transactions([["a", "b"]] + [["a"]] * 9 + [["b"]] * 9)
SINGLES = Window.from_transactions([["a"], ["b"]])


@pytest.mark.parametrize("as_bytes", [False, True])
def test_frequent_pairs_with_no_rule_give_the_keys_of_no_rule(monkeypatch, as_bytes):
    if as_bytes:
        monkeypatch.setattr(metrics, "_CODES", 0)
    found = association_rules(WINDOW, 0.0005, 0.5, None)
    assert len(found) == 0
    assert same_keys(found, listed_by_arules(WINDOW, 0.0005, 0.5, None))
    assert same_keys(found, association_rules(SINGLES, 0.0005, 0.5, None))
    assert compare_rules(found, association_rules(SINGLES, 0.0005, 0.5, None))["rules_jaccard"] == 1.0
