"""Sanitization policies (Oliveira & Zaïane, TR 02-13, §4): how Step 2 picks the victim items of
each restrictive pattern and how Step 4 orders a pattern's sensitive transactions.

- ``naive`` (§4.1): every item of the pattern is a victim.
- ``minfia`` (§4.2): the pattern's item of least support.
- ``maxfia`` (§4.3): the pattern's item of greatest support. (The pseudo-code of §4.3 repeats
  MinFIA's condition; the text, "the item with the maximum support", is what is implemented.)
- ``iga`` (§4.4): the class label of the pattern's group (see :mod:`.grouping`).

Naive, MinFIA and MaxFIA sanitize the least conflicting transactions first, IGA the most
conflicting first. Ties, which the paper leaves open, are broken deterministically: items of
equal support by label text (the first label wins); transactions of equal degree of conflict
by length (shorter first: removing an item from a shorter transaction hides fewer of its other
patterns), then by position in the window.
The degree of conflict is counted once, on the window before Step 4: a transaction that an
earlier pattern broke still counts that pattern when a later one ranks its sensitive
transactions (§4 does not say whether it is recounted).

A third party adds a policy by subclassing :class:`SanitizePolicy`; the sanitizer calls only
:meth:`~SanitizePolicy.victims` and :meth:`~SanitizePolicy.transaction_order`.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from setveil.core.model import Policy
from setveil.core.window import Window

from .grouping import group_labels
from .patterns import PatternTable


@dataclass(frozen=True)
class ItemOrder:
    """What Step 2 knows about items: their support in the window (§3.2's inverted file keeps it
    with each item) and the rank of their label text, for deterministic ties."""

    support: np.ndarray
    label_rank: np.ndarray

    @classmethod
    def of(cls, window: Window) -> ItemOrder:
        return cls(window.supports, cls.label_ranks(window.vocab.labels))

    @staticmethod
    def label_ranks(labels: tuple[str, ...]) -> np.ndarray:
        """The rank of every label in text order, by id."""
        order = sorted(range(len(labels)), key=labels.__getitem__)
        rank = np.empty(len(labels), dtype=np.int64)
        rank[order] = np.arange(len(labels))
        return rank

    def _pick(self, items: np.ndarray, sign: int) -> np.ndarray:
        """Per row of ``items`` (padded with -1), the item of least (sign=1) or greatest
        (sign=-1) support, ties to the first label."""
        valid = items >= 0
        safe = np.where(valid, items, 0)
        key = sign * self.support[safe] * len(self.label_rank) + self.label_rank[safe]
        key = np.where(valid, key, np.iinfo(np.int64).max)
        return items[np.arange(len(items)), key.argmin(axis=1)]

    def least_supported(self, items: np.ndarray) -> np.ndarray:
        return self._pick(items, 1)

    def most_supported(self, items: np.ndarray) -> np.ndarray:
        return self._pick(items, -1)


@dataclass(frozen=True)
class Victims:
    """Victim items per pattern row, as CSR: row r's victims are ``items[indptr[r]:indptr[r+1]]``."""

    indptr: np.ndarray
    items: np.ndarray

    @classmethod
    def one_each(cls, items: np.ndarray) -> Victims:
        items = np.asarray(items, dtype=np.int64)
        return cls(np.arange(len(items) + 1, dtype=np.int64), items)

    def of(self, row: int) -> np.ndarray:
        return self.items[self.indptr[row] : self.indptr[row + 1]]


class SanitizePolicy(Policy):
    """Base class of sanitization policies: Step 2 (victims) and Step 4.1 (transaction order)."""

    model = "sanitize"

    @abc.abstractmethod
    def victims(self, table: PatternTable, items: ItemOrder) -> Victims:
        """Step 2: the victim items of every pattern row; each a non-empty subset of the row."""

    def transaction_order(self, conflict: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Step 4.1: a permutation of the window's positions; of a pattern's sensitive
        transactions, those earlier in it are sanitized first. By default the least
        conflicting first (§4.1-4.3), shorter first among equals."""
        return least_conflicting_first(conflict, lengths)


def least_conflicting_first(conflict: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return np.lexsort((lengths, conflict))


def most_conflicting_first(conflict: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return np.lexsort((lengths, -conflict))


class Naive(SanitizePolicy):
    name = "naive"
    summary = "remove every item of the pattern from its least conflicting sensitive transactions (§4.1)"

    def victims(self, table, items):
        valid = table.items >= 0
        indptr = np.zeros(len(table) + 1, dtype=np.int64)
        np.cumsum(valid.sum(axis=1), out=indptr[1:])
        return Victims(indptr, table.items[valid])


class MinFIA(SanitizePolicy):
    name = "minfia"
    summary = "remove the pattern's item of least support from its least conflicting sensitive transactions (§4.2)"

    def victims(self, table, items):
        return Victims.one_each(items.least_supported(table.items))


class MaxFIA(SanitizePolicy):
    name = "maxfia"
    summary = "remove the pattern's item of greatest support from its least conflicting sensitive transactions (§4.3)"

    def victims(self, table, items):
        return Victims.one_each(items.most_supported(table.items))


class IGA(SanitizePolicy):
    name = "iga"
    summary = (
        "group patterns that share items, remove each group's label item from the most conflicting "
        "transactions first (§4.4)"
    )

    def victims(self, table, items):
        return Victims.one_each(group_labels(table, items))

    def transaction_order(self, conflict, lengths):
        return most_conflicting_first(conflict, lengths)
