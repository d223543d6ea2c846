"""Is a generalized release a generalization of its original? (He & Naughton VLDB'09,
Definition 3: instances of items generalized along the item hierarchy, each replaced by one of its
ancestors-or-self.)

The core asks this of every model that declares ``Transformation.GENERALIZATION``, before the
model's own checker, as it asks "nothing added" of a suppression model: a model's checker could
otherwise pass a release holding labels its data never had. A released node covers the items of
its transaction whose preorder ids lie in its subtree's range, so coverage is counted by binary
searches over the released labels' ranges, without any anonymizer's bookkeeping and in the same
time however deep the hierarchy.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .arrays import as_ids
from .errors import counted
from .hierarchy import Hierarchy
from .model import Violation
from .window import Window

#: item occurrences (and released labels) searched at once: two int64 searches over every
#: occurrence of a million transactions set the peak of verifying them
SEARCH_BLOCK = 1 << 20


def generalization_violations(original: Window, release: Window, hierarchy: Hierarchy) -> Iterator[Violation]:
    """The release is a generalization of the original: every released label is a node that is
    an ancestor-or-self of an item of the same original transaction, and every original item is
    covered by exactly one released label of its transaction."""
    if len(original) != len(release):
        yield Violation("shape", f"release has {len(release)} transactions, original {len(original)}")
        return
    label_nodes = hierarchy.nodes(release.vocab.labels)
    released = label_nodes[release.indices]
    unknown = released < 0
    if unknown.any():
        first, count = int(np.flatnonzero(unknown)[0]), int(unknown.sum())
        yield Violation(
            "unknown-label",
            f"{counted(count, 'released label')} {'is not a node' if count == 1 else 'are not nodes'} of the hierarchy",
            (release.vocab.label(int(release.indices[first])),),
            int(release.owners()[first]),
        )
    # A released node u covers the preorder ids [u, end[u]) among its own transaction's items.
    # Keyed by transaction first, the labels covering an item are those opened at or before it
    # less those closed at or before it (an earlier transaction's open and close both), and a
    # label covers some item when one lies between its keys: no walk up each item's ancestors,
    # a pass per level of the hierarchy (20,000 transactions under a chain of 20,000 one-child
    # nodes: 16 s). Keys are made and sorted in place, a label's closing key from its opening one
    # and items' and labels' searches a block at a time: copies and int64 results over every
    # occurrence set the peak of verifying a million transactions.
    span = len(hierarchy) + 1
    opens = release.owners()[~unknown]
    opens *= span
    opens += released[~unknown]
    del released
    opens.sort()
    closes = _closes(opens, hierarchy, span)
    # node ids fit int32 (the hierarchy's subtree ends are int32)
    leaves = as_ids(hierarchy.nodes(original.vocab.labels), len(hierarchy))[original.indices]
    missing = leaves < 0
    if missing.any():
        count = int(missing.sum())
        yield Violation("unknown-item",
                        f"{counted(count, 'original item occurrence', ('is', 'are'))} not in the hierarchy")
    items = original.owners()
    items *= span
    items += leaves
    del leaves
    if missing.any():
        items = items[~missing]
    # sorted, the items keep their transactions in order: the first key uncovered or covered twice
    # is one of the first transaction holding such an item
    items.sort()
    foreign, first_foreign = _unused(items, opens, closes)
    closes.sort()
    (uncovered, first_uncovered), (doubled, first_doubled) = _covers(items, opens, closes)
    if uncovered:
        yield Violation(
            "uncovered-item",
            f"{counted(uncovered, 'original item occurrence', ('has', 'have'))} no released "
            f"label covering {'it' if uncovered == 1 else 'them'}",
            transaction=int(items[first_uncovered]) // span,
        )
    if doubled:
        yield Violation(
            "overlapping-labels",
            f"{counted(doubled, 'original item occurrence', ('is', 'are'))} covered by more "
            "than one released label",
            transaction=int(items[first_doubled]) // span,
        )
    if first_foreign is not None:
        row, node = divmod(int(opens[first_foreign]), span)
        # a transaction's labels are distinct nodes, so its key names one of them
        [label] = release.row(row)[label_nodes[release.row(row)] == node]
        yield Violation(
            "foreign-label",
            f"{counted(foreign, 'released label', ('covers', 'cover'))} no item of "
            f"{'its' if foreign == 1 else 'their'} original transaction",
            (release.vocab.label(int(label)),),
            row,
        )


def _closes(opens: np.ndarray, hierarchy: Hierarchy, span: int) -> np.ndarray:
    """Each released label's closing key (its transaction * span + its subtree's end) from its
    opening key."""
    node = opens % span
    closes = opens - node
    closes += hierarchy.end[node]
    return closes


def _unused(items: np.ndarray, opens: np.ndarray, closes: np.ndarray) -> tuple[int, int | None]:
    """How many labels cover no item (no key of ``items``, sorted, lies in [open, close)), and the
    first of them."""
    found: tuple[int, int | None] = (0, None)
    for start in range(0, len(opens), SEARCH_BLOCK):
        stop = start + SEARCH_BLOCK
        empty = np.searchsorted(items, closes[start:stop]) <= np.searchsorted(items, opens[start:stop])
        found = _tally(np.flatnonzero(empty), start, *found)
    return found


def _covers(items: np.ndarray, opens: np.ndarray, closes: np.ndarray
            ) -> tuple[tuple[int, int | None], tuple[int, int | None]]:
    """How many items no label covers, and how many more than one does, each with the first of
    them (``opens`` and ``closes`` both sorted)."""
    uncovered: tuple[int, int | None] = (0, None)
    doubled: tuple[int, int | None] = (0, None)
    for start in range(0, len(items), SEARCH_BLOCK):
        block = items[start : start + SEARCH_BLOCK]
        covers = np.searchsorted(opens, block, side="right")
        covers -= np.searchsorted(closes, block, side="right")
        uncovered = _tally(np.flatnonzero(covers == 0), start, *uncovered)
        doubled = _tally(np.flatnonzero(covers > 1), start, *doubled)
    return uncovered, doubled


def _tally(found: np.ndarray, start: int, count: int, first: int | None) -> tuple[int, int | None]:
    """``count`` and ``first`` of the positions found in earlier blocks, with a block's ``found``
    (positions in it, from ``start``)."""
    if first is None and len(found):
        first = start + int(found[0])
    return count + len(found), first
