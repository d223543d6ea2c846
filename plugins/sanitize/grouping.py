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
    for rows in groups(table):
        shared = set(table.row(rows[0]).tolist())
        for row in rows[1:]:
            shared.intersection_update(table.row(row).tolist())
        label = min(shared, key=lambda i: (support[i], rank[i]))
        ranked.append(((-len(rows), -int(support[label]), int(rank[label]), rows), label))
    ranked.sort()
    members = [set(key[3]) for key, _ in ranked]
    labels = [label for _, label in ranked]
    holders: dict[int, list[int]] = {}
    for position, group in enumerate(members):
        for row in group:
            holders.setdefault(row, []).append(position)
    # Only groups that share a pattern have anything to compare; in the order of Task 3.
    pairs = sorted({(a, b) for held in holders.values() for i, a in enumerate(held) for b in held[i + 1:]})
    for a, b in pairs:
        common = members[a] & members[b]
        if not common:
            continue
        if len(members[a]) != len(members[b]):
            loser = a if len(members[a]) < len(members[b]) else b
        else:  # the label of lower support loses; of equal support, the later label text
            loser = max(a, b, key=lambda g: (-int(support[labels[g]]), int(rank[labels[g]])))
        members[loser] -= common
    victim = np.full(len(table), -1, dtype=np.int64)
    for group, label in zip(members, labels):
        victim[list(group)] = label
    return victim
