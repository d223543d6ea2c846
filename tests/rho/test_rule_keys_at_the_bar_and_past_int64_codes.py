"""R(T) derived from the frequent itemsets where the random windows of
test_rule_keys_as_pyfim_lists_them.py seldom go: a rule whose support is exactly supp(X) times
pyfim's bar in doubles (pyfim keeps it: its test is >=), keys as bytes cut to a longest rule
shorter than the longest itemset, and rows whose int64 codes would need more than 63 bits but
fit in 64. Each is compared with the keys of the rules pyfim's ``arules`` lists."""

import pytest

from setveil.core.window import Window
from setveil.plugins.rho import metrics
from setveil.plugins.rho.metrics import _pyfim_bar, association_rules

from .test_rule_keys_as_pyfim_lists_them import listed_by_arules, same_keys


@pytest.mark.parametrize("held, body", [(5, 6), (9, 14), (17, 24), (5, 12)])
def test_a_rule_exactly_at_the_bar_is_kept_as_pyfim_keeps_it(held, body):
    confidence = held / body
    assert held == body * _pyfim_bar(confidence)  # the product lands on the support itself
    window = Window.from_transactions([["a", "b"]] * held + [["a"]] * (body - held))
    keys = association_rules(window, 0.0005, confidence, None)
    assert len(keys) == 2  # b -> a and a -> b
    assert same_keys(keys, listed_by_arules(window, 0.0005, confidence, None))


def test_keys_as_bytes_are_as_wide_as_the_longest_rule_not_the_longest_itemset():
    # abc (support 1) gives no rule at 0.5, the pairs six: keys of two columns, not three
    window = Window.from_transactions([["a", "b", "c"]] + [["a", "b"], ["a", "c"], ["b", "c"]] * 3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(metrics, "_CODES", 0)
        keys = association_rules(window, 0.0005, 0.5, None)
    assert (len(keys), keys.dtype.itemsize) == (6, 8)
    assert same_keys(keys, listed_by_arules(window, 0.0005, 0.5, None))


def test_rows_past_63_bits_of_code_are_keyed_as_bytes():
    # 79 frequent items (base 80) and an itemset of 10 of the highest ranks (their ids come last):
    # its codes, up to 80**10, need 64 bits, past an int64
    group = [f"g{i}" for i in range(10)]
    rows = [[f"o{i}"] for i in range(69) for _ in range(2)] + [group, group]
    window = Window.from_transactions(rows)
    assert 2**63 < 80**10 <= 2**64
    keys = association_rules(window, 0.01, 0.5, None)
    assert len(keys) == 10 * 2**9 - 10  # a rule per item of each subset of 2 items or more, of confidence 1
    assert same_keys(keys, listed_by_arules(window, 0.01, 0.5, None))
