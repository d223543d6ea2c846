"""The independent check of a sanitized release (Oliveira & Zaïane, TR 02-13, §2.5 and §4).

It recomputes everything from the two databases and shares nothing with the sanitizer: where
the sanitizer ANDs packed bitsets, the checker intersects each pattern's sorted transaction lists
(binary search, shortest list first), in the original for T[rp] and in the release for the
transactions that still hold rp. For every restrictive pattern rp at most ψ·|T[rp]| of its
sensitive transactions may still hold it. A pattern rp' containing rp needs no check of its own
against that bound: a transaction holding rp' holds rp, so at most ψ·|T[rp]| of T[rp] hold rp'
as well. Besides, a release may only remove items (nothing added, the same number of
transactions) and never empty a transaction that had items.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from setveil.core.arrays import in_sorted
from setveil.core.model import Violation
from setveil.core.verify import suppression_basics
from setveil.core.window import Window

from .patterns import RestrictivePatterns

TOLERANCE = 1e-9


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
    for number, pattern in enumerate(patterns.patterns):
        ids = vocab.ids(pattern)
        if (ids < 0).any():
            continue
        sensitive = _holders(original, ids)
        still = _holders(release, ids)
        holding = int(in_sorted(still, sensitive).sum())
        if holding > psi * len(sensitive) + TOLERANCE:
            yield Violation(
                "disclosed",
                f"restrictive pattern of line {patterns.lines[number]} is still held by {holding} of its "
                f"{len(sensitive)} sensitive transactions, more than psi={psi}",
                pattern,
            )


def _holders(window: Window, ids: np.ndarray) -> np.ndarray:
    """Sorted positions of the transactions holding every item of ``ids``: the items' sorted
    transaction lists intersected, shortest first."""
    indptr, rows = window.inverted
    lists = sorted((rows[indptr[i] : indptr[i + 1]] for i in ids.tolist()), key=len)
    found = lists[0]
    for other in lists[1:]:
        found = found[in_sorted(found, other)]
    return found

