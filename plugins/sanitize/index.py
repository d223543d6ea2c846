"""The transaction retrieval engine (Oliveira & Zaïane, TR 02-13, §3) and Step 1 of §4.

§3.2's inverted file (vocabulary with item frequencies, and per item the sorted ids of the
transactions holding it) is the window's own: ``Window.supports`` and ``Window.inverted``, built
in one vectorized pass over the transactions. §3.3 answers a restrictive pattern with a Boolean
AND of its items' transaction lists (the query tree of Fig. 4); here every list is a packed bitset
(``Window.bitsets``) and the AND of all patterns' lists is one vectorized reduction, chunked to
bound memory. The set bits are the pattern's sensitive transactions T[rp] (Definition 2), stored
as the second inverted index of §4 Step 1 (restrictive pattern -> sorted sensitive transaction
ids). The degree of conflict of a transaction (§4) is the number of restrictive patterns it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from setveil.core.window import Window

from .patterns import PatternTable

CHUNK_BYTES = 32 << 20


@dataclass(frozen=True)
class SensitiveIndex:
    """Pattern row -> sorted sensitive transaction positions (CSR), and each transaction's
    degree of conflict."""

    indptr: np.ndarray
    rows: np.ndarray
    conflict: np.ndarray

    def of(self, pattern: int) -> np.ndarray:
        """T[rp]: the sorted positions of the transactions holding pattern row ``pattern``."""
        return self.rows[self.indptr[pattern] : self.indptr[pattern + 1]]

    @property
    def sizes(self) -> np.ndarray:
        """|T[rp]| for every pattern row."""
        return np.diff(self.indptr)


def sensitive_index(window: Window, table: PatternTable) -> SensitiveIndex:
    """Find the sensitive transactions of every pattern of ``table`` in ``window``."""
    n, count = len(window), len(table)
    if n == 0 or count == 0:
        return SensitiveIndex(np.zeros(count + 1, np.int64), np.zeros(0, np.int64), np.zeros(n, np.int64))
    used = np.unique(table.items[table.items >= 0])
    bits = window.bitsets(used)
    words = bits.shape[1]
    # padding cells point at an all-ones row, the identity of AND
    bits = np.vstack([bits, np.full((1, words), np.iinfo(np.uint64).max, dtype=np.uint64)])
    operand = np.where(table.items >= 0, np.searchsorted(used, table.items), len(used))
    step = max(1, CHUNK_BYTES // (8 * words))
    owners, positions = [], []
    for start in range(0, count, step):
        part = operand[start : start + step]
        acc = bits[part[:, 0]]
        for column in range(1, part.shape[1]):
            acc &= bits[part[:, column]]
        owner, word = np.nonzero(acc)
        set_bits = np.unpackbits(acc[owner, word].astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        hit, bit = np.nonzero(set_bits)
        owners.append(owner[hit] + start)
        positions.append(word[hit] * 64 + bit)
    owner = np.concatenate(owners)
    rows = np.concatenate(positions).astype(np.int64)
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=count), out=indptr[1:])
    return SensitiveIndex(indptr, rows, np.bincount(rows, minlength=n).astype(np.int64))
