"""Information-loss and utility measures shared by models.

- :func:`suppressed_share`: S/N of Xu et al. §4, the share of item occurrences removed.
- :func:`partially_suppressed`: items removed from some but not all transactions holding them
  (zero for global suppression: requirement R3 of Xu et al. §2.2).
"""

from __future__ import annotations

import numpy as np

from .window import Window


def suppressed_share(original: Window, release: Window) -> float:
    before = original.n_occurrences
    return 0.0 if before == 0 else (before - release.n_occurrences) / before


def label_supports(window: Window) -> dict[str, int]:
    """Support of every label that occurs in ``window``."""
    sup = window.supports
    labels = window.vocab.labels
    return {labels[i]: int(sup[i]) for i in np.flatnonzero(sup)}


def partially_suppressed(original: Window, release: Window) -> int:
    """How many items were kept in some transactions and removed from others."""
    before = label_supports(original)
    after = label_supports(release)
    return sum(1 for label, count in after.items() if count != before.get(label, 0))
