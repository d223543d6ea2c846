"""Partition's paths for wide hierarchies and many partitions, which the random hierarchies of
test_properties.py (fan-out at most 4, 12 labels) never reach: a node of more than 64 children
needs bitmasks of several words per transaction, buckets are then told apart by sorting rather
than by one integer key (or, past MASK_WORDS, by lists of children), and (partition, node) gains are summed by sorting once the dense table
would be too large. Each is checked against a plain Python oracle, and the whole algorithm
against the brute-force k-anonymity oracle on a hierarchy of fan-out above 64."""

import tracemalloc
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core import hierarchy as hierarchy_module
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition import Partition
from setveil.plugins.partition import partition as algorithm
from setveil.plugins.partition.partition import (_buckets, _chain_ends, _child_masks, _listed_buckets, _pair_gains,
                                                partition)
from setveil.plugins.partition.recoding import LeafWindow

from ..tracing import traced_peak
from .test_properties import check_partition_release
from .test_recursive import chained, clustered

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def occurrences(draw):
    """Ascending row numbers of item occurrences, each with a child rank below up to 200
    (so one to four 64-bit words), and the partition of each row."""
    n_rows = draw(st.integers(1, 25))
    width = draw(st.sampled_from([5, 63, 64, 65, 130, 200]))
    pairs = draw(st.lists(st.tuples(st.integers(0, n_rows - 1), st.integers(0, width - 1)), min_size=1, max_size=80))
    pairs.sort(key=lambda pair: pair[0])
    rows = np.array([row for row, _ in pairs], dtype=np.int64)
    ranks = np.array([rank for _, rank in pairs], dtype=np.int64)
    parts = np.array(draw(st.lists(st.integers(0, 3), min_size=n_rows, max_size=n_rows)), dtype=np.int64)
    return n_rows, rows, ranks, parts


def ranks_by_row(n_rows, rows, ranks):
    touched = [set() for _ in range(n_rows)]
    for row, rank in zip(rows.tolist(), ranks.tolist()):
        touched[row].add(rank)
    return touched


def same_grouping(ids, keys):
    """``ids`` put two rows together exactly when ``keys`` does."""
    return all((keys[i] == keys[j]) == (ids[i] == ids[j]) for i in range(len(keys)) for j in range(len(keys)))


@SETTINGS
@given(case=occurrences())
def test_child_masks_hold_exactly_the_ranks_each_row_touches(case):
    n_rows, rows, ranks, _ = case
    masks = _child_masks(rows, ranks, n_rows)
    assert masks.shape == (n_rows, int(ranks.max()) // 64 + 1)
    for row, expected in enumerate(ranks_by_row(n_rows, rows, ranks)):
        held = {64 * word + bit for word in range(masks.shape[1]) for bit in range(64) if int(masks[row, word]) >> bit & 1}
        assert held == expected


@SETTINGS
@given(case=occurrences(), offset=st.sampled_from([0, 1 << 58]))
def test_buckets_group_rows_by_partition_and_children_touched(case, offset):
    """An offset of 2^58 on the partition ids leaves no room for the mask in one integer key, so
    even one-word masks are grouped by sorting."""
    n_rows, rows, ranks, parts = case
    buckets = _buckets(parts + offset, _child_masks(rows, ranks, n_rows))
    keys = [(int(part), frozenset(touched)) for part, touched in zip(parts, ranks_by_row(n_rows, rows, ranks))]
    assert same_grouping(buckets.tolist(), keys)


@SETTINGS
@given(case=occurrences(), offset=st.sampled_from([0, 1 << 58]))
def test_listed_buckets_number_rows_as_the_masks_do(case, offset):
    """The same ids, not only the same groups: a tie of whole buckets goes to the lower id."""
    n_rows, rows, ranks, parts = case
    expected = _buckets(parts + offset, _child_masks(rows, ranks, n_rows))
    assert _listed_buckets(parts + offset, rows, ranks, n_rows).tolist() == expected.tolist()


@SETTINGS
@given(
    pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 40), st.integers(1, 1000)), min_size=1, max_size=60),
    dense=st.booleans(),
    deep=st.booleans(),
    block=st.sampled_from([1, 3, 7, algorithm.PAIR_BLOCK]),
)
def test_pair_gains_sum_each_partition_and_node_pair_in_order(pairs, dense, deep, block):
    """``n_parts`` large enough that a dense table of partitions by nodes would be too big sends
    the sums through the sorting path, and a hierarchy of far more nodes than the round's
    occurrences finds the nodes in play by sorting them; all paths must give the same pairs and
    sums, the table's in blocks of any number of occurrences."""
    part = np.array([p for p, _, _ in pairs], dtype=np.int64)
    node = np.array([n for _, n, _ in pairs], dtype=np.int64)
    gain = np.array([g for _, _, g in pairs], dtype=np.float64)
    n_parts = 6 if dense else 1 << 20
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(algorithm, "PAIR_BLOCK", block)
        got_part, got_node, got_gain = _pair_gains(part, node, gain, n_parts, 1 << 20 if deep else 41)
    expected = defaultdict(float)
    for p, n, g in pairs:
        expected[(p, n)] += g
    assert list(zip(got_part.tolist(), got_node.tolist())) == sorted(expected)
    assert got_gain.tolist() == [expected[key] for key in sorted(expected)]


def test_pair_gains_of_a_small_table_take_no_wide_copy_of_every_occurrence():
    # a million transactions' first rounds: 10 million occurrences, a handful of partitions and
    # cut nodes; bincount's int64 keys and float64 gains over all of them were 16 bytes each
    rng = np.random.default_rng(0)
    n = 4_000_000
    part = rng.integers(0, 70, size=n).astype(np.int32)
    node = rng.integers(1, 10, size=n).astype(np.int32)
    gain = rng.integers(0, 800, size=n).astype(np.int32)
    (got_part, got_node, got_gain), peak = traced_peak(lambda: _pair_gains(part, node, gain, 70, 41))
    keys = part.astype(np.int64) * 41 + node
    sums = np.bincount(keys, weights=gain)
    present = np.flatnonzero(np.bincount(keys))
    assert got_part.tolist() == (present // 41).tolist() and got_node.tolist() == (present % 41).tolist()
    assert got_gain.tolist() == sums[present].tolist()
    # each occurrence's node number (4 bytes) and a block's keys and gains (16 bytes each)
    assert peak < 4 * n + 20 * algorithm.PAIR_BLOCK


@SETTINGS
@given(
    rows=st.lists(st.lists(st.integers(0, 129), max_size=6, unique=True), max_size=40),
    leaves=st.integers(65, 130),
    k=st.integers(1, 5),
)
def test_partition_under_a_node_of_more_than_64_children_is_k_anonymous(rows, leaves, k):
    labels = [str(i) for i in range(leaves)]
    rows = [list(dict.fromkeys(labels[item % leaves] for item in row)) for row in rows]
    check_partition_release(Hierarchy.balanced(labels, leaves), rows, k)


def test_a_node_of_thousands_of_children_takes_memory_by_occurrence_not_by_row_and_child():
    # A flat hierarchy, ALL over 16,384 items, and 20,000 transactions of one to three: children
    # masks of 256 words a transaction were 41 MB, copied twice more to sort them (retail under
    # ALL alone peaked at 631 MiB), for 40,000 occurrences.
    rng = np.random.default_rng(0)
    labels = [str(i) for i in range(1 << 14)]
    hierarchy = Hierarchy.from_edges([(label, "ALL", line) for line, label in enumerate(labels, start=1)])
    rows = [[labels[i] for i in rng.choice(len(labels), size=rng.integers(1, 4), replace=False)] for _ in range(20_000)]
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    hierarchy.ancestor_table, hierarchy.child_rank, hierarchy.ncp_units  # built once, not what is measured
    tracemalloc.start()
    try:
        partition(leaves, hierarchy, 2, Partition().pick_node)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


@SETTINGS
@given(
    rows=st.lists(st.lists(st.integers(0, 129), max_size=6, unique=True), min_size=1, max_size=40),
    leaves=st.integers(65, 130),
    k=st.integers(1, 5),
)
def test_partition_releases_the_same_with_listed_buckets(rows, leaves, k):
    labels = [str(i) for i in range(leaves)]
    rows = [[labels[item % leaves] for item in row] or [labels[0]] for row in rows]
    rows = [list(dict.fromkeys(row)) for row in rows]
    if len(rows) < k:
        return
    hierarchy = Hierarchy.balanced(labels, leaves)
    leaf_window = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    pick = Partition().pick_node
    with_masks = partition(leaf_window, hierarchy, k, pick).nodes
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(algorithm, "MASK_WORDS", 0)
        listed = partition(leaf_window, hierarchy, k, pick).nodes
    assert listed.tolist() == with_masks.tolist()


def test_a_long_chain_of_inner_nodes_takes_memory_by_leaf_not_by_node():
    # Five items under a chain of 3,000 one-child inner nodes: the table of every node's path was
    # nodes by depth, 3,006 x 3,002 int32 (36 MB); a chain of 200,000 ran the CLI out of memory.
    chain = [(f"n{i}", f"n{i + 1}", i + 1) for i in range(3_000)]
    labels = ["a", "b", "c", "d", "e"]
    hierarchy = Hierarchy.from_edges(chain + [(label, "n0", 3_001 + i) for i, label in enumerate(labels)])
    leaves = LeafWindow.of(Window.from_transactions([labels[i % 5: i % 5 + 2] for i in range(10)]), hierarchy)
    tracemalloc.start()
    try:
        recoding = partition(leaves, hierarchy, 2, Partition().pick_node)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    assert len(recoding.nodes) == len(leaves.nodes)


def _chain_over_five_items(length):
    chain = [(f"n{i}", f"n{i + 1}", i + 1) for i in range(length)]
    labels = ["a", "b", "c", "d", "e"]
    hierarchy = Hierarchy.from_edges(chain + [(label, "n0", length + 1 + i) for i, label in enumerate(labels)])
    return hierarchy, LeafWindow.of(Window.from_transactions([labels[i % 5: i % 5 + 2] for i in range(10)]), hierarchy)


def test_a_long_chain_of_inner_nodes_is_walked_in_one_round():
    # Max_Global_Info_Gain picks a one-child node only when no node of the cut gains anything, and
    # then the chain below it round after round: 3,001 rounds (each allocating arrays of every
    # node of the hierarchy) under a chain of 3,000, where the root and n0 are the choices.
    hierarchy, leaves = _chain_over_five_items(3_000)
    recoding = Partition().recode(leaves, hierarchy, 2, np.random.default_rng(0))
    assert recoding.stats["partition_rounds"] <= 3
    assert [hierarchy.labels[node] for node in recoding.nodes] == ["a", "b", "b", "c", "c", "d", "d", "e", "e"] * 2


class _ObservingPartition(Partition):
    """Another heuristic's pick_node (here Max_Global_Info_Gain, observed) sees every chain node."""

    def pick_node(self, partitions, nodes, gains):
        self.offered.update(nodes.tolist())
        return super().pick_node(partitions, nodes, gains)


def test_another_pick_node_is_offered_every_node_of_a_chain_and_releases_the_same():
    hierarchy, leaves = _chain_over_five_items(300)
    observing = _ObservingPartition()
    observing.offered = set()
    observed = observing.recode(leaves, hierarchy, 2, np.random.default_rng(0))
    walked = Partition().recode(leaves, hierarchy, 2, np.random.default_rng(0))
    assert observing.offered >= {hierarchy.index[f"n{i}"] for i in range(301)}
    assert observed.stats["partition_rounds"] > 300
    assert observed.nodes.tolist() == walked.nodes.tolist()


def test_a_long_chain_above_many_leaves_leaves_the_hierarchy_arrays_by_node_not_by_leaf_and_level():
    # 1,000 items under a chain of 3,000 one-child nodes: Partition walked down a table of every
    # leaf's ancestor at every depth, 1,000 x 3,002 int32 (12 MB, kept by the hierarchy, about
    # 3,000 bytes a node); 10,000 items under a chain of 20,000 took 932 MB of RSS
    n = 3_000
    labels = [str(i) for i in range(1_000)]
    chain = [(f"n{i}", f"n{i + 1}", i + 1) for i in range(n)]
    hierarchy = Hierarchy.from_edges(chain + [(label, "n0", n + 1 + i) for i, label in enumerate(labels)])
    rows = [[labels[i % 1_000], labels[(i + 1) % 1_000]] for i in range(2_000)]
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    recoding = Partition().recode(leaves, hierarchy, 2, np.random.default_rng(0))
    held = sum(value.nbytes for value in vars(hierarchy).values() if isinstance(value, np.ndarray))
    assert held < 128 * len(hierarchy)
    assert recoding.stats["partition_rounds"] <= 3
    assert (recoding.nodes == leaves.nodes).all()


@SETTINGS
@given(h=chained(), rows=clustered(), k=st.integers(1, 5))
def test_partition_releases_the_same_when_it_searches_for_the_child_toward_each_leaf(h, rows, k):
    if len(rows) < k:
        return
    window = Window.from_transactions(rows)
    with_table = Partition().recode(LeafWindow.of(window, h), h, k, np.random.default_rng(0))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hierarchy_module, "ANCESTOR_TABLE_LEVELS", 0)
        searching = Hierarchy(h.labels, h.parent)
        searched = Partition().recode(LeafWindow.of(window, searching), searching, k, np.random.default_rng(0))
        assert searching.ancestor_table is None
    assert searched.nodes.tolist() == with_table.nodes.tolist()
    assert searched.stats["partition_rounds"] == with_table.stats["partition_rounds"]


def _recoded_by_a_subclass_counting_buckets(leaves, hierarchy, k: int):
    """The recoding of a Partition subclass with its own pick_node, and how many times its
    rounds found buckets."""
    observing = _ObservingPartition()
    observing.offered = set()
    calls = 0
    found = algorithm._buckets

    def counted(*args):
        nonlocal calls
        calls += 1
        return found(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(algorithm, "_buckets", counted)
        observed = observing.recode(leaves, hierarchy, k, np.random.default_rng(0))
    return observed, calls


def test_another_pick_node_expanding_a_one_child_node_keeps_the_partitions_without_finding_buckets():
    # Such an expansion sends every transaction of a partition (k or more) to one bucket that
    # stays: its buckets were found, balanced and renumbered all the same, a round per node of
    # the chain (a subclass under a chain of 20,000: 4.7-5.1 s, now 2.9-3.1 s, at load 10)
    hierarchy, leaves = _chain_over_five_items(300)
    observed, calls = _recoded_by_a_subclass_counting_buckets(leaves, hierarchy, 2)
    assert observed.stats["partition_rounds"] > 300
    assert calls <= 2
    walked = Partition().recode(leaves, hierarchy, 2, np.random.default_rng(0))
    assert observed.nodes.tolist() == walked.nodes.tolist()
    assert observed.stats["equivalence_classes"] == walked.stats["equivalence_classes"]


def test_a_chain_is_walked_to_its_end_in_the_round_that_picks_its_first_node():
    # round 1 expands the root, walked down to n0, and round 2 n0's five children: a walk that
    # stopped a node short of the chain's end (the previous test allows 3 rounds) would leave a
    # round to the chain's last node
    hierarchy, leaves = _chain_over_five_items(3_000)
    assert Partition().recode(leaves, hierarchy, 2, np.random.default_rng(0)).stats["partition_rounds"] == 2
    # a node of one child lands its walk at the first node below of another fan-out, or at a
    # leaf; any other node at itself
    h = Hierarchy.from_edges([(child, parent, 0) for child, parent in [
        ("c1", "r"), ("y", "r"), ("c2", "c1"), ("x", "c2"), ("a", "x"), ("b", "x"), ("z", "y"), ("w", "v"), ("v", "b")]])
    ends = {label: h.labels[end] for label, end in zip(h.labels, _chain_ends(h, np.diff(h.child_ptr) == 1).tolist())}
    assert ends == {"r": "r", "c1": "x", "c2": "x", "x": "x", "a": "a", "b": "w", "v": "w", "w": "w", "y": "z",
                    "z": "z"}


def test_a_chain_is_walked_to_its_end_in_a_round_that_another_partition_splits_in():
    # round 2 expands c1 (one child, no node of its partition gains) in the a/b partition and y
    # (two children) in the other: c1's occurrences land at x, y's at z1 and z2, and round 3
    # ends both. A walk taken only in rounds that pick one-child nodes alone, or a two-child
    # node's occurrences landed where it is, took a round more
    edges = [("c1", "r"), ("y", "r"), ("c2", "c1"), ("x", "c2"), ("a", "x"), ("b", "x"),
             ("z1", "y"), ("z2", "y"), ("d1", "z1"), ("d2", "z1"), ("e1", "z2"), ("e2", "z2")]
    hierarchy = Hierarchy.from_edges([(child, parent, 0) for child, parent in edges])
    rows = [[item] for item in ("a", "b", "d1", "d2", "e1", "e2") for _ in range(2)]
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    walked = Partition().recode(leaves, hierarchy, 2, np.random.default_rng(0))
    stepped = partition(leaves, hierarchy, 2, Partition().pick_node, walks_chains=False)
    assert walked.stats["partition_rounds"] == 3 and stepped.stats["partition_rounds"] == 4
    assert walked.nodes.tolist() == stepped.nodes.tolist() == leaves.nodes.tolist()


def test_a_partition_of_exactly_k_transactions_keeps_itself_down_a_chain_without_finding_buckets():
    # the ten transactions are one partition of k = 10 all the way down the chain of 300: every
    # round but n0's keeps it whole without its buckets found (k or more, not more than k)
    hierarchy, leaves = _chain_over_five_items(300)
    observed, calls = _recoded_by_a_subclass_counting_buckets(leaves, hierarchy, 10)
    assert observed.stats["partition_rounds"] > 300 and calls == 1
    assert [hierarchy.labels[node] for node in observed.nodes] == ["n0"] * len(leaves.nodes)
