"""The (h,k,p)-coherence checker on cases that only the random examples reached, or none did
(found by a mutation pass over plugins/coherence/checker.py): h compared as typed on both sides of
a share, the groups of public items the cohorts are counted from (more than one byte numbers),
the moles of the empty itemset and of one item, the cohorts of frequent itemsets, neutral items."""

from setveil.core.schema import ItemSchema
from setveil.core.window import Window

from .conftest import coherence

SCHEMA = ItemSchema(private=frozenset({"s0", "s1"}), public=None)


def found(rows, h, k, p, vocab=None):
    window = Window.from_transactions(rows, vocab=vocab)
    return [(v.rule, v.itemset, v.target) for v in
            coherence(h=h, k=str(k), p=str(p), schema=SCHEMA).model.violations(window, window)]


def test_a_breach_probability_is_compared_with_h_as_typed_on_either_side():
    # Mutation pass: h rounded to two places passed every test, as only the random examples drew
    # h = 0.6666666666666666, which rounds up past 2/3: p0's cohort holds s0 in 2 of 3
    rows = [["p0", "s0"], ["p0", "s0"], ["p0"], ["p1"], ["p1"], ["p1"]]
    assert found(rows, "0.6666666666666666", 3, 1) == [("breach", ("p0",), "s0")]
    assert found(rows, "0.67", 3, 1) == []
