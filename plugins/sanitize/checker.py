"""The independent check of a sanitized release (Oliveira & Zaïane, TR 02-13, §2.5 and §4).

It recomputes everything from the two databases with sparse matrix products, sharing nothing
with the sanitizer's bitset index: with X the original and Y the release as 0/1 matrices and Q
the item-by-pattern incidence matrix, (XQ)[t, rp] = |rp| says that t is a sensitive transaction
of rp, and (YQ)[t, rp] = |rp| that its release still holds rp. For every restrictive pattern rp
at most ψ·|T[rp]| of its sensitive transactions may still hold it. A pattern rp' containing rp
needs no check of its own against that bound: a transaction holding rp' holds rp, so at most
ψ·|T[rp]| of T[rp] hold rp' as well. Besides, a release may only remove items (nothing added, the
same number of transactions) and never empty a transaction that had items.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import sparse

from setveil.core.model import Violation
from setveil.core.window import Window

from .patterns import RestrictivePatterns

ROWS_PER_CHUNK = 8192
TOLERANCE = 1e-9


def sanitize_violations(
    original: Window, release: Window, patterns: RestrictivePatterns, psi: float
) -> Iterator[Violation]:
    if len(original) != len(release):
        yield Violation("shape", f"release has {len(release)} transactions, original {len(original)}")
        return
    vocab = original.vocab
    if release.vocab is not vocab:
        vocab = vocab.copy()
        original = Window(vocab, original.indptr, original.indices, original.tids)
        release = release.relabel(vocab)
    yield from _only_removed(original, release)
    yield from _bound(original, release, patterns, psi)


def _only_removed(original: Window, release: Window) -> Iterator[Violation]:
    width = len(original.vocab)
    before = original.owners() * width + original.indices
    after = release.owners() * width + release.indices
    added = ~np.isin(after, before)
    if added.any():
        first = int(np.flatnonzero(added)[0])
        yield Violation(
            "added-item",
            f"{int(added.sum())} released occurrence(s) are not in the original transaction",
            (release.vocab.label(int(release.indices[first])),),
            int(release.owners()[first]),
        )
    emptied = (original.lengths > 0) & (release.lengths == 0)
    if emptied.any():
        yield Violation(
            "emptied",
            f"{int(emptied.sum())} transaction(s) with items were released empty",
            transaction=int(np.flatnonzero(emptied)[0]),
        )


def _bound(original: Window, release: Window, patterns: RestrictivePatterns, psi: float) -> Iterator[Violation]:
    vocab = original.vocab
    cols, rows, sizes = [], [], []
    for number, pattern in enumerate(patterns.patterns):
        ids = vocab.ids(pattern)
        if (ids < 0).any():
            continue
        rows.extend(ids.tolist())
        cols.extend([len(sizes)] * len(ids))
        sizes.append((number, len(ids)))
    if not sizes:
        return
    incidence = sparse.csr_array(
        (np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(len(vocab), len(sizes))
    )
    length = np.array([size for _, size in sizes], dtype=np.int64)
    sensitive = np.zeros(len(sizes), dtype=np.int64)
    holding = np.zeros(len(sizes), dtype=np.int64)
    x, y = original.matrix(np.int32), release.matrix(np.int32)
    for start in range(0, len(original), ROWS_PER_CHUNK):
        stop = min(start + ROWS_PER_CHUNK, len(original))
        held = _full(x[start:stop] @ incidence, length)
        still = _full(y[start:stop] @ incidence, length)
        sensitive += np.bincount(held.col, minlength=len(sizes))
        both = np.isin(_cells(still, len(sizes)), _cells(held, len(sizes)))
        holding += np.bincount(still.col[both], minlength=len(sizes))
    over = np.flatnonzero(holding > psi * sensitive + TOLERANCE)
    for column in over.tolist():
        number = sizes[column][0]
        yield Violation(
            "disclosed",
            f"restrictive pattern of line {patterns.lines[number]} is still held by {holding[column]} of its "
            f"{sensitive[column]} sensitive transactions, more than psi={psi}",
            patterns.patterns[number],
        )


def _full(product: sparse.csr_array, length: np.ndarray) -> sparse.coo_array:
    """The (transaction, pattern) cells of ``product`` where the whole pattern is present."""
    coo = sparse.coo_array(product)
    keep = coo.data == length[coo.col]
    return sparse.coo_array((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=coo.shape)


def _cells(coo: sparse.coo_array, width: int) -> np.ndarray:
    return coo.row.astype(np.int64) * width + coo.col
