"""The independent check of a sanitized release (Oliveira & Zaïane, TR 02-13, §2.5 and §4).

It recomputes everything from the two databases and shares nothing with the sanitizer: where
the sanitizer ANDs packed bitsets, the checker intersects sorted transaction lists (binary
search), in the original for T[rp] and in the release for the transactions that still hold rp.
The patterns are visited as the paths of a prefix tree over their items ranked rarest first, so
each intersection starts from the shortest list and patterns that share a prefix (the frequent
supersets of §5.1's R_P share many) share its intersections.

For every restrictive pattern rp at most ψ·|T[rp]| of its sensitive transactions may still hold
it. A pattern rp' containing rp needs no check of its own
against that bound: a transaction holding rp' holds rp, so at most ψ·|T[rp]| of T[rp] hold rp'
as well. Besides, a release may only remove items (nothing added, the same number of
transactions) and never empty a transaction that had items.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from setveil.core.arrays import in_sorted
from setveil.core.model import Violation
from setveil.core.share import Share
from setveil.core.verify import suppression_basics
from setveil.core.window import Window

from .patterns import RestrictivePatterns


def sanitize_violations(
    original: Window, release: Window, patterns: RestrictivePatterns, psi: float
) -> Iterator[Violation]:
    aligned = yield from suppression_basics(original, release)
    if aligned is None:
        return
    original, release = aligned
    yield from _not_emptied(original, release)
    yield from _bound(original, release, patterns, psi)


def _not_emptied(original: Window, release: Window) -> Iterator[Violation]:
    emptied = (original.lengths > 0) & (release.lengths == 0)
    if emptied.any():
        yield Violation(
            "emptied",
            f"{int(emptied.sum())} transaction(s) with items were released empty",
            transaction=int(np.flatnonzero(emptied)[0]),
        )


def _bound(original: Window, release: Window, patterns: RestrictivePatterns, psi: float) -> Iterator[Violation]:
    vocab = original.vocab
    rank = np.empty(len(vocab), dtype=np.int64)
    rank[np.lexsort((np.arange(len(vocab)), original.supports))] = np.arange(len(vocab))
    paths = []
    for number, pattern in enumerate(patterns.patterns):
        ids = vocab.ids(pattern)
        if (ids >= 0).all():
            paths.append((tuple(sorted(rank[ids].tolist())), number))
    by_rank = np.argsort(rank)
    before, after = _Prefixes(original.inverted), _Prefixes(release.inverted)
    found = []
    share = Share.of(psi)  # the decimal typed: ψ = 0.3 allows 3 of 10 exactly
    for path, number in sorted(paths):
        items = by_rank[list(path)]
        sensitive, still = before.holders(items), after.holders(items)
        holding = int(in_sorted(still, sensitive).sum())
        if share.exceeded(holding, len(sensitive)):
            found.append((number, holding, len(sensitive)))
    for number, holding, n_sensitive in sorted(found):
        yield Violation(
            "disclosed",
            f"restrictive pattern of line {patterns.lines[number]} is still held by {holding} of its "
            f"{n_sensitive} sensitive transactions, more than psi={psi}",
            patterns.patterns[number],
        )


class _Prefixes:
    """Sorted positions of the transactions holding an itemset, for itemsets asked in prefix-tree
    order: the holders of each prefix of the last itemset are kept, so the next one only
    intersects the items after the prefix they share."""

    def __init__(self, inverted: tuple[np.ndarray, np.ndarray]):
        self.indptr, self.rows = inverted
        self.items: list[int] = []
        self.found: list[np.ndarray] = []

    def holders(self, items: np.ndarray) -> np.ndarray:
        items = items.tolist()
        shared = 0
        while shared < min(len(items), len(self.items)) and items[shared] == self.items[shared]:
            shared += 1
        del self.items[shared:], self.found[shared:]
        for item in items[shared:]:
            listed = self.rows[self.indptr[item] : self.indptr[item + 1]]
            if self.found:
                listed = self.found[-1][in_sorted(self.found[-1], listed)]
            self.items.append(item)
            self.found.append(listed)
        return self.found[-1]
