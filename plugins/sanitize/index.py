"""The transaction retrieval engine (Oliveira & Zaïane, TR 02-13, §3) and Step 1 of §4.

§3.2's inverted file (vocabulary with item frequencies, and per item the sorted ids of the
transactions holding it) is the window's own: ``Window.supports`` and ``Window.inverted``, built
in one vectorized pass over the transactions. §3.3 answers a restrictive pattern with a Boolean
AND of its items' transaction lists (the query tree of Fig. 4); here every list is a packed bitset
(``Window.bitsets``) and the AND of all patterns' lists is one vectorized reduction, chunked to
bound memory. The set bits are the pattern's sensitive transactions T[rp] (Definition 2), stored
as the second inverted index of §4 Step 1 (restrictive pattern -> sorted sensitive transaction
ids). The degree of conflict of a transaction (§4) is the number of restrictive patterns it holds.

That index can dwarf the data: the 167,663 frequent supersets of 10 patterns on mushroom (the
way §5.1 feeds R_P) hold 335 million (pattern, transaction) pairs. So it is built in two passes
over the bitsets: the first counts each pattern's set bits and sizes the index exactly, the
second writes the positions (4 bytes each) and counts the degrees of conflict in slices of
bounded size, so no intermediate is ever as large as the index itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from setveil.core.bitset import popcount, row_members
from setveil.core.window import Window

from .patterns import PatternTable

CHUNK_BYTES = 32 << 20
POSITIONS_PER_SLICE = 1 << 22


@dataclass(frozen=True)
class SensitiveIndex:
    """Pattern row -> sorted sensitive transaction positions (CSR), each transaction's degree of
    conflict, and the packed tidsets (rows of ``bitsets``) of the patterns' items (``items``,
    ascending ids), which the sanitizer keeps current as it removes items."""

    indptr: np.ndarray
    rows: np.ndarray
    conflict: np.ndarray
    items: np.ndarray
    bitsets: np.ndarray

    def of(self, pattern: int) -> np.ndarray:
        """T[rp]: the sorted positions of the transactions holding pattern row ``pattern``."""
        return self.rows[self.indptr[pattern] : self.indptr[pattern + 1]]

    @property
    def sizes(self) -> np.ndarray:
        """|T[rp]| for every pattern row."""
        return np.diff(self.indptr)

    def held(self) -> tuple[np.ndarray, SensitiveIndex]:
        """The pattern rows some transaction holds, and the index of those rows alone (a row
        holding nothing adds no position and no conflict, so only ``indptr`` changes)."""
        rows = np.flatnonzero(self.sizes > 0)
        indptr = np.concatenate([self.indptr[:1], self.indptr[rows + 1]])
        return rows, SensitiveIndex(indptr, self.rows, self.conflict, self.items, self.bitsets)


def sensitive_index(window: Window, table: PatternTable) -> SensitiveIndex:
    """Find the sensitive transactions of every pattern of ``table`` in ``window``."""
    n, count = len(window), len(table)
    used = np.unique(table.items[table.items >= 0])
    tidsets = window.bitsets(used)
    if n == 0 or count == 0:
        return SensitiveIndex(np.zeros(count + 1, np.int64), np.zeros(0, np.int64), np.zeros(n, np.int64), used, tidsets)
    words = tidsets.shape[1]
    # padding cells point at an all-ones row, the identity of AND
    bits = np.vstack([tidsets, np.full((1, words), np.iinfo(np.uint64).max, dtype=np.uint64)])
    operand = np.where(table.items >= 0, np.searchsorted(used, table.items), len(used))
    step = max(1, CHUNK_BYTES // (8 * words))
    indptr = np.zeros(count + 1, dtype=np.int64)
    for start in range(0, count, step):
        acc = conjunction(bits, operand[start : start + step])
        indptr[start + 1 : start + 1 + len(acc)] = popcount(acc)
    np.cumsum(indptr, out=indptr)
    rows = np.empty(int(indptr[-1]), dtype=np.int32 if n <= np.iinfo(np.int32).max else np.int64)
    conflict = np.zeros(n, dtype=np.int64)
    lo = 0
    while lo < count:
        hi = int(np.searchsorted(indptr, indptr[lo] + POSITIONS_PER_SLICE, side="right")) - 1
        hi = min(max(hi, lo + 1), lo + step, count)
        positions = row_members(conjunction(bits, operand[lo:hi]))
        rows[indptr[lo] : indptr[hi]] = positions
        conflict += np.bincount(positions, minlength=n)
        lo = hi
    return SensitiveIndex(indptr, rows, conflict, used, tidsets)


def conjunction(bits: np.ndarray, operand: np.ndarray) -> np.ndarray:
    """Per row of ``operand`` (indices into ``bits``), the AND of those bitset rows."""
    acc = bits[operand[:, 0]]
    for column in range(1, operand.shape[1]):
        acc &= bits[operand[:, column]]
    return acc

