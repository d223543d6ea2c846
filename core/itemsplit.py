"""Seeded choices of private and public items for experiments.

- :func:`coherence_split` follows Xu et al. §4.1: δ|U| items are public, chosen at random;
  the private items are the non-public items that are the non-public item of highest support
  in some transaction; the rest are neutral. One rule the paper leaves implicit is applied
  first when ``h`` is given: an item in more than h of the transactions is made public,
  because by Theorem 1 a private item that frequent leaves no cohesion at all. Ties in
  support go to the smaller label (in plain string order), so the split is a function of the
  data and the seed only.
- :func:`random_split` marks a share of the item types sensitive at random (the ρ-uncertainty
  experiments use 40%).

Both keep the spellings of one item together, those alike :func:`~setveil.core.labeltext.unmarked`
(é as one code point and as e and a combining accent, a zero-width space pasted in): each is in
the same list as the others, since every run refuses a list that names one and not the others
(:func:`~setveil.core.schema.misspelt`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .labeltext import label_order, unmarked
from .share import Share
from .window import Window


@dataclass(frozen=True)
class Split:
    private: list[str]
    public: list[str]
    neutral: list[str]


def coherence_split(window: Window, public_share: float, seed: int, h: float | None = None) -> Split:
    n_items = len(window.vocab)
    labels = np.array(window.vocab.labels, dtype=object)
    keys = _spelling_keys(labels)
    support = window.supports
    public = np.zeros(n_items, dtype=bool)
    public[_draw(labels, keys, support, public_share, seed)] = True
    if h is not None:
        public = _together(keys, public | Share.of(h).exceeded(support, len(window)))
    rank = np.empty(n_items, dtype=np.int64)
    # rank 0 = highest support, ties to the smaller label
    rank[np.lexsort((labels.astype(str), -support))] = np.arange(n_items)
    candidate = ~public[window.indices]
    owners = window.owners()[candidate]
    items = window.indices[candidate]
    private = np.zeros(n_items, dtype=bool)
    if len(items):
        best = np.full(len(window), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, owners, rank[items])
        held = best[best != np.iinfo(np.int64).max]
        inverse = np.empty(n_items, dtype=np.int64)
        inverse[rank] = np.arange(n_items)
        private[inverse[held]] = True
    private = _together(keys, private) & (support > 0)
    neutral = ~public & ~private & (support > 0)
    public &= support > 0
    return Split(_sorted(labels[private]), _sorted(labels[public]), _sorted(labels[neutral]))


def random_split(window: Window, sensitive_share: float, seed: int) -> Split:
    labels = np.array(window.vocab.labels, dtype=object)
    support = window.supports
    sensitive = np.zeros(len(labels), dtype=bool)
    sensitive[_draw(labels, _spelling_keys(labels), support, sensitive_share, seed)] = True
    return Split(_sorted(labels[sensitive]), _sorted(labels[~sensitive & (support > 0)]), [])


def _draw(labels: np.ndarray, keys: list[str], support: np.ndarray, share: float, seed: int) -> np.ndarray:
    """A seeded sample of ``share`` of the items that occur, drawn over items in label order so
    that the draw does not depend on the order in which items first appear. The spellings of one
    item are drawn as one, in the place of the first in label order, so that data with one
    spelling per item draws what it drew before spellings were grouped."""
    present = np.flatnonzero(support > 0)
    present = present[np.argsort(labels[present].astype(str), kind="stable")]
    first: dict[str, int] = {}
    group = np.array([first.setdefault(keys[i], len(first)) for i in present], dtype=np.int64)
    rng = np.random.default_rng(seed)
    return present[np.isin(group, rng.permutation(len(first))[: int(round(share * len(first)))])]


def _spelling_keys(labels: np.ndarray) -> list[str]:
    """Each label's :func:`~setveil.core.labeltext.unmarked` form, which its other spellings share."""
    return [unmarked(label) for label in labels]


def _together(keys: list[str], marked: np.ndarray) -> np.ndarray:
    """``marked`` with every spelling (label of the same key) of a marked item marked too."""
    chosen = {key for key, mark in zip(keys, marked) if mark}
    return np.array([key in chosen for key in keys], dtype=bool)


def _sorted(labels) -> list[str]:
    return sorted(labels, key=label_order)
