"""GlobalCut.support, the supports DA tests for a batch of candidate generalizations, gathers each
distinct node's bitset once from one table: the same supports as counting, transaction by
transaction, those holding a leaf under every non-merged node of a row."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition.apriori import GlobalCut
from setveil.plugins.partition.recoding import LeafWindow

from .balanced import rows_under_a_hierarchy


@st.composite
def cuts_and_batches(draw):
    rows, hierarchy = draw(rows_under_a_hierarchy(min_items=2, min_rows=1, max_rows=80))
    size = draw(st.integers(1, 4))
    n_nodes = len(hierarchy)
    batch = draw(st.lists(st.lists(st.integers(0, n_nodes - 1), min_size=size, max_size=size), min_size=1,
                          max_size=70))
    merged = draw(st.lists(st.lists(st.booleans(), min_size=size, max_size=size), min_size=len(batch),
                           max_size=len(batch)))
    return rows, hierarchy, np.array(batch, dtype=np.int64), np.array(merged, dtype=bool)


def _holding(hierarchy: Hierarchy, leaves: LeafWindow, node: int) -> set[int]:
    under = range(node, int(hierarchy.end[node]))
    return {t for t in range(len(leaves)) if any(int(leaf) in under
                                                 for leaf in leaves.nodes[leaves.indptr[t]:leaves.indptr[t + 1]])}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts_and_batches())
def test_a_batchs_supports_are_the_transactions_holding_every_non_merged_node(drawn):
    rows, hierarchy, batch, merged = drawn
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    cut = GlobalCut(leaves, hierarchy)
    expected = []
    for row, flags in zip(batch.tolist(), merged.tolist()):
        holding = set(range(len(leaves)))
        for node, skip in zip(row, flags):
            if not skip:
                holding &= _holding(hierarchy, leaves, node)
        # a row of merged nodes only is no generalization DA weighs; its AND is of all-ones words
        expected.append(len(holding) if not all(flags) else cut._words * 64)
    assert cut.support(batch, merged).tolist() == expected


def test_a_batch_reads_each_distinct_nodes_bitset_once(monkeypatch):
    rows = [[f"i{x}", f"i{(x + 1) % 20}"] for x in range(20)]
    hierarchy = Hierarchy.balanced(sorted({item for row in rows for item in row}), 4)
    cut = GlobalCut(LeafWindow.of(Window.from_transactions(rows), hierarchy), hierarchy)
    read = []
    real = GlobalCut.bitset
    monkeypatch.setattr(GlobalCut, "bitset", lambda self, node: read.append(node) or real(self, node))
    # 64 candidates over the same three nodes, as DA's batch of one itemset's generalizations is
    batch = np.tile([[1, 2, 3]], (64, 1))
    merged = np.zeros(batch.shape, dtype=bool)
    merged[::2, 2] = True
    supports = cut.support(batch, merged)
    assert sorted(read) == [1, 2, 3]
    assert len(set(supports[::2].tolist())) == 1 and len(set(supports[1::2].tolist())) == 1
