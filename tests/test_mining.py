"""setveil.core.mining against brute-force counting (regression: pyfim 6.28 drops itemsets made
only of items held by every transaction, and rejected max_size=None)."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.mining import frequent_itemset_arrays, frequent_itemsets
from setveil.core.window import Window


def brute_force(window: Window, min_support: int) -> dict[frozenset[int], int]:
    rows = [set(window.row(t).tolist()) for t in range(len(window))]
    items = sorted(set().union(*rows)) if rows else []
    out = {}
    for size in range(1, len(items) + 1):
        for itemset in itertools.combinations(items, size):
            count = sum(1 for row in rows if row.issuperset(itemset))
            if count >= min_support:
                out[frozenset(itemset)] = count
    return out


databases = st.lists(st.lists(st.sampled_from("abcdef"), unique=True), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(rows=databases, min_support=st.integers(1, 3))
def test_frequent_itemsets_match_brute_force(rows, min_support):
    window = Window.from_transactions(rows)
    assert frequent_itemsets(window, min_support) == brute_force(window, min_support)


@settings(max_examples=80, deadline=None)
@given(rows=databases, min_support=st.integers(1, 3))
def test_arrays_hold_the_same_itemsets(rows, min_support):
    window = Window.from_transactions(rows)
    indptr, ids, supports = frequent_itemset_arrays(window, min_support)
    got = {frozenset(ids[a:b].tolist()): int(s) for a, b, s in zip(indptr, indptr[1:], supports)}
    assert got == frequent_itemsets(window, min_support)


def test_items_in_every_transaction_are_reported():
    window = Window.from_transactions([["a", "b", "e"], ["a", "b", "c", "e"], ["b", "c", "e"]])
    found = {frozenset(window.vocab.label(i) for i in s) for s in frequent_itemsets(window, 1)}
    assert {frozenset("b"), frozenset("e"), frozenset("be")} <= found


def test_size_bounds():
    window = Window.from_transactions([["a", "b", "c"]] * 3)
    sizes = {len(s) for s in frequent_itemsets(window, 2, min_size=2, max_size=2)}
    assert sizes == {2}
    indptr, _, _ = frequent_itemset_arrays(window, 4)
    assert np.array_equal(indptr, [0])
