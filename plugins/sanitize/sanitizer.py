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
item of the pattern, a vectorized gather with no search; the mask of kept occurrences is read off
the tidsets once at the end. A pattern reads and changes only its own sensitive transactions, so
consecutive patterns that share none are sanitized together, in one pass of vectorized steps, with
the same result as one after the other: in windows of a file, most of a long pattern list then
costs no Python step of its own. ``⌊ψ·m⌋`` is computed exactly with ψ as
the decimal it was typed as (``repr`` of the float: 0.3 is 3/10, not the binary double just
below it, whose exact product with 10 floors to 2; a float product loses a unit too, as
0.29 · 100 is 28.999999999999996; and 0.9999999999 allows 9 of 10, not 10).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from setveil.core.arrays import concat_ranges
from setveil.core.bitset import clear, holds
from setveil.core.share import Share
from setveil.core.window import Window

from .index import CHUNK_BYTES, SensitiveIndex, conjunction
from .patterns import PatternTable
from .policies import ItemOrder, Victims

ALL = np.iinfo(np.uint64).max

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
    sizes = index.sizes
    sanitized = np.zeros(count, dtype=np.int64)
    already = np.zeros(count, dtype=np.int64)
    spared = 0
    allowed = allowed_to_hold(psi, sizes)
    work = sizes > allowed
    starts, cells, stays = _victim_cells(table, victims, np.flatnonzero(work), column, items)
    tracked = np.where(table.items >= 0, column[np.maximum(table.items, 0)], -1)
    bounds = _batches(index, work, tracked)
    # one victim a pattern (MinFIA, MaxFIA, IGA) needs no expansion of the victims per transaction
    single = bool((np.diff(starts)[work] == 1).all())
    for first, stop in zip(bounds, bounds[1:]):
        lo = index.indptr[first]
        transactions = index.rows[lo : index.indptr[stop]]
        # a pattern that need not be sanitized (not in ``work``) may share a transaction with
        # another of its run: what it reads there is never used
        patterns = tracked[first:stop]
        if len(transactions) > len(patterns) * present.shape[1]:
            # more sensitive transactions than words: one AND of each pattern's bitsets is cheaper
            # than a bit test per item and transaction (dense data, e.g. mushroom)
            both = present[np.maximum(patterns, 0)]
            both[patterns < 0] = ALL
            both = np.bitwise_and.reduce(both, axis=1)
            owner = 0 if len(patterns) == 1 else np.repeat(np.arange(len(patterns)), sizes[first:stop])
            holding = holds(both, owner, transactions)
        else:
            pattern = np.repeat(patterns, sizes[first:stop], axis=0)
            holding = np.asarray(
                (holds(present, np.maximum(pattern, 0), transactions[:, None]) | (pattern < 0)).all(axis=1))
        if stop - first == 1:
            held = np.array([np.count_nonzero(holding)])
        else:
            counted = np.concatenate([[0], np.cumsum(holding)])
            held = counted[index.indptr[first + 1 : stop + 1] - lo] - counted[index.indptr[first:stop] - lo]
        already[first:stop] = np.where(work[first:stop], sizes[first:stop] - held, 0)
        need = held - allowed[first:stop]
        if need.max(initial=0) <= 0:
            continue
        sanitized[first:stop] = np.maximum(need, 0)
        holders, transactions = np.repeat(np.arange(first, stop), held), transactions[holding]
        if (need < held).any():
            # of the transactions that still hold the pattern, the first ``need`` in the policy's
            # order (when all of them are, their order changes nothing)
            ranked = np.lexsort((rank[transactions], holders))
            holders, transactions = holders[ranked], transactions[ranked]
            place = np.arange(len(holders)) - np.repeat(np.cumsum(held) - held, held)
            chosen = place < need[holders - first]
            holders, transactions = holders[chosen], transactions[chosen]
        if single:
            # a transaction that still holds the pattern holds two items at least: one victim never
            # empties it
            clear(present, cells[starts[holders]], transactions)
            continue
        victims_of = concat_ranges(starts[holders], starts[holders + 1])
        per = starts[holders + 1] - starts[holders]
        emptied = remaining[transactions] == per
        spared += int(emptied.sum())
        # removing the victims never empties a transaction: the one of greatest support stays
        drop = ~np.repeat(emptied, per) | (victims_of - np.repeat(starts[holders], per) != np.repeat(stays[holders], per))
        clear(present, cells[victims_of[drop]], np.repeat(transactions, per)[drop])
        remaining[transactions] -= per - emptied
    keep = np.ones(window.n_occurrences, dtype=bool)
    tracked = column[window.indices]
    mask = tracked >= 0
    owner = window.owners()[mask]
    keep[mask] = holds(present, tracked[mask], owner)
    return Sanitized(keep, sanitized, already, spared)


def _batches(index: SensitiveIndex, work: np.ndarray, tracked: np.ndarray) -> list[int]:
    """Cut the pattern rows into runs, in file order, in which no two patterns to sanitize share
    a sensitive transaction: a pattern reads and changes only its own sensitive transactions, so
    the patterns of a run give the same result taken together as one after the other, and each
    run is sanitized in a few vectorized steps rather than a Python step per pattern (QA, retail
    in windows of 1000 with 1,000 patterns). Returns the first row of every run and the end."""
    rows = np.flatnonzero(work)
    if int(index.sizes[rows].sum()) > len(rows) * index.bitsets.shape[1]:
        return _batches_by_bitsets(index, work, tracked)
    return _batches_by_sharers(index, rows, len(work))


def _batches_by_sharers(index: SensitiveIndex, rows: np.ndarray, end: int) -> list[int]:
    """:func:`_batches` from the pairs of a pattern and a sensitive transaction, sorted by
    transaction: a few vectorized steps and a Python step per run, not per pattern. ``rows``:
    the patterns with work, ascending; ``end``: the end of the last run."""
    starts, stops = index.indptr[rows], index.indptr[rows + 1]
    # a run that starts at pattern s ends before the first pattern that shares a transaction
    # with one from s on: the first i whose last earlier sharer, ``earlier[i]``, is s or later
    earlier = _last_sharers(index.rows[concat_ranges(starts, stops)], stops - starts)
    first = np.full(len(rows) + 1, len(rows), dtype=np.int64)
    shared = earlier >= 0
    np.minimum.at(first, earlier[shared], np.flatnonzero(shared))
    following = np.minimum.accumulate(first[::-1])[::-1].tolist()
    bounds = [0]
    at = following[0]
    cuts = rows.tolist()
    while at < len(rows):
        bounds.append(cuts[at])
        at = following[at]
    bounds.append(end)
    return bounds


def _last_sharers(transactions: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """For patterns given by their sensitive transactions (CSR, ``sizes`` of each), the last
    earlier pattern that shares one with each, or -1."""
    owner = np.repeat(np.arange(len(sizes)), sizes)
    # stable: the patterns of a transaction stay in file order
    by_transaction = np.argsort(transactions, kind="stable")
    transactions, owner = transactions[by_transaction], owner[by_transaction]
    follows = np.flatnonzero(transactions[1:] == transactions[:-1])
    earlier = np.full(len(sizes), -1, dtype=np.int64)
    np.maximum.at(earlier, owner[follows + 1], owner[follows])
    return earlier


def _batches_by_bitsets(index: SensitiveIndex, work: np.ndarray, tracked: np.ndarray) -> list[int]:
    """:func:`_batches` when the patterns hold more sensitive transactions than their bitsets
    have words (dense data: mushroom's 167,663 patterns hold 335 million pairs, too many to sort):
    a Python step per pattern that tests its sensitive transactions, as a bitset, against those
    the run already holds."""
    words = index.bitsets.shape[1]
    # a pattern's sensitive transactions as a bitset, the AND of its items' tidsets as the index
    # found them
    bits = np.vstack([index.bitsets, np.full((1, words), ALL, dtype=np.uint64)])
    operand = np.where(tracked >= 0, tracked, len(index.bitsets))
    taken = np.zeros(words, dtype=np.uint64)
    bounds = [0]
    rows = np.flatnonzero(work)
    step = max(1, CHUNK_BYTES // (8 * max(words, 1)))
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        for row, sensitive in zip(chunk.tolist(), conjunction(bits, operand[chunk])):
            if (taken & sensitive).any():
                bounds.append(row)
                taken = sensitive
            else:
                taken |= sensitive
    bounds.append(len(work))
    return bounds


def _victim_cells(table: PatternTable, victims: Victims, work: np.ndarray, column: np.ndarray,
                  items: ItemOrder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The victims of the pattern rows of ``work`` as tidset rows, CSR over every pattern row
    (``cells[starts[r]:starts[r+1]]``, none for the others), and per row the position among them
    of the one that stays when they are all a transaction has left (the item of greatest
    support, §4.1). A policy must pick its victims from the pattern, each once."""
    given = [np.asarray(victims.of(row)) for row in work.tolist()]
    counts = np.fromiter(map(len, given), dtype=np.int64, count=len(given))
    owner = np.repeat(np.arange(len(work)), counts)
    flat = np.concatenate(given) if given else np.zeros(0, dtype=np.int64)
    patterns = table.items[work[owner]]
    match = (patterns == flat[:, None]) & (patterns >= 0)
    columns = match.argmax(axis=1)
    bad = counts == 0
    bad[owner[~match.any(axis=1)]] = True
    width = max(table.items.shape[1], 1)
    pairs, repeats = np.unique(owner * width + columns, return_counts=True)
    bad[pairs[repeats > 1] // width] = True
    if bad.any():
        row = int(work[np.flatnonzero(bad)[0]])
        raise ValueError(f"the policy's victims of restrictive pattern {row} are not distinct items of the pattern")
    chosen = patterns[np.arange(len(owner)), columns]
    offsets = np.concatenate([[0], np.cumsum(counts)])
    padded = np.full((len(work), int(counts.max(initial=0))), -1, dtype=np.int64)
    padded[owner, np.arange(len(owner)) - offsets[owner]] = chosen
    stays = np.zeros(len(table), dtype=np.int64)
    if len(work):
        stays[work] = np.argmax(padded == items.most_supported(padded)[:, None], axis=1)
    per_row = np.zeros(len(table), dtype=np.int64)
    per_row[work] = counts
    starts = np.zeros(len(table) + 1, dtype=np.int64)
    np.cumsum(per_row, out=starts[1:])
    return starts, column[chosen], stays
