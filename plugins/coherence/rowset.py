"""Membership tests for sets of equal-length itemsets, vectorized with numpy.

Itemsets are rows of item positions; rows are encoded as big-endian bytes so that byte order
is numeric order and a sorted ``void`` array answers membership by binary search.
"""

from __future__ import annotations

import numpy as np


def _as_void(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows, dtype=">u4")
    return rows.view(np.dtype((np.void, 4 * rows.shape[1]))).ravel()


class RowSet:
    def __init__(self, rows: np.ndarray):
        self._keys = np.sort(_as_void(rows)) if len(rows) else None

    def contains(self, rows: np.ndarray) -> np.ndarray:
        if self._keys is None or len(rows) == 0:
            return np.zeros(len(rows), dtype=bool)
        query = _as_void(rows)
        where = np.minimum(np.searchsorted(self._keys, query), len(self._keys) - 1)
        return self._keys[where] == query
