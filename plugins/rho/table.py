"""The table T a partial suppressor works on (Jia et al. §3, Algorithms 1-2), mutable in place.

The transactions stay in the window's CSR arrays; a deletion only clears an ``alive`` flag, so
T0 (the original) and T (the current table) share storage and the release is the alive mask.
Beside it the table keeps what every step of the algorithm reads: current item supports
(``sup_T(e)`` of §2.2), record lengths and sensitive counts, and one packed tidset bitset per
item, so "does record r still hold item x" is one word lookup.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from setveil.core.arrays import concat_ranges


class Table:
    """``n`` records over ``n_items`` local item ids; ``sensitive`` is a mask over those ids."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n_items: int, sensitive: np.ndarray):
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.indices = np.asarray(indices, dtype=np.int64)
        self.n = len(self.indptr) - 1
        self.n_items = n_items
        self.sensitive = np.asarray(sensitive, dtype=bool)
        lengths = np.diff(self.indptr)
        self.owner = np.repeat(np.arange(self.n, dtype=np.int64), lengths)
        self.alive = np.ones(len(self.indices), dtype=bool)
        self.sup0 = np.bincount(self.indices, minlength=n_items).astype(np.int64)
        self.sup = self.sup0.copy()
        self.length = lengths.astype(np.int64)
        is_sens = self.sensitive[self.indices]
        self.nsens = np.bincount(self.owner[is_sens], minlength=self.n).astype(np.int64)
        self.total0 = len(self.indices)
        self.total = self.total0
        # Inverted index of T0: CSR order is by record, so a stable sort by item keeps each
        # item's records ascending; inv_occ maps back to the occurrence in ``indices``.
        order = np.argsort(self.indices, kind="stable")
        self.inv_ptr = np.zeros(n_items + 1, dtype=np.int64)
        np.cumsum(self.sup0, out=self.inv_ptr[1:])
        self.inv_rows = self.owner[order]
        self.inv_occ = order
        self.row_bytes = (self.n + 7) // 8
        self.bits = np.zeros(n_items * self.row_bytes, dtype=np.uint8)
        # (item, record) pairs are distinct, so adding bits never carries: add.at is an OR
        np.add.at(self.bits, self.indices * self.row_bytes + (self.owner >> 3), _bit(self.owner))
        # the same bytes as Python ints, for the scalar one-record steps
        self.bit_bytes = self.bits.data
        # The sensitive occurrences of each record, for counting consequents over a cover.
        sens_occ = np.flatnonzero(is_sens)
        self.sens_ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.nsens, out=self.sens_ptr[1:])
        self.sens_occ = sens_occ
        self.deleted = 0

    # -- reading -------------------------------------------------------------------------
    def has(self, items: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Element-wise: does record ``rows[i]`` currently hold item ``items[i]``?"""
        rows = np.asarray(rows, dtype=np.int64)
        byte = self.bits[np.asarray(items, dtype=np.int64) * self.row_bytes + (rows >> 3)]
        return (byte & _bit(rows)) != 0

    def tidlist(self, item: int) -> np.ndarray:
        """Records that currently hold ``item``, ascending."""
        rows = self.inv_rows[self.inv_ptr[item] : self.inv_ptr[item + 1]]
        return rows[self.alive[self.inv_occ[self.inv_ptr[item] : self.inv_ptr[item + 1]]]]

    def holding(self, itemset: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The records of ``rows`` that currently hold every item of ``itemset``."""
        if len(itemset) == 0 or len(rows) == 0:
            return rows
        byte = self.bits[itemset[:, None] * self.row_bytes + (rows >> 3)[None, :]]
        return rows[((byte & _bit(rows)[None, :]) != 0).all(axis=0)]

    def holds_all(self, itemset: list[int], row: int) -> bool:
        """Does record ``row`` currently hold every item of ``itemset``? (scalar steps)"""
        byte, mask, width, bit_bytes = row >> 3, 1 << (row & 7), self.row_bytes, self.bit_bytes
        for item in itemset:
            if not bit_bytes[item * width + byte] & mask:
                return False
        return True

    def sensitive_items(self, row: int, exclude: list[int]) -> np.ndarray:
        """The sensitive items record ``row`` currently holds, outside ``exclude``."""
        occ = self.sens_occ[self.sens_ptr[row] : self.sens_ptr[row + 1]]
        items = self.indices[occ[self.alive[occ]]]
        for item in exclude:
            items = items[items != item]
        return items

    def sensitive_counts(self, rows: np.ndarray, exclude: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sensitive items held by the records ``rows`` (outside ``exclude``) and how many of the
        records hold each: the supports sup_T(q ∪ {e}) when ``rows`` is the cover of q."""
        occ = self.sens_occ[concat_ranges(self.sens_ptr[rows], self.sens_ptr[rows + 1])]
        items = self.indices[occ[self.alive[occ]]]
        for item in exclude.tolist():
            items = items[items != item]
        if len(items) == 0:
            return items, items
        items.sort()
        first = np.flatnonzero(np.concatenate(([True], items[1:] != items[:-1])))
        return items[first], np.diff(np.append(first, len(items)))

    def current_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR (indptr, items, occurrence ids) of the current contents of ``rows``."""
        lengths = self.indptr[rows + 1] - self.indptr[rows]
        occ = concat_ranges(self.indptr[rows], self.indptr[rows + 1])
        alive = self.alive[occ]
        segment = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(np.bincount(segment[alive], minlength=len(rows)), out=ptr[1:])
        occ = occ[alive]
        return ptr, self.indices[occ], occ

    # -- writing -------------------------------------------------------------------------
    def delete(self, item: int, rows: np.ndarray) -> None:
        """Remove ``item`` from each of the (distinct) records ``rows``, which all hold it."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == 0:
            return
        if len(rows) == 1:
            self.delete_one(item, int(rows[0]))
            return
        if not self.has(np.full(len(rows), item), rows).all():
            raise NotHeld(item)
        lo, hi = self.inv_ptr[item], self.inv_ptr[item + 1]
        occ = self.inv_occ[lo + np.searchsorted(self.inv_rows[lo:hi], rows)]
        self.alive[occ] = False
        np.bitwise_and.at(self.bits, item * self.row_bytes + (rows >> 3), ~_bit(rows))
        k = len(rows)
        self.sup[item] -= k
        self.length[rows] -= 1
        if self.sensitive[item]:
            self.nsens[rows] -= 1
        self.total -= k
        self.deleted += k

    def delete_one(self, item: int, row: int) -> None:
        """:meth:`delete` from the one record ``row``, in scalar steps: most deletions of
        SANITIZEBUFFER are of one item from one record, where array set-up would dominate."""
        if not self.holds_all([item], row):
            raise NotHeld(item)
        lo, hi = int(self.inv_ptr[item]), int(self.inv_ptr[item + 1])
        self.alive[self.inv_occ[bisect_left(self.inv_rows, row, lo, hi)]] = False
        where = item * self.row_bytes + (row >> 3)
        self.bit_bytes[where] &= ~(1 << (row & 7)) & 0xFF
        self.sup[item] -= 1
        self.length[row] -= 1
        if self.sensitive[item]:
            self.nsens[row] -= 1
        self.total -= 1
        self.deleted += 1


def _bit(rows: np.ndarray) -> np.ndarray:
    """The mask of record r's bit inside its byte."""
    return np.left_shift(np.uint8(1), (rows & 7).astype(np.uint8))


class NotHeld(RuntimeError):
    """A deletion of an item from a record that does not hold it. The suppressor deletes only
    from the records its cover says hold the rule; a cover out of step with the table would
    corrupt the supports and could loop for ever (QA: mutants of Algorithm 2 hung), so the window
    fails closed instead."""

    def __init__(self, item: int):
        super().__init__(f"the suppressor deleted item id {item} from a record that does not hold it")
