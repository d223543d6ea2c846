"""core/generalization.py keys each label and item by transaction * (nodes + 1) + node, which passes
2**31 once a window's transactions times its hierarchy's nodes do (33,000 transactions under a flat
hierarchy of 65,536 leaves): keys in int32 there would wrap and cover items of other transactions.
Each violation is still counted and placed as walking each item up the hierarchy finds it."""

from setveil.core.generalization import generalization_violations
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window

LEAVES = [f"i{n}" for n in range(1 << 16)]
HIERARCHY = Hierarchy.balanced(LEAVES, 1 << 16)
ROWS = [[LEAVES[n % len(LEAVES)]] for n in range(33_000)]


def found(original, released):
    release = Window.from_transactions(released, vocab=original.vocab.copy())
    return [(v.rule, v.summary, v.itemset, v.transaction) for v in generalization_violations(original, release,
                                                                                              HIERARCHY)]


def test_a_release_equal_to_its_original_past_int32_keys_breaks_nothing():
    assert (len(ROWS) - 1) * (len(HIERARCHY) + 1) > 2**31
    original = Window.from_transactions(ROWS)
    assert found(original, ROWS) == []


def test_a_wrong_leaf_in_a_transaction_past_int32_keys_is_placed_there():
    original = Window.from_transactions(ROWS)
    last = len(ROWS) - 1
    released = ROWS[:last] + [[LEAVES[0]]]
    assert ROWS[last] != released[last]
    assert found(original, released) == [
        ("uncovered-item", "1 original item occurrence has no released label covering it", (), last),
        ("foreign-label", "1 released label covers no item of its original transaction", (LEAVES[0],), last),
    ]
