"""The MOLE-tree and Score table (Xu et al. §3.2, Definition 5, Figs. 5-7).

Each root-to-leaf path is one minimal mole, its items in Score-table order (descending MM,
then ascending IL, then label). The tree is held in arrays laid out in pre-order, so the
subtree of a node is the contiguous range ``[node, end[node])``: deleting all minimal moles
that pass a node (Fig. 6, line 8) is one slice operation, and updating its ancestors (line 9)
walks at most p-1 parents. ``mole_num`` 0 marks a deleted node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class ScoreTable:
    """One entry per public item in some minimal mole: MM(e), IL(e) (head-of-link is
    ``MoleTree.links``). Entries are in table order; ``mm`` 0 means the entry is deleted."""

    items: np.ndarray
    mm: np.ndarray
    il: np.ndarray

    def entries(self) -> list[tuple[int, int, float]]:
        alive = self.mm > 0
        return list(zip(self.items[alive].tolist(), self.mm[alive].tolist(), self.il[alive].tolist()))


class MoleTree:
    """MOLE-tree over table positions; node arrays ``label``, ``depth``, ``parent``,
    ``mole_num`` and ``end`` (exclusive end of the node's subtree in pre-order)."""

    def __init__(self, moles: Sequence[np.ndarray], il: np.ndarray, tie_key: np.ndarray):
        """``moles``: arrays of item ids, one array per mole size; ``il``: IL(e) over item
        ids; ``tie_key``: a rank over item ids breaking remaining ties (e.g. label order)."""
        moles = [m for m in moles if len(m)]
        width = max((m.shape[1] for m in moles), default=0)
        padded = np.full((sum(len(m) for m in moles), width), -1, dtype=np.int64)
        row = 0
        for m in moles:
            padded[row : row + len(m), : m.shape[1]] = m
            row += len(m)
        present = padded >= 0
        mm_by_item = np.bincount(padded[present], minlength=len(il))
        items = np.flatnonzero(mm_by_item)
        order = np.lexsort((tie_key[items], il[items], -mm_by_item[items]))
        items = items[order]
        position = np.full(len(il), -1, dtype=np.int64)
        position[items] = np.arange(len(items))
        self.table = ScoreTable(items, mm_by_item[items].astype(np.int64), il[items].astype(np.float64))
        self._build(padded, present, position)

    def _build(self, padded: np.ndarray, present: np.ndarray, position: np.ndarray) -> None:
        n_moles, width = padded.shape
        big = np.iinfo(np.int64).max
        ranked = np.where(present, position[np.maximum(padded, 0)], big)
        ranked.sort(axis=1)
        if n_moles:
            ranked = ranked[np.lexsort(ranked.T[::-1])]
        # first depth at which mole j's path leaves mole j-1's path
        diff = np.zeros(n_moles, dtype=np.int64)
        if n_moles > 1:
            differs = ranked[1:] != ranked[:-1]
            diff[1:] = np.where(differs.any(axis=1), differs.argmax(axis=1), width)
        depth_grid = np.arange(width)[None, :]
        creates = (ranked != big) & (depth_grid >= diff[:, None])
        mole_of, depth = np.nonzero(creates)  # row-major: pre-order
        n_nodes = len(mole_of)
        self.label = ranked[mole_of, depth]
        self.depth = depth
        self.parent = np.full(n_nodes, -1, dtype=np.int64)
        self.mole_num = np.zeros(n_nodes, dtype=np.int64)
        self.end = np.zeros(n_nodes, dtype=np.int64)
        node_ids = np.arange(n_nodes)
        for d in range(width):
            at = node_ids[depth == d]
            if d > 0:
                above = node_ids[depth == d - 1]
                self.parent[at] = above[np.searchsorted(mole_of[above], mole_of[at], side="right") - 1]
            # moles passing a node: up to the next mole whose path leaves at depth <= d
            leaves_here = np.flatnonzero(diff <= d)
            nxt = np.searchsorted(leaves_here, mole_of[at], side="right")
            last = np.append(leaves_here, n_moles)[nxt]
            self.mole_num[at] = last - mole_of[at]
            shallow = node_ids[depth <= d]
            nxt_node = np.searchsorted(shallow, at, side="right")
            self.end[at] = np.append(shallow, n_nodes)[nxt_node]
        by_label = np.argsort(self.label, kind="stable")
        self.link_nodes = by_label
        self.link_ptr = np.zeros(len(self.table.items) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.label, minlength=len(self.table.items)), out=self.link_ptr[1:])

    def links(self, entry: int) -> np.ndarray:
        """The node-link of a Score-table entry: its nodes in pre-order."""
        return self.link_nodes[self.link_ptr[entry] : self.link_ptr[entry + 1]]

    def delete(self, entry: int) -> None:
        """Delete every minimal mole holding the entry's item (Fig. 6, lines 7-9).

        A path holds an item once, so no node of the link is above another: their subtrees are
        disjoint and none holds another's ancestors, and all of them are deleted at once, a
        level of ancestors at a time (retail's greedy made 81,943 deletions one node at a time)."""
        mm = self.table.mm
        nodes = self.links(entry)
        nodes = nodes[self.mole_num[nodes] > 0]
        if not len(nodes):
            return
        counts = self.mole_num[nodes]
        sizes = self.end[nodes] - nodes
        starts = np.cumsum(sizes) - sizes
        span = np.repeat(nodes - starts, sizes) + np.arange(int(sizes.sum()))
        passing = self.mole_num[span]
        live = passing > 0
        np.subtract.at(mm, self.label[span[live]], passing[live])
        self.mole_num[span] = 0
        up = self.parent[nodes]
        above = up >= 0
        while above.any():
            up, counts = up[above], counts[above]
            np.subtract.at(self.mole_num, up, counts)
            np.subtract.at(mm, self.label[up], counts)
            up = self.parent[up]
            above = up >= 0

    def paths(self) -> list[tuple[list[int], int]]:
        """Live nodes as (item ids from the root, mole_num), in pre-order (for tests and docs)."""
        out = []
        for node in np.flatnonzero(self.mole_num > 0).tolist():
            path = []
            up = node
            while up >= 0:
                path.append(int(self.table.items[self.label[up]]))
                up = self.parent[up]
            out.append((path[::-1], int(self.mole_num[node])))
        return out


def eliminate(tree: MoleTree, score) -> list[int]:
    """Greedy suppression (Fig. 6, lines 5-9): repeatedly take the live Score-table entry of
    highest ``score(mm, il)``, ties to the earliest entry, and delete its moles. Returns the
    suppressed item ids in order."""
    table = tree.table
    chosen: list[int] = []
    while True:
        alive = np.flatnonzero(table.mm > 0)
        if len(alive) == 0:
            return chosen
        scores = np.asarray(score(table.mm[alive], table.il[alive]), dtype=np.float64)
        entry = int(alive[np.argmax(scores)])
        chosen.append(int(table.items[entry]))
        tree.delete(entry)
        if table.mm[entry] != 0:
            # every mole holding the item has a node on its link list, so none can be left; if the
            # tree's counts were ever wrong, the entry would be chosen again for ever (QA mutants
            # of Step 9 hung a worker's window instead of failing it)
            raise RuntimeError(f"MOLE-tree: deleting an item's moles left {int(table.mm[entry])} of them")
