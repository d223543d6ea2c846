"""Step 2 of the Item Grouping Algorithm (Oliveira & Zaïane, TR 02-13, §4.4): one victim per group
of restrictive patterns that share items.

Task 1: the patterns holding an item form a group; items held by exactly the same patterns give
the same group, whose shared itemset I is the intersection of its patterns, and whose class label
α is the item of I of least support. Task 2 orders the groups by size, then by label support
(descending), label text and pattern order. Task 3 compares the groups pairwise, starting with the
largest, in that order; each pattern two groups share leaves the group that is smaller *at that
comparison* (earlier comparisons may have shrunk it), and between groups of equal size the one
whose label has the lower support (3.2). Only pairs that share a pattern are visited: the others
change nothing. Every pattern ends in exactly one group. Task 4: a pattern's victim is the label
of its group. A pattern that shares no item with another is a group of one, labelled by its item
of least support, as in MinFIA.

Tasks 1, 2 and 4 and the list of pairs to compare are vectorized. Task 3 stays a loop over those
pairs, since each comparison depends on the sizes the earlier ones left; it runs on Python sets,
under a microsecond per pair. A set intersection and a ``min`` per group, a Python list of the
pairs and a numpy call per group for the victims had made the grouping take about as long as
Steps 3-4 in windows of 1000 with 1,000 patterns (QA, retail and T10I4D100K).
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from setveil.core.arrays import concat_ranges, in_sorted, sorted_unique

from .patterns import PatternTable

if TYPE_CHECKING:
    from .policies import ItemOrder

# (group, pattern, item) cells counted at once when finding the groups' shared items: mushroom's
# 167,663 patterns of up to 16 items would otherwise need some hundred MiB at a time
CELLS_PER_SLICE = 1 << 22


def groups(table: PatternTable) -> tuple[np.ndarray, np.ndarray]:
    """Task 1: the distinct groups as CSR, group g's ascending pattern rows being
    ``rows[indptr[g]:indptr[g+1]]``, ordered by size and then by their rows (lexicographically)."""
    valid = table.items >= 0
    owner = np.nonzero(valid)[0]
    item = table.items[valid]
    # the rows are taken in order, so each item's patterns stay ascending
    by_item = np.argsort(item, kind="stable")
    owner, item = owner[by_item], item[by_item]
    starts = np.flatnonzero(np.diff(item, prepend=-1))
    sizes = np.diff(starts, append=len(item))
    blocks = []
    for size in np.unique(sizes).tolist():
        block = owner[starts[sizes == size][:, None] + np.arange(size)]
        # big-endian bytes of equal length compare as the rows do, lexicographically
        text = np.ascontiguousarray(block.astype(">u8")).view(f"S{8 * size}").ravel()
        blocks.append(block[np.unique(text, return_index=True)[1]])
    counts = np.array([len(block) for block in blocks], dtype=np.int64)
    widths = np.array([block.shape[1] for block in blocks], dtype=np.int64)
    indptr = np.zeros(int(counts.sum()) + 1, dtype=np.int64)
    np.cumsum(np.repeat(widths, counts), out=indptr[1:])
    rows = np.concatenate([block.ravel() for block in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    return indptr, rows


def group_labels(table: PatternTable, items: ItemOrder) -> np.ndarray:
    """Tasks 1-4: the victim item of every pattern row."""
    indptr, rows = groups(table)
    count = len(indptr) - 1
    sizes = np.diff(indptr)
    labels = _labels(table, indptr, rows, items)
    support, rank = items.support[labels], items.label_rank[labels]
    # Task 2: groups of equal size, label support and label text keep the order of their rows
    order = np.lexsort((np.arange(count), rank, -support, -sizes))
    position = np.empty(count, dtype=np.int64)
    position[order] = np.arange(count)
    group = position[np.repeat(np.arange(count), sizes)]
    first, second = _pairs(rows, group, count)
    compared = sorted_unique(np.concatenate([first, second]))
    by_position = labels[order]
    victim = np.full(len(table), -1, dtype=np.int64)
    # a pattern of a group no pair holds is in that group alone
    alone = ~in_sorted(group, compared)
    victim[rows[alone]] = by_position[group[alone]]
    if not len(compared):
        return victim
    chosen = order[compared]
    held = rows[concat_ranges(indptr[chosen], indptr[chosen + 1])].tolist()
    bounds = np.concatenate([[0], np.cumsum(sizes[chosen])]).tolist()
    members = [set(held[lo:hi]) for lo, hi in zip(bounds, bounds[1:])]
    # of two groups of equal size, the one whose label has the lower support loses, of equal
    # support the later label text, and of the same label the one compared first (a)
    weak = (rank[chosen] - support[chosen] * len(items.label_rank)).tolist()
    for a, b in zip(np.searchsorted(compared, first).tolist(), np.searchsorted(compared, second).tolist()):
        common = members[a] & members[b]
        if common:
            size_a, size_b = len(members[a]), len(members[b])
            if size_a != size_b:
                members[a if size_a < size_b else b] -= common
            else:
                members[b if weak[b] > weak[a] else a] -= common
    kept = np.fromiter(chain.from_iterable(members), dtype=np.int64)
    victim[kept] = np.repeat(by_position[compared], np.fromiter(map(len, members), dtype=np.int64, count=len(members)))
    return victim


def _labels(table: PatternTable, indptr: np.ndarray, rows: np.ndarray, items: ItemOrder) -> np.ndarray:
    """Task 1's class label of every group: of the items all its patterns hold, the one of least
    support, ties to the first label text."""
    count = len(indptr) - 1
    sizes = np.diff(indptr)
    vocabulary = len(items.support)
    labels = np.empty(count, dtype=np.int64)
    width = table.items.shape[1]
    lo = 0
    while lo < count:
        hi = int(np.searchsorted(indptr, indptr[lo] + CELLS_PER_SLICE // max(width, 1), side="right")) - 1
        hi = min(max(hi, lo + 1), count)
        held = table.items[rows[indptr[lo] : indptr[hi]]]
        group = np.broadcast_to(np.repeat(np.arange(lo, hi), sizes[lo:hi])[:, None], held.shape)
        valid = held >= 0
        key, times = np.unique(group[valid] * vocabulary + held[valid], return_counts=True)
        group, item = np.divmod(key, vocabulary)
        shared = times == sizes[group]
        group, item = group[shared], item[shared]
        best = np.lexsort((items.label_rank[item], items.support[item], group))
        group, item = group[best], item[best]
        first = np.flatnonzero(np.diff(group, prepend=-1))
        labels[group[first]] = item[first]
        lo = hi
    return labels


def _pairs(rows: np.ndarray, group: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a, b), a < b, of groups (by position) that share a pattern, in the order of
    Task 3 (by a, then by b)."""
    by_pattern = np.lexsort((group, rows))
    rows, group = rows[by_pattern], group[by_pattern]
    starts = np.flatnonzero(np.diff(rows, prepend=-1))
    held = np.diff(starts, append=len(rows))
    keys = []
    for k in np.unique(held[held > 1]).tolist():
        block = group[starts[held == k][:, None] + np.arange(k)]
        a, b = np.triu_indices(k, 1)
        keys.append((block[:, a] * count + block[:, b]).ravel())
    if not keys:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.divmod(np.unique(np.concatenate(keys)), count)
