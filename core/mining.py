"""Frequent itemsets for metrics, backed by pyfim (C. Borgelt's C implementations).

pyfim is the well-kept C miner the issue asks for: FP-growth, Eclat and Apriori in C with a
Python API, fast on both sparse (retail) and dense (connect) data.
"""

from __future__ import annotations

import itertools

import fim
import numpy as np

from .window import Window


def _mine(window: Window, min_support: int, max_size: int | None, min_size: int, items, target: str) -> list:
    ind = window.indices
    keep = None if items is None else np.asarray(items, dtype=bool)[ind]
    rows = []
    ptr = window.indptr.tolist()
    flat = ind.tolist()
    mask = None if keep is None else keep.tolist()
    for start, stop in zip(ptr, ptr[1:]):
        if mask is None:
            rows.append(flat[start:stop])
        else:
            rows.append([flat[i] for i in range(start, stop) if mask[i]])
    # pyfim 6.28 never reports an itemset made only of items present in every transaction
    # (they are perfect extensions of the empty set); one empty transaction changes no
    # absolute support and makes it report them.
    rows.append([])
    return fim.fpgrowth(
        rows,
        target=target,
        supp=-max(1, int(min_support)),
        zmin=min_size,
        zmax=-1 if max_size is None else max_size,
        report="a",
    )


def frequent_itemsets(
    window: Window,
    min_support: int,
    *,
    max_size: int | None = None,
    min_size: int = 1,
    items: np.ndarray | None = None,
    target: str = "s",
) -> dict[frozenset[int], int]:
    """Itemsets of item ids with support >= ``min_support`` (an absolute count).

    ``items`` (boolean mask over ids) restricts mining to those items; ``target`` is pyfim's:
    ``s`` all frequent, ``c`` closed, ``m`` maximal.
    """
    if len(window) == 0 or min_support > len(window):
        return {}
    result = _mine(window, min_support, max_size, min_size, items, target)
    return {frozenset(itemset): int(count) for itemset, count in result}


def frequent_itemset_arrays(
    window: Window,
    min_support: int,
    *,
    max_size: int | None = None,
    min_size: int = 1,
    items: np.ndarray | None = None,
    target: str = "s",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The itemsets of :func:`frequent_itemsets` as CSR arrays ``(indptr, ids, supports)``:
    itemset j is ``ids[indptr[j]:indptr[j+1]]`` (unordered). No Python set per itemset, for
    callers that compare millions of them."""
    if len(window) == 0 or min_support > len(window):
        return np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    result = _mine(window, min_support, max_size, min_size, items, target)
    lengths = np.fromiter((len(itemset) for itemset, _ in result), dtype=np.int64, count=len(result))
    indptr = np.zeros(len(result) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    ids = np.fromiter(itertools.chain.from_iterable(itemset for itemset, _ in result), dtype=np.int64, count=int(indptr[-1]))
    supports = np.fromiter((count for _, count in result), dtype=np.int64, count=len(result))
    return indptr, ids, supports
