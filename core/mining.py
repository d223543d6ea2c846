"""Frequent itemsets for metrics, backed by pyfim (C. Borgelt's C implementations).

pyfim is the well-kept C miner the issue asks for: FP-growth, Eclat and Apriori in C with a
Python API, fast on both sparse (retail) and dense (connect) data.
"""

from __future__ import annotations

import fim
import numpy as np

from .window import Window


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
    min_support = max(1, int(min_support))
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
    result = fim.fpgrowth(
        rows,
        target=target,
        supp=-min_support,
        zmin=min_size,
        zmax=0 if max_size is None else max_size,
        report="a",
    )
    return {frozenset(itemset): int(count) for itemset, count in result}
