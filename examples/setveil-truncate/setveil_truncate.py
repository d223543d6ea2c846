"""An example third-party setveil plugin.

Model ``truncate``: no released transaction holds more than ``m`` items, so an attacker who
knows more than ``m`` of a person's items cannot use them all. Its policies decide which items
a long transaction loses: ``rarest-first`` drops the most identifying (least supported) items,
``random`` drops items at random (seeded).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, Window, hookimpl


class TruncatePolicy(Policy):
    """What the model asks of a policy: a priority per occurrence, lowest dropped first."""

    model = "truncate"

    @abc.abstractmethod
    def priority(self, window: Window, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        """One number per occurrence in ``window.indices``; the lowest are dropped first."""


class RarestFirst(TruncatePolicy):
    name = "rarest-first"
    summary = "drop the least supported items of a long transaction first"

    def priority(self, window: Window, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        return window.supports[window.indices].astype(np.float64)


class RandomDrop(TruncatePolicy):
    name = "random"
    summary = "drop items of a long transaction at random"

    def priority(self, window: Window, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        return rng.random(len(window.indices))


class Truncate(PrivacyModel[TruncatePolicy]):
    name = "truncate"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1),)
    default_policy = "rarest-first"
    policy_base = TruncatePolicy

    def anonymize(self, window: Window, policy: TruncatePolicy, rng: np.random.Generator) -> Release:
        priority = policy.priority(window, rng)
        owners = window.owners()
        # rank occurrences inside each transaction, highest priority first
        order = np.lexsort((-priority, owners))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order)) - window.indptr[owners[order]]
        keep = rank < self.params["m"]
        return Release(window.keep_occurrences(keep), stats={"dropped": int((~keep).sum())})

    def violations(self, original: Window, release: Window) -> Iterator[Violation]:
        # One transaction per original and nothing added are setveil's own checks, which run
        # first on every path (setveil.core.verify.release_violations); this is the model's.
        m = self.params["m"]
        long = np.flatnonzero(release.lengths > m)
        if len(long):
            yield Violation("too-long", f"{len(long)} transaction(s) hold more than m={m} items", (), int(long[0]))


@hookimpl
def setveil_register_privacy_models(register: Callable[[type[PrivacyModel[Any]]], None]) -> None:
    register(Truncate)


@hookimpl
def setveil_register_policies(register: Callable[[type[Policy]], None]) -> None:
    register(RarestFirst)
    register(RandomDrop)
