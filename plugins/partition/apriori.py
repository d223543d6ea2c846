"""Apriori-based Anonymization (AA) for k^m-anonymity (Terrovitis, Mamoulis, Kalnis VLDB'08 §4),
the baseline of He & Naughton VLDB'09 §5.

Global recoding over a hierarchy cut: every occurrence of an item is released as the cut node
above it, and generalizing a node to its ancestor a generalizes everything under a (§3.1: "the
algorithm in [32] chooses to recode all siblings"). AA works Apriori-style, itemset size
i = 1, 2, ..., m: with the cut made k^(i-1)-anonymous, count the i-itemsets of the generalized
transactions; for each with support 1..k-1, choose (as DA does) the generalization of its items
to ancestors that gives it support >= k at the least increase of NCP(D), and merge it into the
cut. Generalizing never lowers a support, so a cut that is k^(i-1)-anonymous stays so, and the
i-itemsets that still fail are images of ones already found.

Choices (documented and tested):

- Candidates for one failing itemset J are all combinations of an ancestor-or-self per item of
  J (those nesting under another chosen ancestor merge into it). Cost is the exact increase of
  NCP(D) under global recoding: for each new cut node a, NCP(a) times the occurrences under a
  minus what the cut under a costs now. Ties: fewer items changed, then enumeration order. The
  support of a candidate is the popcount of the AND of its nodes' tidset bitsets.
- A round fixes, in order of support then preorder, every failing i-itemset none of whose nodes
  an earlier fix of the round changed (its support is then unchanged, so it still fails); the
  others are recounted in the next round, from the generalized data.
- Counting enumerates the i-subsets of each generalized transaction (vectorized, in bounded
  blocks): exact, memory bounded by the block size, and proportional to sum_t C(|t|, i) - the
  cost that makes AA slow for large m (He & Naughton §5.2.2). When the generalized data holds
  few distinct nodes d (C(d, i) <= DENSE bins, as after AA's first round of generalizations), each
  subset is counted in a dense array at its colex rank among the C(d, i) i-subsets of those
  nodes, linear in the subsets; otherwise the subsets are counted by sorting packed keys.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from setveil.core.arrays import sorted_unique
from setveil.core.hierarchy import Hierarchy
from setveil.core.mining import within_budget

from .recoding import LeafWindow, Recoding

BLOCK = 1 << 21  # i-subsets materialized at once while counting
MERGE = 1 << 23  # distinct keys held before partial counts are merged
DENSE = 1 << 22  # most bins of a dense count: 4 bytes each, plus 8 while a batch is added in
#: most distinct itemsets of one size AA may hold counts of. The papers' data needs far fewer
#: (every AA run of docs/partition.md peaked below 200 MiB); five transactions sharing 2,000 items
#: hold 1.3 billion 3-itemsets, which grew to 1.9 GB in a minute in a QA pass
DISTINCT_BUDGET = MERGE
#: what a count past its budget would list, by the itemsets' size
DISTINCT = ("distinct {}-itemsets (at least: counting stopped there) for AA to find those below k (lower m, or cut "
            "smaller windows)")
SCAN = 4096  # failing itemsets checked for changed nodes at once
BATCH = 64  # candidate generalizations whose support is computed at once
#: most generalizations of one failing itemset DA may weigh, each costed in two int64s and sorted:
#: they are the product of the items' ancestor chains but for the one that changes nothing,
#: exponential in the itemset's size (17 transactions of 16 items at m = 16 ask for 43 million);
#: retail at m = m_max needs 12,287,999 (a 12-itemset at f = 5), the papers' data at most 196,607
#: (BMS-WebView-2, m = 161)
GENERALIZATION_BUDGET = 1 << 24
GRID_BLOCK = 1 << 16  # generalizations whose choices are made at once


def apriori_anonymize(leaves: LeafWindow, hierarchy: Hierarchy, k: int, m: int) -> Recoding:
    """A global recoding of ``leaves`` that is k^m-anonymous (needs >= k non-empty transactions)."""
    started = time.perf_counter()
    cut = GlobalCut(leaves, hierarchy)
    rounds = []
    for size in range(1, m + 1):
        done = 0
        while True:
            itemsets, supports, counted = cut.failing_itemsets(size, k)
            cut.subsets_counted += counted
            if not len(itemsets):
                break
            done += 1
            # the itemsets come ascending: a stable sort by support orders them by support, then
            # preorder, without a lexsort of every column (0.47 s of retail's 3.5 million pairs)
            order = np.argsort(supports, kind="stable")
            before = cut.image.copy()
            cut.fix_round(itemsets[order], k)
            if np.array_equal(before, cut.image):
                # each fix raises a node, so the cut climbs to the root in finitely many rounds;
                # a round that left it as it was would find the same itemsets for ever (QA
                # mutants of the merge and touched marks hung the window instead of failing it)
                raise RuntimeError(f"AA: a round fixing {len(itemsets)} failing {size}-itemsets changed no cut node")
        rounds.append(done)
        if cut.longest() <= size:
            break
    return Recoding(
        cut.image[leaves.nodes],
        {
            "aa_rounds_by_size": {str(i + 1): r for i, r in enumerate(rounds)},
            "aa_generalizations": cut.generalizations,
            "aa_subsets_counted": cut.subsets_counted,
            "aa_cut_nodes": int(len(np.unique(cut.image[leaves.nodes]))),
            "aa_seconds": time.perf_counter() - started,
        },
    )


class GlobalCut:
    """A hierarchy cut over a leaf window, with what AA needs to cost and test generalizations."""

    def __init__(self, leaves: LeafWindow, hierarchy: Hierarchy):
        self.hierarchy = hierarchy
        self.leaves = leaves
        self.owners = leaves.owners()
        n_nodes = len(hierarchy)
        self.image = np.arange(n_nodes, dtype=np.int64)  # the cut node above each node at/below the cut
        occurrences = np.bincount(leaves.nodes, minlength=n_nodes)
        below = np.zeros(n_nodes + 1, dtype=np.int64)
        np.cumsum(occurrences, out=below[1:])
        weight = below[hierarchy.end] - below[:-1]  # occurrences under each node
        self.cost = hierarchy.ncp_units * weight  # NCP(D) * |I| * N if the node were a cut node
        self.cut_cost = np.zeros(n_nodes, dtype=np.int64)  # what the cut under a node costs now
        order = np.argsort(leaves.nodes, kind="stable")
        self._rows = self.owners[order]
        self._row_ptr = below
        self._bitsets: dict[int, np.ndarray] = {}
        self._words = (len(leaves) + 63) // 64
        self.touched = np.zeros(n_nodes, dtype=bool)
        self.generalizations = 0
        self.subsets_counted = 0
        self._generalized: tuple[np.ndarray, np.ndarray] | None = None

    # -- the generalized data ---------------------------------------------------------------
    def generalized(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, nodes) of the transactions under the cut, nodes ascending per row, kept
        until the cut changes: a size's last round, which fixes nothing, the longest transaction
        and the next size's first round read the same (half of the 14 sorts over retail)."""
        if self._generalized is None:
            n_nodes = len(self.hierarchy)
            keys = sorted_unique(self.owners * n_nodes + self.image[self.leaves.nodes])
            lengths = np.bincount(keys // n_nodes, minlength=len(self.leaves))
            indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=indptr[1:])
            self._generalized = indptr, (keys % n_nodes).astype(np.int32)
        return self._generalized

    def longest(self) -> int:
        indptr, _ = self.generalized()
        return int(np.diff(indptr).max())

    def failing_itemsets(self, size: int, k: int) -> tuple[np.ndarray, np.ndarray, int]:
        """The ``size``-itemsets of the generalized data with support 1..k-1, rows ascending in
        lexicographic order, their supports, and how many subsets were enumerated."""
        indptr, nodes = self.generalized()
        if size == 1:
            support = np.bincount(nodes, minlength=len(self.hierarchy))
            failing = np.flatnonzero((support > 0) & (support < k))
            return failing[:, None], support[failing], len(nodes)
        keys, counts, counted = count_itemsets(indptr, nodes, size, len(self.hierarchy))
        rare = counts < k
        itemsets, supports = unpack(keys[rare], size, len(self.hierarchy)), counts[rare]
        if keys.dtype.kind == "V":
            # wide keys sort by their bytes, which little-endian columns do not order as numbers
            order = np.lexsort(itemsets.T[::-1])
            itemsets, supports = itemsets[order], supports[order]
        return itemsets, supports, counted

    # -- DA: the cheapest generalization of one failing itemset -----------------------------
    def fix_round(self, itemsets: np.ndarray, k: int) -> None:
        """Fix, in order, every itemset no earlier fix of this round has changed."""
        self.touched[:] = False
        position = 0
        while position < len(itemsets):
            chunk = itemsets[position : position + SCAN]
            clean = np.flatnonzero(~self.touched[chunk].any(axis=1))
            if not len(clean):
                position += len(chunk)
                continue
            position += int(clean[0])
            self.fix(itemsets[position], k)
            position += 1

    def fix(self, itemset: np.ndarray, k: int) -> None:
        """Generalize ``itemset`` the cheapest way that gives it support k (DA): the combinations
        of an ancestor-or-self per item, by the cost they add, then by how few items they change,
        then in grid order. Their costs are found a block at a time, and the choices remade for
        the few whose supports are tested, so memory grows with their count, not with it times
        the itemset's size (retail at m = m_max held 5.0 GB of them at once)."""
        chains = [self.ancestors(int(node)) for node in itemset]
        shape = tuple(len(chain) for chain in chains)
        candidates = math.prod(shape) - 1  # the first combination changes nothing
        # the count goes with the hierarchy's depth and the itemset's size, not with the window's
        within_budget(candidates, GENERALIZATION_BUDGET, k,
                      f"generalizations of a failing {len(itemset)}-itemset for AA to weigh (lower m, or give a "
                      "hierarchy of fewer levels)")
        extra = np.empty(candidates, dtype=np.int64)
        changes = np.empty(candidates, dtype=np.int64)
        for start in range(0, candidates, GRID_BLOCK):
            stop = min(start + GRID_BLOCK, candidates)
            chosen, merged = self.choices(chains, shape, np.arange(start + 1, stop + 1))
            extra[start:stop] = np.where(merged, 0, self.cost[chosen] - self.cut_cost[chosen]).sum(axis=1)
            changes[start:stop] = ((chosen != itemset) & ~merged).sum(axis=1)
        order = np.lexsort((changes, extra))  # stable: a tie stays in grid order
        del extra, changes  # the tries need only the order: let a large grid's costs go
        for start in range(0, len(order), BATCH):
            chosen, merged = self.choices(chains, shape, order[start : start + BATCH] + 1)
            hits = np.flatnonzero(self.support(chosen, merged) >= k)
            if len(hits):
                best = hits[0]
                for x in range(len(itemset)):
                    if not merged[best, x] and chosen[best, x] != itemset[x]:
                        self.generalize(int(chosen[best, x]))
                return
        raise AssertionError("generalizing to the root always reaches support k")

    def choices(self, chains: list[np.ndarray], shape: tuple[int, ...], grid_index: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """The node chosen per item by each combination (its index in the grid of the chains,
        C order), and which of them are merged: nested under, or equal to an earlier, chosen node."""
        hierarchy = self.hierarchy
        grid = np.unravel_index(grid_index, shape)
        size = len(chains)
        chosen = np.stack([chains[x][grid[x]] for x in range(size)], axis=1)
        merged = np.zeros(chosen.shape, dtype=bool)
        for x in range(size):
            for y in range(size):
                if x != y:
                    same = chosen[:, y] == chosen[:, x]
                    merged[:, x] |= (same & (y < x)) | (~same & hierarchy.is_ancestor_or_self(chosen[:, y], chosen[:, x]))
        return chosen, merged

    def generalize(self, node: int) -> None:
        """Make ``node`` a cut node: everything under it is released as it."""
        hierarchy = self.hierarchy
        extra = self.cost[node] - self.cut_cost[node]
        above = node
        while above >= 0:
            self.cut_cost[above] += extra
            above = int(hierarchy.parent[above])
        stop = int(hierarchy.end[node])
        self.image[node:stop] = node
        self.touched[node:stop] = True
        self.generalizations += 1
        self._generalized = None

    def ancestors(self, node: int) -> np.ndarray:
        """``node`` and its ancestors up to the root."""
        chain = [node]
        parent = self.hierarchy.parent
        while parent[chain[-1]] >= 0:
            chain.append(int(parent[chain[-1]]))
        return np.array(chain, dtype=np.int64)

    def support(self, itemsets: np.ndarray, merged: np.ndarray) -> np.ndarray:
        """Transactions holding every non-merged node of each row (all under the cut)."""
        ones = np.full(self._words, np.uint64(0xFFFFFFFFFFFFFFFF))
        # a batch's rows share few nodes (ancestors of the same items): gather their bitsets from
        # one table, where stacking them row by row and node by node was a fix's main cost
        nodes = np.unique(itemsets[~merged])
        table = np.stack([ones] + [self.bitset(node) for node in nodes.tolist()])
        index = np.searchsorted(nodes, itemsets) + 1
        index[merged] = 0
        return np.bitwise_count(np.bitwise_and.reduce(table[index], axis=1)).sum(axis=1, dtype=np.int64)

    def bitset(self, node: int) -> np.ndarray:
        """The transactions holding a leaf under ``node``, as a packed bitset (cached)."""
        cached = self._bitsets.get(node)
        if cached is None:
            rows = self._rows[self._row_ptr[node] : self._row_ptr[self.hierarchy.end[node]]]
            mark = np.zeros(self._words * 64, dtype=bool)
            mark[rows] = True
            cached = np.packbits(mark, bitorder="little").view(np.uint64)
            self._bitsets[node] = cached
        return cached


# -- counting i-itemsets ------------------------------------------------------------------
def combinations(n: int, r: int) -> np.ndarray:
    """All r-combinations of range(n) in lexicographic order, as an (C(n, r), r) array."""
    rows = np.zeros((1, 0), dtype=np.int32)
    for column in range(r):
        last = rows[:, -1] if column else np.full(len(rows), -1, dtype=np.int32)
        # the next value runs from last+1 to n-(r-column), leaving room for the remaining columns
        counts = np.maximum(n - (r - column) - last, 0)
        start = np.repeat(last + 1, counts)
        offset = np.arange(len(start)) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.column_stack([np.repeat(rows, counts, axis=0), (start + offset).astype(np.int32)])
    return rows


def combination_blocks(n: int, r: int):
    """The r-combinations of range(n) in blocks of at most about BLOCK rows."""
    if math.comb(n, r) <= BLOCK or r == 0:
        yield combinations(n, r)
        return
    for head in range(n - r + 1):
        for tail in combination_blocks(n - head - 1, r - 1):
            yield np.column_stack([np.full(len(tail), head, dtype=np.int32), tail + head + 1])


def _pack(rows: np.ndarray, n_nodes: int) -> np.ndarray:
    bits = max(1, (n_nodes - 1).bit_length())
    if bits * rows.shape[1] <= 63:
        key = np.zeros(len(rows), dtype=np.int64)
        for column in range(rows.shape[1]):
            key = (key << bits) | rows[:, column]
        return key
    return np.ascontiguousarray(rows, dtype=np.int64).view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


def unpack(keys: np.ndarray, size: int, n_nodes: int) -> np.ndarray:
    """The node rows of packed itemset keys."""
    if keys.dtype.kind == "V":
        return keys.view(np.int64).reshape(-1, size)
    bits = max(1, (n_nodes - 1).bit_length())
    rows = np.empty((len(keys), size), dtype=np.int64)
    for column in range(size - 1, -1, -1):
        rows[:, column] = keys & ((1 << bits) - 1)
        keys = keys >> bits
    return rows


def _merge(keys: list[np.ndarray], counts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of the blocks ``keys`` (each sorted and distinct), ascending, with their
    ``counts`` summed. The keys are sorted in place and each block's counts added at its keys'
    places, where np.unique's inverse held its argsort, the keys sorted and unsorted, the counts
    joined and a float weight per key beside them, seven times the keys' size (retail at
    k=10, m=4, f=5: 349 MiB of 481 at AA's peak)."""
    merged = np.concatenate(keys)
    merged.sort()
    distinct = np.ones(len(merged), dtype=bool)
    distinct[1:] = merged[1:] != merged[:-1]
    unique = merged[distinct]
    del merged, distinct
    total = np.zeros(len(unique), dtype=np.int64)
    for block, count in zip(keys, counts):
        total[np.searchsorted(unique, block)] += count  # a block's keys are distinct: no place twice
    return unique, total


def count_itemsets(indptr: np.ndarray, nodes: np.ndarray, size: int, n_nodes: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Every ``size``-itemset of the transactions (rows ascending) as sorted packed keys, with
    its support, and how many subsets were enumerated."""
    lengths = np.diff(indptr)
    if not (lengths >= size).any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
    present = np.flatnonzero(np.bincount(nodes, minlength=n_nodes))
    if math.comb(len(present), size) <= DENSE:
        return _count_dense(indptr, lengths, nodes, size, n_nodes, present)
    return _count_sorted(indptr, lengths, nodes, size, n_nodes)


def _count_sorted(
    indptr: np.ndarray, lengths: np.ndarray, nodes: np.ndarray, size: int, n_nodes: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`count_itemsets` by sorting the packed keys of each block and merging the counts."""
    # the longest transaction alone holds C(length, size) distinct itemsets (its nodes are
    # distinct): past the budget, known before any is counted (QA: 300 rows of chess at m=8
    # counted for 76 s before failing)
    within_budget(math.comb(int(lengths.max()), size), DISTINCT_BUDGET, 1, DISTINCT.format(size))
    keys: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    held = counted = 0
    for length in np.unique(lengths[lengths >= size]).tolist():
        rows = np.flatnonzero(lengths == length)
        block = nodes[indptr[rows][:, None] + np.arange(length)].astype(np.int64)
        for combos in combination_blocks(length, size):
            step = max(1, BLOCK // len(combos))
            for start in range(0, len(block), step):
                subsets = block[start : start + step][:, combos].reshape(-1, size)
                unique, count = np.unique(_pack(subsets, n_nodes), return_counts=True)
                keys.append(unique)
                counts.append(count)
                held += len(unique)
                counted += len(subsets)
                if held > MERGE:
                    merged = _merge(keys, counts)
                    keys, counts = [merged[0]], [merged[1]]
                    held = within_budget(len(merged[0]), DISTINCT_BUDGET, 1, DISTINCT.format(size))
    unique, count = _merge(keys, counts)
    within_budget(len(unique), DISTINCT_BUDGET, 1, DISTINCT.format(size))
    return unique, count, counted


def _count_dense(
    indptr: np.ndarray, lengths: np.ndarray, nodes: np.ndarray, size: int, n_nodes: int, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`count_itemsets` by one bin per ``size``-subset of the ``present`` nodes: a subset
    c_0 < ... < c_{size-1} of their positions goes to its colex rank sum_j C(c_j, j + 1), a
    bijection onto range(C(len(present), size)), so counting is np.bincount instead of a sort."""
    d = len(present)
    n_bins = math.comb(d, size)
    local = np.searchsorted(present, nodes)
    # terms[j, c] = C(c, j + 1), by Pascal's rule C(c, j + 1) = sum_{u < c} C(u, j). Column j of a
    # subset only holds c <= d - size + j (size - 1 - j larger nodes follow it); the entries
    # above are never read and stay 0, so every entry and every rank is below n_bins (int32).
    terms = np.zeros((size, d), dtype=np.int32)
    terms[0, : d - size + 1] = np.arange(d - size + 1)
    for j in range(1, size):
        top = d - size + j + 1
        terms[j, 1:top] = np.cumsum(terms[j - 1, : top - 1])
    # a support is at most the number of transactions
    total: NDArray[np.signedinteger[Any]] = np.zeros(
        n_bins, dtype=np.int32 if len(lengths) <= np.iinfo(np.int32).max else np.int64)
    pending: list[np.ndarray] = []
    held = counted = 0
    flush_at = max(BLOCK, n_bins)  # each np.bincount costs O(n_bins): spread it over as many subsets
    for length in np.unique(lengths[lengths >= size]).tolist():
        rows = np.flatnonzero(lengths == length)
        # each position's term in each column, so a subset's rank is a sum of size gathered terms
        block = terms[:, local[indptr[rows][:, None] + np.arange(length)]]
        for combos in combination_blocks(length, size):
            step = max(1, BLOCK // len(combos))
            for start in range(0, block.shape[1], step):
                part = block[:, start : start + step]
                rank = part[0][:, combos[:, 0]]
                for j in range(1, size):
                    rank += part[j][:, combos[:, j]]
                pending.append(rank.ravel())
                held += rank.size
                counted += rank.size
                if held >= flush_at:
                    total += np.bincount(np.concatenate(pending), minlength=n_bins)
                    pending, held = [], 0
    if pending:
        total += np.bincount(np.concatenate(pending), minlength=n_bins)
    ranks = np.flatnonzero(total)
    counts = total[ranks].astype(np.int64)
    # unrank, last column first: c_j is the largest c with C(c, j + 1) <= what is left of the rank
    positions = np.empty((len(ranks), size), dtype=np.int64)
    rest = ranks
    for j in range(size - 1, -1, -1):
        column = terms[j, : d - size + j + 1]
        positions[:, j] = np.searchsorted(column, rest, side="right") - 1
        rest = rest - column[positions[:, j]]
    keys = _pack(present[positions], n_nodes)
    order = np.argsort(keys)
    return keys[order], counts[order], counted
