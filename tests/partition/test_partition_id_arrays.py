"""Partition's per-occurrence arrays (transaction, leaf, cut node, child toward the leaf, input
position, partition, released node) hold ids in core.arrays.id_dtype of their count: int32 on every
window that fits, int64 past it. Both paths release the same nodes with the same counters, and the
int32 one peaks at well under the int64 one's memory (retail at k=10, f=5 peaked there)."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core import arrays
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition import Partition
from setveil.plugins.partition.partition import partition
from setveil.plugins.partition.recoding import LeafWindow

from .test_recursive import chained, clustered


def _recode(h, rows, k):
    leaves = LeafWindow.of(Window.from_transactions(rows), h)
    recoding = partition(leaves, h, k, Partition().pick_node, walks_chains=True)
    stats = {key: value for key, value in recoding.stats.items() if not key.endswith("_seconds")}
    return recoding.nodes, stats


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=chained(), rows=clustered(), k=st.integers(1, 5))
def test_the_int32_ids_release_what_the_int64_ids_release(h, rows, k):
    if len(rows) < k:  # refused before Algorithm 1 runs
        return
    narrow, narrow_stats = _recode(h, rows, k)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "INT32_IDS", 0)  # every count past it: the int64 path
        wide, wide_stats = _recode(h, rows, k)
    assert narrow.dtype == np.int32 and wide.dtype == np.int64
    assert narrow.tolist() == wide.tolist()
    assert narrow_stats == wide_stats


def test_the_int32_ids_peak_under_the_int64_ids():
    rng = np.random.default_rng(0)
    labels = [f"i{n}" for n in range(2000)]
    rows = [[labels[i] for i in rng.choice(len(labels), size=rng.integers(1, 12), replace=False)]
            for _ in range(30_000)]
    hierarchy = Hierarchy.balanced(labels, 5)
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    hierarchy.ancestor_table, hierarchy.child_rank, hierarchy.ncp_units  # built once, not what is measured

    def peak():
        tracemalloc.start()
        try:
            released = partition(leaves, hierarchy, 10, Partition().pick_node).nodes
            return tracemalloc.get_traced_memory()[1], released
        finally:
            tracemalloc.stop()

    narrow, narrow_nodes = peak()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "INT32_IDS", 0)
        wide, wide_nodes = peak()
    assert np.array_equal(narrow_nodes, wide_nodes)
    # 74 and 122 bytes an occurrence (180,411 of them); the same before the ids were id_dtype's
    assert narrow < 0.7 * wide


@pytest.mark.parametrize("int32_ids", [arrays.INT32_IDS, 0])
def test_a_leaf_window_holds_its_node_ids_as_partition_keeps_them(int32_ids):
    # LeafWindow.of made them int64 and Partition its own int32 copy: both over every occurrence
    # at its first round, the peak of anonymizing a million transactions
    h = Hierarchy.balanced([f"i{n}" for n in range(50)], 5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "INT32_IDS", int32_ids)
        leaves = LeafWindow.of(Window.from_transactions([["i1", "i7"], ["i49"], []]), h)
        assert leaves.nodes.dtype == arrays.id_dtype(len(h))
        assert arrays.as_ids(leaves.nodes, len(h)) is leaves.nodes
    assert [h.labels[node] for node in leaves.nodes.tolist()] == ["i1", "i7", "i49"]
