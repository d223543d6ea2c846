"""MoleTree.delete removes an entry's moles with all its link's nodes at once: the same counts as
Fig. 6's lines 7-9 taken a node at a time, in a number of array operations bounded by the moles'
size rather than by the link's length."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.plugins.coherence.moletree import MoleTree, eliminate


def _delete_node_by_node(tree: MoleTree, entry: int) -> None:
    """Fig. 6, lines 7-9, as written: each node of the entry's link, its subtree, then its parents."""
    mm = tree.table.mm
    for node in tree.links(entry).tolist():
        count = int(tree.mole_num[node])
        if count == 0:
            continue
        for below in range(node, int(tree.end[node])):
            mm[tree.label[below]] -= tree.mole_num[below]
            tree.mole_num[below] = 0
        up = int(tree.parent[node])
        while up >= 0:
            tree.mole_num[up] -= count
            mm[tree.label[up]] -= count
            up = int(tree.parent[up])


def _tree(moles_by_size: dict[int, set[tuple[int, ...]]], n_items: int) -> MoleTree:
    moles = [np.array(sorted(rows), dtype=np.int64).reshape(-1, size) for size, rows in sorted(moles_by_size.items())]
    il = np.arange(n_items, dtype=np.float64) % 3 + 1
    return MoleTree(moles, il, np.arange(n_items))


_moles = st.integers(4, 12).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.dictionaries(
            st.integers(2, 4),
            st.lists(st.lists(st.integers(0, n - 1), min_size=4, max_size=4, unique=True), max_size=40),
            min_size=1,
        ),
    )
)


def _by_size(drawn: dict[int, set]) -> dict[int, set[tuple[int, ...]]]:
    return {size: {tuple(sorted(row[:size])) for row in rows} for size, rows in drawn.items() if rows}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_moles, st.lists(st.integers(0, 1000), min_size=1, max_size=8))
def test_deleting_a_link_at_once_leaves_the_counts_node_by_node_deletion_leaves(drawn, picks):
    n_items, moles = drawn
    by_size = _by_size(moles)
    if not by_size:
        return
    fast, slow = _tree(by_size, n_items), _tree(by_size, n_items)
    for pick in picks:
        entry = pick % len(fast.table.items)
        fast.delete(entry)
        _delete_node_by_node(slow, entry)
        assert fast.mole_num.tolist() == slow.mole_num.tolist()
        assert fast.table.mm.tolist() == slow.table.mm.tolist()
    assert fast.paths() == slow.paths()


@settings(max_examples=100, deadline=None)
@given(_moles)
def test_the_greedy_chooses_the_same_items_either_way(drawn):
    n_items, moles = drawn
    by_size = _by_size(moles)
    if not by_size:
        return
    fast, slow = _tree(by_size, n_items), _tree(by_size, n_items)
    expected = []
    while (slow.table.mm > 0).any():
        alive = np.flatnonzero(slow.table.mm > 0)
        entry = int(alive[np.argmax(slow.table.mm[alive] / slow.table.il[alive])])
        expected.append(int(slow.table.items[entry]))
        _delete_node_by_node(slow, entry)
    assert eliminate(fast, lambda mm, il: mm / il) == expected


def test_a_long_link_is_deleted_in_operations_bounded_by_the_moles_size(monkeypatch):
    # every pair {a_i, b_j} of 20 a's and 20 b's, the b's of higher IL: each b is a leaf under
    # every a, a link of 20 nodes, which Fig. 6 taken a node at a time deletes in 20 steps
    pairs = np.array([[i, 20 + j] for i in range(20) for j in range(20)], dtype=np.int64)
    tree = MoleTree([pairs], np.repeat([1.0, 2.0], 20), np.arange(40))
    calls = []
    real = np.subtract.at

    class Counting:
        @staticmethod
        def at(*args):
            calls.append(1)
            return real(*args)

    monkeypatch.setattr(np, "subtract", Counting)
    b = int(np.flatnonzero(tree.table.items == 20)[0])
    assert len(tree.links(b)) == 20
    tree.delete(b)
    # the subtrees' counts, then the mole counts and the table's of the one level of parents
    assert len(calls) == 3
    assert tree.table.mm.tolist() == [19] * 20 + [0] + [20] * 19
