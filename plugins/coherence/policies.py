"""Greedy selection criteria for eliminating minimal moles (Xu et al. §3, §4).

A policy scores the live Score-table entries; the item of highest score is suppressed next.
Third parties add a criterion by subclassing :class:`CoherencePolicy` and registering it.
"""

from __future__ import annotations

import abc

import numpy as np

from setveil.core.model import Policy


class CoherencePolicy(Policy):
    """Base class of coherence policies: ``score(mm, il)`` over the live Score-table entries."""

    model = "coherence"

    @abc.abstractmethod
    def score(self, mm: np.ndarray, il: np.ndarray) -> np.ndarray:
        """Higher scores are suppressed first; ties go to the earlier Score-table entry."""


class MaxMMPerIL(CoherencePolicy):
    name = "mm-il"
    summary = "suppress the public item with the most minimal moles per unit of information loss (MM/IL)"

    def score(self, mm, il):
        return mm / il


class MaxMM(CoherencePolicy):
    name = "mm"
    summary = "suppress the public item in the most minimal moles (MM)"

    def score(self, mm, il):
        return mm.astype(np.float64)


class MinIL(CoherencePolicy):
    name = "il"
    summary = "suppress the public item of least information loss (1/IL)"

    def score(self, mm, il):
        return 1.0 / il
