"""The effectiveness measures of Oliveira & Zaïane, TR 02-13, §5 (Fig. 1B, Figs. 6 and 11).

With P the frequent patterns of the original D and P' those of the release D', both mined at
support σ (pyfim), and R_P the patterns of P that contain a restrictive pattern (§4: "any pattern
that contains a restrictive pattern is also a restrictive pattern"):

- hiding failure HF = #R_P(D') / #R_P(D) (undefined, reported as null, when #R_P(D) = 0);
- misses cost MC = share of the legitimate patterns ~R_P(D) that are not frequent in D'; the
  paper writes (#~R_P(D) - #~R_P(D'))/#~R_P(D), which is the same when D' has no artifacts;
- artifactual patterns AP = (|P'| - |P ∩ P'|) / |P'|;
- dissimilarity = Σ_i |f_D(i) - f_D'(i)| / Σ_i f_D(i) over the item histograms (the paper omits
  the absolute value, which changes nothing when items are only removed; it then equals the share
  of item occurrences removed);
- size loss: the share of the database's size lost (Fig. 11), measured in bytes of its FIMI text.

Itemsets are compared as bitmasks over the frequent items (one row of uint64 words per itemset,
sorted byte keys for set membership), so no Python object is built per pattern.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from setveil.core.mining import ITEMSET_BUDGET, frequent_itemset_arrays
from setveil.core.window import Window

from .patterns import RestrictivePatterns


class PatternMetrics:
    """Mines the original once; :meth:`evaluate` then measures any number of its releases, for any
    restrictive patterns."""

    def __init__(self, original: Window, sigma: float | None):
        self.original = original
        self.sigma = sigma
        self.bytes = fimi_bytes(original)
        if sigma is None:
            return
        self.min_support = max(1, math.ceil(sigma * len(original) - 1e-9))
        alone = _frequent(original, self.min_support)
        # counted a few sizes at a time: dense data or long records can hold more itemsets than
        # could be counted in the time a sanitization takes, and the report is refused early
        indptr, ids, _ = frequent_itemset_arrays(original, self.min_support, items=alone, budget=ITEMSET_BUDGET,
                                                 by_size=True)
        self.position = np.full(len(original.vocab), -1, dtype=np.int64)
        frequent = np.unique(ids)
        self.position[frequent] = np.arange(len(frequent))
        self.n_items = len(frequent)
        self.frequent = len(indptr) - 1
        self.words = max(1, -(-self.n_items // 64))
        self.before = _encode(indptr, ids, self.position, self.words)

    def evaluate(self, release: Window, patterns: RestrictivePatterns) -> dict[str, Any]:
        if release.vocab is not self.original.vocab:
            release = release.relabel(self.original.vocab.copy())
        out: dict[str, Any] = {
            "dissimilarity": dissimilarity(self.original, release),
            "size_loss": 0.0 if self.bytes == 0 else 1.0 - fimi_bytes(release) / self.bytes,
        }
        if self.sigma is not None:
            out.update(self._patterns(release, patterns))
        return out

    def _patterns(self, release: Window, patterns: RestrictivePatterns) -> dict[str, Any]:
        indptr, ids, _ = frequent_itemset_arrays(release, self.min_support, items=_frequent(release, self.min_support))
        position = np.full(len(release.vocab), -1, dtype=np.int64)
        position[: len(self.position)] = self.position
        extra = np.setdiff1d(np.unique(ids), np.flatnonzero(position >= 0))
        position[extra] = self.n_items + np.arange(len(extra))
        words = max(self.words, -(-(self.n_items + len(extra)) // 64))
        before = np.pad(self.before, ((0, 0), (0, words - self.words)))
        after = _encode(indptr, ids, position, words)
        kept = _members(before, after)
        appears = _members(after, before)
        masks = _pattern_masks(patterns, release, position, words)
        restrictive_before = _contains_any(before, masks)
        restrictive_after = _contains_any(after, masks)
        legitimate = ~restrictive_before
        n_restrictive = int(restrictive_before.sum())
        n_legitimate = int(legitimate.sum())
        return {
            "sigma": self.sigma,
            "min_support": self.min_support,
            "frequent_before": len(before),
            "frequent_after": len(after),
            "restrictive_before": n_restrictive,
            "restrictive_after": int(restrictive_after.sum()),
            "hiding_failure": None if n_restrictive == 0 else float(restrictive_after.sum()) / n_restrictive,
            "misses_cost": None if n_legitimate == 0 else float((legitimate & ~kept).sum()) / n_legitimate,
            "artifactual_patterns": None if len(after) == 0 else float((~appears).sum()) / len(after),
        }


def _frequent(window: Window, min_support: int) -> np.ndarray:
    """The items of ``window`` frequent on their own: every frequent itemset is made of them, with
    the same support, so the miner is given them alone. Given every item, turning the transactions
    into the miner's lists took longer than mining them (retail at sigma 0.1, 9 itemsets: 0.26 s
    a mining, now 0.08); the itemsets may come in another order, which no metric depends on."""
    return window.supports >= min_support


def _pattern_masks(patterns: RestrictivePatterns, release: Window, position: np.ndarray, words: int) -> np.ndarray:
    """Bitmasks of the restrictive patterns whose items can all be in a frequent pattern."""
    rows = []
    for pattern in patterns.patterns:
        ids = release.vocab.ids(pattern)
        if (ids >= 0).all() and (position[ids] >= 0).all():
            rows.append(ids)
    if not rows:
        return np.zeros((0, words), dtype=np.uint64)
    sizes = np.array([len(r) for r in rows], dtype=np.int64)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    return _minimal(_encode(indptr, np.concatenate(rows), position, words), sizes)


def _minimal(masks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The masks that contain no other: an itemset that holds a larger pattern holds each smaller
    one in it, so they alone decide what is restrictive. A pattern file that lists every pattern
    holding its picks (74,560 on mushroom, as §5.1 ran it) made the count take an hour (QA); one
    pass per minimal pattern, smallest first, drops every mask holding it."""
    remaining = masks[np.argsort(sizes, kind="stable")]
    kept = []
    while len(remaining):
        smallest = remaining[0]
        kept.append(smallest)
        remaining = remaining[~((remaining & smallest) == smallest).all(axis=1)]
    return np.array(kept, dtype=np.uint64)


def dissimilarity(original: Window, release: Window) -> float:
    """Σ_i |f_D(i) - f_D'(i)| / Σ_i f_D(i), the histograms aligned on the original's item ids."""
    before = original.supports
    after = np.zeros(len(before), dtype=np.int64)
    common = min(len(before), len(release.supports))
    after[:common] = release.supports[:common]
    total = int(before.sum())
    changed = int(np.abs(before - after).sum()) + int(release.supports[common:].sum())
    return 0.0 if total == 0 else changed / total


def fimi_bytes(window: Window) -> int:
    """Bytes of the window as FIMI text: each label plus one separator or newline, and one
    newline per empty transaction."""
    label_bytes = np.fromiter((len(label.encode()) for label in window.vocab.labels), dtype=np.int64, count=len(window.vocab))
    return int((label_bytes[window.indices] + 1).sum()) + int((window.lengths == 0).sum())


def _encode(indptr: np.ndarray, ids: np.ndarray, position: np.ndarray, words: int) -> np.ndarray:
    """Itemsets (CSR over item ids, none empty) as rows of ``words`` uint64 bitmask words."""
    count = len(indptr) - 1
    out = np.zeros((count, words), dtype=np.uint64)
    if count == 0:
        return out
    compact = position[ids]
    word = compact >> 6
    bit = np.left_shift(np.uint64(1), (compact & 63).astype(np.uint64))
    for w in range(words):
        out[:, w] = np.bitwise_or.reduceat(np.where(word == w, bit, np.uint64(0)), indptr[:-1])
    return out


def _keys(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def _members(query: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """For each row of ``query``, whether it is a row of ``pool``."""
    if len(pool) == 0 or len(query) == 0:
        return np.zeros(len(query), dtype=bool)
    keys = np.sort(_keys(pool))
    wanted = _keys(query)
    where = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return keys[where] == wanted


def _contains_any(itemsets: np.ndarray, masks: np.ndarray) -> np.ndarray:
    hit = np.zeros(len(itemsets), dtype=bool)
    for mask in masks:
        hit |= ((itemsets & mask) == mask).all(axis=1)
    return hit
