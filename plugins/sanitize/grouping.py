"""Step 2 of the Item Grouping Algorithm (Oliveira & Zaïane, TR 02-13, §4.4): one victim per group
of restrictive patterns that share items.

Task 1: the patterns holding an item form a group; items held by exactly the same patterns give
the same group, whose shared itemset I is the intersection of its patterns, and whose class label
α is the item of I of least support. Task 2 orders the groups by size. Task 3 removes each pattern
from all groups but one, favouring the larger group and, between groups of equal size, the one
whose label has the higher support (the text: "favouring larger groups or groups with a class
label with higher support"). As in the proof of Theorem 3 (b), this is one scan over the groups
sorted by (size descending, label support descending): each pattern stays in the first group that
holds it. Sizes are those before overlaps are removed. Remaining ties go to the label first in
text order, then to the group of the earlier patterns. Task 4: a pattern's victim is the label of
its group. A pattern that shares no item with another is a group of one, labelled by its item of
least support, as in MinFIA.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .patterns import PatternTable

if TYPE_CHECKING:
    from .policies import ItemOrder


def groups(table: PatternTable) -> list[tuple[int, ...]]:
    """Task 1: the distinct groups, each the ascending pattern rows that hold some item."""
    valid = table.items >= 0
    if not valid.any():
        return []
    owner = np.nonzero(valid)[0]
    item = table.items[valid]
    order = np.lexsort((owner, item))
    owner, item = owner[order], item[order]
    cuts = np.flatnonzero(np.diff(item)) + 1
    return list(dict.fromkeys(tuple(members.tolist()) for members in np.split(owner, cuts)))


def group_labels(table: PatternTable, items: ItemOrder) -> np.ndarray:
    """Tasks 1-4: the victim item of every pattern row."""
    support, rank = items.support, items.label_rank
    ranked = []
    for members in groups(table):
        shared = set(table.row(members[0]).tolist())
        for row in members[1:]:
            shared.intersection_update(table.row(row).tolist())
        label = min(shared, key=lambda i: (support[i], rank[i]))
        ranked.append(((-len(members), -int(support[label]), int(rank[label]), members), label))
    ranked.sort()
    victim = np.full(len(table), -1, dtype=np.int64)
    for (_, _, _, members), label in ranked:
        for row in members:
            if victim[row] < 0:
                victim[row] = label
    return victim
