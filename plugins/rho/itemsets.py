"""Sortable keys for itemsets held as rows of ascending item ids.

Counting, deduplicating and looking up itemsets is done on one key per row: a mixed-radix
int64 when ``size`` ids fit in 63 bits, otherwise the row's big-endian bytes (a ``void``
scalar, which numpy sorts bytewise, i.e. in numeric order).
"""

from __future__ import annotations

import numpy as np


def itemset_keys(rows: np.ndarray, n_items: int) -> np.ndarray:
    """One sortable key per row of ``rows`` (shape (k, size), ids in [0, n_items))."""
    rows = np.asarray(rows)
    size = rows.shape[1]
    bits = max(1, int(max(n_items, 2) - 1).bit_length())
    if bits * size <= 63:
        key = np.zeros(len(rows), dtype=np.int64)
        for column in range(size):
            key = (key << bits) | rows[:, column].astype(np.int64)
        return key
    raw = np.ascontiguousarray(rows, dtype=">u4")
    return raw.view(np.dtype((np.void, 4 * size))).ravel()


def decode_keys(keys: np.ndarray, size: int, n_items: int) -> np.ndarray:
    """The rows :func:`itemset_keys` made ``keys`` from (shape (len(keys), size), int64)."""
    bits = max(1, int(max(n_items, 2) - 1).bit_length())
    if keys.dtype.kind == "V":
        return keys.view(">u4").reshape(len(keys), size).astype(np.int64)
    rows = np.empty((len(keys), size), dtype=np.int64)
    mask = (1 << bits) - 1
    for column in range(size - 1, -1, -1):
        rows[:, column] = keys & mask
        keys = keys >> bits
    return rows


def lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Position of each key in ``sorted_keys``, or -1 where it is absent."""
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    where = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[where] == keys, where, -1)
