"""Greedy selection criteria for eliminating minimal moles (Xu et al. §3, §4).

A policy scores the live Score-table entries; the item of highest score is suppressed next.
Third parties add a criterion by subclassing :class:`CoherencePolicy` and registering it.
"""

from __future__ import annotations

import abc

import numpy as np

from setveil.core.errors import ContractError
from setveil.core.model import Policy


class BrokenScore(ContractError):
    """A policy's ``score`` returned something other than one finite number per candidate; the
    message names the policy, shapes and counts, never a value."""


class CoherencePolicy(Policy):
    """Base class of coherence policies: ``score(mm, il)`` over the live Score-table entries."""

    model = "coherence"

    @abc.abstractmethod
    def score(self, mm: np.ndarray, il: np.ndarray) -> np.ndarray:
        """Score the candidates, the public items still in some minimal mole (the live entries of
        the Score table, Xu et al. KDD'08 §3.2, Definition 5; the criteria are §4's), given as two
        aligned 1-d arrays: ``mm`` (int64), MM(e), the number of minimal moles left that the item
        is in (at least 1), and ``il`` (float64), IL(e), its information loss (its support in the
        window, or 1 with ``il=unit``). Return one finite number per candidate, as an array of
        ``mm``'s shape in float64 or convertible to it; another shape, NaN or infinity fails the
        window closed (:class:`BrokenScore`). Higher scores are suppressed first; ties go to the
        earlier Score-table entry, in the table's order as it was built."""


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
