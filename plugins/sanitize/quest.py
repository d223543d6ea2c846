"""Synthetic transactions the way Oliveira & Zaïane, TR 02-13, §5.1 made theirs: the IBM Quest
generator of Agrawal & Srikant, "Fast Algorithms for Mining Association Rules", VLDB'94, §2.4.3,
with §5.1's minimum of 40 items per transaction. No Quest program can be installed here (none on
PyPI, Debian or npm), so this follows the paper's description, and the public Quest source where
the paper leaves a step open (an itemset's size is never 0, corruption drops items one at a time,
an itemset that does not fit goes in half of the time).

Potential large itemsets (``large_itemsets`` of them):
- size ``1 + Poisson(large_itemset_size - 1)``, so never 0;
- each after the first takes ``round(size * correlation * Exp(1))`` items (at most its size and
  the previous one's) at random from the itemset before it, and the rest by item weight, an
  Exp(1) draw per item (``item_weights="uniform"`` draws them uniformly). An item drawn twice
  is drawn again, so an itemset holds as many items as its size says (the Quest source can
  hold an item twice);
- a weight, Exp(1) normalized, which is its chance of being picked;
- a corruption level, Normal(``corruption_mean``, ``corruption_variance``), not clipped.

A transaction draws its target length ``1 + Poisson(mean_length - 1)`` again until it is at
least ``min_length`` (§5.1's minimum). Until it holds that many items it takes an itemset: the
one carried over from the transaction before, else one picked by weight. It drops items one at
a time while a uniform draw falls below the itemset's corruption level. An itemset that does
not fit goes in anyway half of the time; otherwise it is carried over and the transaction
closes. A transaction that closes below ``min_length`` is dropped and made again, so every
transaction written has at least ``min_length`` items.

The data behind docs/sanitize.md ("Data made the paper's way") is this module's output at its
defaults and, for the second set, ``large_itemset_size=15, large_itemsets=80,
item_weights="uniform", seed=2``; tests/sanitize/test_quest.py pins both by digest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import poisson

from setveil.core.errors import ParameterError

#: draws of an itemset for one transaction before it is closed short (and so made again); it
#: stops a transaction that its itemsets can no longer lengthen, which the loop never ends alone
DRAWS_PER_TRANSACTION = 10_000
#: transactions made again for closing short, per transaction asked for (at least 1,000 in all),
#: past which the settings are refused: §5.1's settings make about 0.56 per transaction
DROPS_PER_TRANSACTION = 10
#: uniform draws taken from the generator at a time; the data made depends on it, as on every
#: draw's order
BLOCK = 1 << 16
#: the least chance of a target length reaching min_length that is accepted, so that drawing
#: the target again until it does ends in a few thousand draws at worst
LEAST_TARGET_CHANCE = 1e-3


@dataclass(frozen=True)
class QuestSettings:
    """What to make; the defaults are §5.1's data (N = 500 items, 100,000 transactions of at
    least 40 items) with the large itemsets set to give about as many frequent patterns."""

    transactions: int = 100_000
    items: int = 500
    mean_length: float = 40.0
    min_length: int = 40
    large_itemset_size: float = 16.0
    large_itemsets: int = 100
    correlation: float = 0.5
    corruption_mean: float = 0.5
    corruption_variance: float = 0.1
    item_weights: str = "exp"
    seed: int = 1

    def check(self) -> None:
        """Refuse settings the generator cannot meet, before any draw, naming the option."""
        if self.mean_length > self.items:
            raise ParameterError("mean-length", f"{self.mean_length:g} is more than --items {self.items}")
        if self.min_length > self.items:
            raise ParameterError("min-length", f"{self.min_length} is more than --items {self.items}")
        chance = float(poisson.sf(self.min_length - 2, self.mean_length - 1))
        if chance < LEAST_TARGET_CHANCE:
            largest = int(poisson.isf(LEAST_TARGET_CHANCE, self.mean_length - 1)) + 1
            raise ParameterError("min-length", f"{self.min_length} is out of reach of --mean-length "
                                 f"{self.mean_length:g} (a length reaches it with chance {chance:.1e}); "
                                 f"allowed: at most {max(largest, 1)}, or raise --mean-length")


@dataclass(frozen=True)
class QuestData:
    """The transactions as FIMI lines (item ids ascending) and what making them took."""

    lines: list[str]
    items_used: int
    dropped_short: int


class _Uniforms:
    """Uniform draws served from blocks of the generator's output, in order."""

    def __init__(self, generator: np.random.Generator):
        self._generator = generator
        self._block = generator.random(BLOCK)
        self._next = 0

    def __call__(self) -> float:
        if self._next == BLOCK:
            self._block = self._generator.random(BLOCK)
            self._next = 0
        value = float(self._block[self._next])
        self._next += 1
        return value


class _Picks:
    """Itemset picks by weight, drawn a block at a time when first needed."""

    def __init__(self, generator: np.random.Generator, weights: np.ndarray):
        self._generator = generator
        self._cumulative = _cumulative(weights)
        self._block = np.empty(0, dtype=np.int64)
        self._next = 0

    def __call__(self) -> int:
        if self._next == len(self._block):
            self._block = np.searchsorted(self._cumulative, self._generator.random(BLOCK), side="left")
            self._next = 0
        value = int(self._block[self._next])
        self._next += 1
        return value


def _cumulative(weights: np.ndarray) -> np.ndarray:
    cumulative = np.cumsum(weights / weights.sum())
    cumulative[-1] = 1.0  # a draw just under 1 must not fall past the last entry by rounding
    return cumulative


def generate(settings: QuestSettings) -> QuestData:
    """The transactions ``settings`` describe; the same settings give the same lines."""
    settings.check()
    generator = np.random.default_rng(settings.seed)
    uniform = _Uniforms(generator)
    itemsets, weights, corruption = _large_itemsets(generator, settings)
    covered = len(set().union(*itemsets))
    if covered < settings.min_length:
        raise ParameterError("min-length", f"{settings.min_length} is more than the {covered} items the "
                             f"large itemsets hold (seed {settings.seed}): raise --large-itemsets or "
                             "--large-itemset-size, or lower --min-length")
    pick = _Picks(generator, weights)
    sizes = [len(itemset) for itemset in itemsets]
    lines: list[str] = []
    used = np.zeros(settings.items, dtype=bool)
    carried: int | None = None
    dropped = 0
    while len(lines) < settings.transactions:
        target = 1 + int(generator.poisson(settings.mean_length - 1))
        while target < settings.min_length:
            target = 1 + int(generator.poisson(settings.mean_length - 1))
        transaction: set[int] = set()
        for _ in range(DRAWS_PER_TRANSACTION):
            if len(transaction) >= min(target, covered):  # no itemset can lengthen one holding every item
                break
            if carried is None:
                chosen = pick()
            else:
                chosen, carried = carried, None
            kept = sizes[chosen]
            while kept > 0 and uniform() < corruption[chosen]:
                kept -= 1
            if len(transaction) + kept > target and uniform() >= 0.5:
                carried = chosen
                break
            if kept == sizes[chosen]:
                transaction.update(itemsets[chosen])
            elif kept > 0:
                order = np.argsort(generator.random(sizes[chosen]))[:kept]
                transaction.update(itemsets[chosen][j] for j in order)
        if len(transaction) < settings.min_length:
            dropped += 1
            if dropped > DROPS_PER_TRANSACTION * max(settings.transactions, 100):
                raise ParameterError("min-length", f"{settings.min_length} is seldom reached: {dropped} "
                                     f"transactions closed short of it while {len(lines)} reached it; lower "
                                     "it, or raise --large-itemsets or --large-itemset-size")
            continue
        ordered = sorted(transaction)
        used[ordered] = True
        lines.append(" ".join(map(str, ordered)))
    return QuestData(lines, int(used.sum()), dropped)


def _large_itemsets(generator: np.random.Generator, settings: QuestSettings):
    """The potential large itemsets (lists of item ids), their pick weights (not normalized) and
    corruption levels."""
    if settings.item_weights == "exp":
        item_weights = generator.exponential(1.0, settings.items)
    else:
        item_weights = np.ones(settings.items)
    cumulative = _cumulative(item_weights)
    itemsets: list[list[int]] = []
    for index in range(settings.large_itemsets):
        size = min(1 + int(generator.poisson(settings.large_itemset_size - 1)), settings.items)
        members: list[int] = []
        if index > 0 and settings.correlation > 0:
            previous = itemsets[-1]
            shared = min(int(size * settings.correlation * generator.exponential(1.0) + 0.5), len(previous), size)
            if shared:
                members = [int(item) for item in generator.choice(np.array(previous, dtype=np.int64), size=shared,
                                                                  replace=False)]
        present = set(members)
        while len(members) < size:
            item = int(np.searchsorted(cumulative, generator.random(), side="left"))
            if item not in present:
                present.add(item)
                members.append(item)
        itemsets.append(members)
    weights = generator.exponential(1.0, settings.large_itemsets)
    corruption = generator.normal(settings.corruption_mean, math.sqrt(settings.corruption_variance),
                                  settings.large_itemsets)
    return itemsets, weights, corruption.tolist()
