"""Steps 3 and 4 of the sanitizing algorithms (Oliveira & Zaïane, TR 02-13, §4, common to Naive,
MinFIA, MaxFIA and IGA).

Step 3: of the |T[rp]| sensitive transactions of a restrictive pattern, ⌈|T[rp]|·(1-ψ)⌉ are to be
sanitized, so at most ⌊ψ·|T[rp]|⌋ may still hold it. Step 4: patterns are taken in file order; a
pattern's sensitive transactions are ranked by the policy's order and its victims removed from the
first ones. Two choices where the pseudo-code is silent:

- A sensitive transaction that an earlier pattern's sanitization already broke (one of this
  pattern's items was removed) counts as sanitized and loses nothing more; the victims are removed
  only from transactions that still hold the pattern. The bound is the same, the loss never larger.
- Removing the victims never empties a transaction: when they are all it has left, the one of
  greatest support stays (§4.1: "except for the item with the highest frequency in the database";
  ties to the first label). The pattern still leaves it, since a pattern has at least two items.

The removals are made on the retrieval engine's tidsets of the patterns' items (a copy kept
current): a sensitive transaction still holds a pattern iff its bit is set in the tidset of every
item of the pattern, one vectorized gather per pattern with no search; the mask of kept
occurrences is read off the tidsets once at the end. ``⌊ψ·m⌋`` is computed exactly with ψ as
the decimal it was typed as (``repr`` of the float: 0.3 is 3/10, not the binary double just
below it, whose exact product with 10 floors to 2; a float product loses a unit too, as
0.29 · 100 is 28.999999999999996; and 0.9999999999 allows 9 of 10, not 10).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from setveil.core.bitset import clear, holds
from setveil.core.share import Share
from setveil.core.window import Window

from .index import SensitiveIndex
from .patterns import PatternTable
from .policies import ItemOrder, Victims

@dataclass
class Sanitized:
    """The occurrences to keep and per-pattern counters (rows of the pattern table)."""

    keep: np.ndarray
    sanitized: np.ndarray
    already: np.ndarray
    spared: int

    @property
    def removed(self) -> int:
        return int((~self.keep).sum())


def allowed_to_hold(psi: float, sensitive: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """⌊ψ·|T[rp]|⌋: how many sensitive transactions may still hold the pattern (Step 3)."""
    return Share.of(psi).floor_of(sensitive)


def sanitize(
    window: Window,
    table: PatternTable,
    index: SensitiveIndex,
    victims: Victims,
    order: np.ndarray,
    items: ItemOrder,
    psi: float,
) -> Sanitized:
    n = len(window)
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError("the policy's transaction order is not a permutation of the window")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    column = np.full(len(window.vocab), -1, dtype=np.int64)
    column[index.items] = np.arange(len(index.items))
    present = index.bitsets.copy()
    remaining = window.lengths.copy()
    count = len(table)
    sanitized = np.zeros(count, dtype=np.int64)
    already = np.zeros(count, dtype=np.int64)
    spared = 0
    allowed = allowed_to_hold(psi, index.sizes)
    for row in range(count):
        sensitive = index.of(row)
        if len(sensitive) <= allowed[row]:
            continue
        pattern = table.row(row)
        columns = _victim_columns(pattern, victims.of(row), row)
        rows = column[pattern]
        if len(sensitive) > present.shape[1]:
            # more sensitive transactions than words: one AND of the pattern's bitsets is cheaper
            # than a bit test per item and transaction (dense data, e.g. mushroom)
            holding = holds(np.bitwise_and.reduce(present[rows], axis=0)[None, :], 0, sensitive)
        else:
            holding = np.all(holds(present, rows[:, None], sensitive[None, :]), axis=0)
        held = int(holding.sum())
        already[row] = len(sensitive) - held
        need = held - int(allowed[row])
        if need <= 0:
            continue
        # only the transactions that still hold the pattern are put in the policy's order
        still = sensitive[holding]
        chosen = still[np.argsort(rank[still], kind="stable")[:need]]
        drop = np.ones((need, len(columns)), dtype=bool)
        emptied = remaining[chosen] == len(columns)
        if emptied.any():
            stay = int(np.flatnonzero(pattern[columns] == items.most_supported(pattern[columns][None, :])[0])[0])
            drop[emptied, stay] = False
            spared += int(emptied.sum())
        for j, victim in enumerate(rows[columns].tolist()):
            clear(present[victim], chosen[drop[:, j]])
        remaining[chosen] -= drop.sum(axis=1)
        sanitized[row] = need
    keep = np.ones(window.n_occurrences, dtype=bool)
    tracked = column[window.indices]
    mask = tracked >= 0
    owner = window.owners()[mask]
    keep[mask] = holds(present, tracked[mask], owner)
    return Sanitized(keep, sanitized, already, spared)


def _victim_columns(pattern: np.ndarray, victims: np.ndarray, row: int) -> np.ndarray:
    """Positions of the victims inside the pattern; a policy must pick them from the pattern."""
    columns = np.searchsorted(pattern, victims)
    inside = (columns < len(pattern)) & (pattern[np.minimum(columns, len(pattern) - 1)] == victims)
    if len(victims) == 0 or not inside.all() or len(np.unique(columns)) != len(columns):
        raise ValueError(f"the policy's victims of restrictive pattern {row} are not distinct items of the pattern")
    return columns
