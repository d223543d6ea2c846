"""AA's itemset counting against a brute-force Counter over every size-subset of every
transaction, on both counting paths: the dense count by colex rank (few distinct nodes) and the
sort of packed keys, with narrow (one int64) and wide (void) keys, and with blocks small enough
that enumeration, merging and dense flushing happen in many pieces."""

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.window import Window
from setveil.plugins.partition import apriori
from setveil.plugins.partition.recoding import LeafWindow

from .examples import FIGURE_2, hierarchy

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# 5 bits per node (narrow keys at any size here), 12 (narrow up to 5 columns), 21 (wide at size 4)
N_NODES = [32, 4000, 1 << 21]


@st.composite
def datasets(draw):
    """(n_nodes, rows): transactions of distinct nodes, ascending, drawn from a pool of at most 40
    node ids spread over range(n_nodes) so that C(pool, 4) stays a small dense count."""
    n_nodes = draw(st.sampled_from(N_NODES))
    pool = draw(st.lists(st.integers(0, n_nodes - 1), min_size=1, max_size=40, unique=True))
    row = st.lists(st.sampled_from(pool), max_size=12, unique=True).map(sorted)
    return n_nodes, draw(st.lists(row, max_size=30))


def csr(rows):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(row) for row in rows], out=indptr[1:])
    return indptr, np.array([node for row in rows for node in row], dtype=np.int32)


def refuse(*args):
    raise AssertionError("the other counting path was taken")


def counted_with(path, rows, size, n_nodes, small_blocks):
    """count_itemsets forced onto ``path`` ("dense" or "sorted"), as {itemset: support}, plus its keys."""
    with pytest.MonkeyPatch.context() as patch:
        if path == "dense":
            patch.setattr(apriori, "DENSE", 1 << 22)
            patch.setattr(apriori, "_count_sorted", refuse)
        else:
            patch.setattr(apriori, "DENSE", 0)
            patch.setattr(apriori, "_count_dense", refuse)
        if small_blocks:
            patch.setattr(apriori, "BLOCK", 16)
            patch.setattr(apriori, "MERGE", 8)
        keys, counts, counted = apriori.count_itemsets(*csr(rows), size, n_nodes)
    itemsets = [tuple(itemset) for itemset in apriori.unpack(keys, size, n_nodes).tolist()]
    assert len(set(itemsets)) == len(itemsets)
    assert counts.dtype == np.int64
    return dict(zip(itemsets, counts.tolist())), counted, keys


@SETTINGS
@given(data=datasets(), size=st.integers(1, 4), small_blocks=st.booleans())
@pytest.mark.parametrize("path", ["dense", "sorted"])
def test_count_itemsets_matches_brute_force(path, data, size, small_blocks):
    n_nodes, rows = data
    expected = Counter(subset for row in rows for subset in combinations(row, size))
    got, counted, keys = counted_with(path, rows, size, n_nodes, small_blocks)
    assert got == dict(expected)
    assert counted == sum(expected.values())
    if len(keys):
        assert np.array_equal(keys, np.unique(keys))  # ascending, whichever path counted


@SETTINGS
@given(data=datasets(), size=st.integers(1, 4))
def test_both_paths_return_identical_arrays(data, size):
    n_nodes, rows = data
    indptr, nodes = csr(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apriori, "DENSE", 0)
        by_sort = apriori.count_itemsets(indptr, nodes, size, n_nodes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apriori, "_count_sorted", refuse)
        dense = apriori.count_itemsets(indptr, nodes, size, n_nodes)
    assert dense[2] == by_sort[2]
    assert dense[0].dtype == by_sort[0].dtype and dense[1].dtype == by_sort[1].dtype
    assert np.array_equal(dense[0], by_sort[0]) and np.array_equal(dense[1], by_sort[1])


@pytest.mark.parametrize("path", ["dense", "sorted"])
def test_wide_keys_are_counted_on_both_paths(path):
    n_nodes = 1 << 21  # 21 bits per node: 4 columns do not fit one int64 key
    rows = [[3, 70, 1 << 20, n_nodes - 1], [3, 70, 1 << 20, n_nodes - 1], [0, 3, 70, 1 << 20, n_nodes - 1]]
    got, counted, keys = counted_with(path, rows, 4, n_nodes, small_blocks=False)
    assert keys.dtype.kind == "V"
    once = [(0, 3, 70, 1 << 20), (0, 3, 70, n_nodes - 1), (0, 3, 1 << 20, n_nodes - 1), (0, 70, 1 << 20, n_nodes - 1)]
    assert got == {(3, 70, 1 << 20, n_nodes - 1): 3, **dict.fromkeys(once, 1)}
    assert counted == 7


def test_dense_count_covers_every_rank():
    """Every 3-subset of 9 nodes occurs once: all C(9, 3) bins are hit and unranked back."""
    rows = [list(range(9))]
    got, counted, _ = counted_with("dense", rows, 3, 9, small_blocks=False)
    assert got == {subset: 1 for subset in combinations(range(9), 3)}
    assert counted == 84


def test_nothing_long_enough_counts_nothing():
    keys, counts, counted = apriori.count_itemsets(*csr([[1, 2], [], [5]]), 3, 8)
    assert len(keys) == len(counts) == counted == 0


def test_a_transaction_past_the_budget_fails_before_anything_is_counted(monkeypatch):
    # QA as a CLI user: 300 rows of chess at m=8 counted for 76 s before failing closed; the
    # longest transaction alone holds C(length, size) distinct itemsets, known before counting
    from setveil.core.mining import MiningTooLarge

    def counted(*args):
        raise AssertionError("an itemset was counted")

    monkeypatch.setattr(apriori, "DISTINCT_BUDGET", 100)
    monkeypatch.setattr(apriori, "_pack", counted)
    lengths = np.array([10, 3])
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    nodes = np.concatenate([np.arange(10), np.arange(3)]).astype(np.int32)
    with pytest.raises(MiningTooLarge, match="120 distinct 3-itemsets"):
        apriori._count_sorted(indptr, lengths, nodes, 3, 1 << 21)


def distinct_triples(n_rows):
    """``n_rows`` transactions of three nodes each, no two alike: one distinct 3-itemset apiece."""
    rows = [[3 * row, 3 * row + 1, 3 * row + 2] for row in range(n_rows)]
    indptr, nodes = csr(rows)
    return indptr, np.diff(indptr), nodes


def test_distinct_itemsets_past_the_budget_across_transactions_fail_once_counted(monkeypatch):
    # every transaction alone is within the budget (one 3-itemset), the 20 together are not.
    # Mutation testing: dropping the check after the last merge passed every test and returned
    # the count of all 20
    from setveil.core.mining import MiningTooLarge

    monkeypatch.setattr(apriori, "DISTINCT_BUDGET", 5)
    with pytest.raises(MiningTooLarge, match="up to 20 distinct 3-itemsets .* more than the budget of 5$"):
        apriori._count_sorted(*distinct_triples(20), 3, 64)


def test_distinct_itemsets_past_the_budget_stop_the_count_at_the_merge_that_finds_them(monkeypatch):
    # two transactions' subsets per block, merged past MERGE = 4 held: the first merge holds 6
    # distinct itemsets, past the budget of 5, and nothing more is counted ("at least": the
    # message gives 6, not 20). Mutation testing: no check at the merges passed every test and
    # counted all 20 transactions before failing
    from setveil.core.mining import MiningTooLarge

    monkeypatch.setattr(apriori, "BLOCK", 2)
    monkeypatch.setattr(apriori, "MERGE", 4)
    monkeypatch.setattr(apriori, "DISTINCT_BUDGET", 5)
    with pytest.raises(MiningTooLarge, match="up to 6 distinct 3-itemsets \\(at least: counting stopped there\\)"):
        apriori._count_sorted(*distinct_triples(20), 3, 64)


def test_the_support_of_a_generalization_counts_every_transaction_of_each_64_bit_word():
    # DA tests a generalization by ANDing its nodes' tidset bitsets, a word of all ones standing
    # in for an item merged into another chosen node. Mutation testing: a word of ones without its
    # top bit (transactions 63, 127, ...) passed every test, whose windows hold at most 60.
    h = hierarchy(FIGURE_2)
    a1, a2, big_a = h.nodes(["a1", "a2", "A"]).tolist()
    leaves = LeafWindow.of(Window.from_transactions([["a1", "a2"]] * 130), h)
    cut = apriori.GlobalCut(leaves, h)
    # {a1, a2} -> {A, a2}: a2 is merged into A; {a1, a2} as it is: both tested
    supports = cut.support(np.array([[big_a, a2], [a1, a2]]), np.array([[False, True], [False, False]]))
    assert supports.tolist() == [130, 130]
