"""setveil.core.mining against brute-force counting (regression: pyfim 6.28 drops itemsets made
only of items held by every transaction, and rejected max_size=None)."""

import gc
import itertools
import random
import sys
from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from setveil.core.errors import own_words
from setveil.core.mining import (MiningTooLarge, frequent_itemset_arrays, frequent_itemsets, itemset_spectrum,
                                 pyfim_rows, within_budget)
from setveil.core.window import Window
from setveil.plugins.partition.checker import km_violations


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


@settings(max_examples=80, deadline=None)
@given(rows=databases, min_support=st.integers(1, 3), sizes=st.tuples(st.integers(1, 4), st.integers(1, 6)))
def test_the_spectrum_counts_what_mining_lists(rows, min_support, sizes):
    window = Window.from_transactions(rows)
    low, high = min(sizes), max(sizes)
    listed = frequent_itemsets(window, min_support, min_size=low, max_size=high)
    spectrum = itemset_spectrum(pyfim_rows(window, None), min_support, high, low)
    assert sum(spectrum.values()) == len(listed)
    for size, count in spectrum.items():
        assert count == sum(1 for itemset in listed if len(itemset) == size)


def test_a_budget_refuses_before_listing_more_itemsets_than_it():
    rows = [["a", "b", "c", "d"], ["a", "b", "c"], ["b", "c", "e"]]
    window = Window.from_transactions(rows)
    count = len(frequent_itemsets(window, 1))
    assert len(frequent_itemsets(window, 1, budget=count)) == count
    with pytest.raises(MiningTooLarge, match=f"up to {count} itemsets, more than the budget of {count - 1}") as caught:
        frequent_itemset_arrays(window, 1, budget=count - 1)
    assert caught.value.exit_code == 2
    # every subset of 5 items out of 60, in each of 12 records: counted in C, never listed
    many = Window.from_transactions([[f"i{row}-{x}" for x in range(60)] for row in range(12)])
    with pytest.raises(MiningTooLarge):
        frequent_itemsets(many, 1, max_size=5, budget=10**7)


@pytest.mark.parametrize("count", [
    lambda window: itemset_spectrum(pyfim_rows(window, None), 5, 3),
    lambda window: list(km_violations(window, 5, 3)),
], ids=["itemset_spectrum", "km_violations"])
def test_counting_by_the_pattern_spectrum_keeps_no_memory(count):
    # Regression (QA soak of a worker): pyfim's dictionary spectrum leaked every key and count
    # of every call, 46 blocks a call for these rows, which a worker's checks make per window.
    rnd = random.Random(1)
    rows = [[str(item) for item in rnd.sample(range(60), rnd.randrange(1, 6))] for _ in range(500)]
    window = Window.from_transactions(rows)
    assert itemset_spectrum(pyfim_rows(window, None), 5, 3)  # there is a spectrum to leak
    calls = 1000
    for _ in range(20):
        count(window)
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(calls):
        count(window)
    gc.collect()
    assert sys.getallocatedblocks() - before < calls


@settings(max_examples=60, deadline=None)
@given(rows=databases, min_support=st.integers(1, 3), max_size=st.integers(1, 7))
def test_a_size_bound_keeps_every_itemset_up_to_it(rows, min_support, max_size):
    # the bound pyfim is given is clipped to the longest row, which must stay reachable
    window = Window.from_transactions(rows)
    expected = {s: c for s, c in brute_force(window, min_support).items() if len(s) <= max_size}
    assert frequent_itemsets(window, min_support, max_size=max_size) == expected


def test_mining_restricted_to_some_items_counts_only_those():
    window = Window.from_transactions([["a", "b", "c"], ["b", "c"], ["a", "c"]])
    keep = np.zeros(len(window.vocab), dtype=bool)
    keep[[window.vocab.get("a"), window.vocab.get("c")]] = True
    found = {frozenset(window.vocab.label(i) for i in s): n for s, n in frequent_itemsets(window, 1, items=keep).items()}
    assert found == {frozenset("a"): 2, frozenset("c"): 3, frozenset("ac"): 2}


def test_a_size_bound_past_a_c_long_mines_as_none():
    # QA: audit publish --max-size 2**63, which its option admits, ended in an OverflowError
    window = Window.from_transactions([["a", "b"], ["a"]])
    assert frequent_itemsets(window, 1, max_size=2**63) == frequent_itemsets(window, 1)


def test_a_budgets_message_is_setveils_own_only_when_setveil_asked():
    # the caller's `what` may quote data: a plugin calling within_budget gets no words the
    # pipeline would give as a window's reason; setveil's own mining does
    with pytest.raises(MiningTooLarge) as caught:
        within_budget(3, 2, 1, "itemsets holding HIV")
    assert own_words(caught.value) is None
    with pytest.raises(MiningTooLarge) as caught:
        frequent_itemsets(Window.from_transactions([["a", "b"]]), 1, budget=2)
    assert own_words(caught.value) == str(caught.value)


def test_a_budget_counts_only_the_itemsets_of_the_sizes_asked_for():
    # [a, b] holds a, b and ab: one itemset of size 2, within a budget of 1
    window = Window.from_transactions([["a", "b"]])
    assert list(frequent_itemsets(window, 1, min_size=2, budget=1).values()) == [1]


@settings(max_examples=60, deadline=None)
@given(rows=databases, min_support=st.integers(1, 3), sizes=st.tuples(st.integers(1, 7), st.integers(1, 7)))
@example(rows=[["a", "b", "c"]], min_support=1, sizes=(3, 2))
def test_only_itemsets_within_both_size_bounds_are_listed_and_counted(rows, min_support, sizes):
    # a max_size below min_size bounds every size away: pyfim refuses a zmax below zmin, and the
    # bound raised to min_size listed the itemsets of min_size items ([a, b, c] gave abc for sizes 3..2)
    window = Window.from_transactions(rows)
    low, high = sizes
    expected = {s: c for s, c in brute_force(window, min_support).items() if low <= len(s) <= high}
    assert frequent_itemsets(window, min_support, min_size=low, max_size=high) == expected
    spectrum = itemset_spectrum(pyfim_rows(window, None), min_support, high, low)
    assert {size: count for size, count in spectrum.items() if count} == dict(Counter(len(s) for s in expected))
