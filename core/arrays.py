"""Small vectorized array helpers shared by the core and plugins."""

from __future__ import annotations

import numpy as np

# the most ids (0 .. 2^31 - 1) an array may number to hold them as int32: record ids, qid ids and
# positions in the large arrays of the checks and suppressors, at half the bytes of int64
INT32_IDS = int(np.iinfo(np.int32).max) + 1


def id_dtype(count: int) -> np.dtype:
    """The dtype of ids ``0 .. count - 1``: int32 where they fit, int64 where they do not."""
    return np.dtype(np.int32 if count <= INT32_IDS else np.int64)


def as_ids(values: np.ndarray, count: int) -> np.ndarray:
    """``values`` (each below ``count``) in ``id_dtype(count)``; not copied where they are already."""
    return values.astype(id_dtype(count), copy=False)


def concat_ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(start, stop)`` for each pair, without a Python loop."""
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(stops, dtype=np.int64) - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (a sort and a compare: faster than ``np.unique`` for the
    large integer key arrays of CSR bookkeeping)."""
    values = np.sort(values)
    keep = np.ones(len(values), dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    return values[keep]


def in_sorted(query: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Whether each value of ``query`` is in the sorted array ``pool`` (binary search)."""
    if len(pool) == 0:
        return np.zeros(len(query), dtype=bool)
    where = np.minimum(np.searchsorted(pool, query), len(pool) - 1)
    return pool[where] == query


def joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The arrays end to end; one array as it is, not copied (a level counted in one chunk would
    otherwise be held twice at its peak)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def row_groups(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """For each row of the CSR arrays, the number of its group of identical rows (the same entries in
    the same order), groups numbered 0, 1, ... in the order of their first rows. Rows of each length
    are compared as one array of opaque values, not one by one in Python."""
    lengths = np.diff(indptr)
    first_of = np.empty(len(lengths), dtype=np.int64)
    by_length = np.argsort(lengths, kind="stable")
    for rows in np.split(by_length, np.flatnonzero(np.diff(lengths[by_length])) + 1):
        if len(rows) == 0:
            continue
        length = int(lengths[rows[0]])
        if length == 0:
            first_of[rows] = rows[0]
            continue
        block = np.ascontiguousarray(indices[indptr[rows][:, None] + np.arange(length)])
        keys = block.view(np.dtype((np.void, block.dtype.itemsize * length))).ravel()
        _, first, which = np.unique(keys, return_index=True, return_inverse=True)
        first_of[rows] = rows[first[which.ravel()]]
    return np.unique(first_of, return_inverse=True)[1].ravel()
