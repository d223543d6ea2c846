"""Synthetic transactions the way Oliveira & Zaïane, TR 02-13, §5.1 made theirs: the IBM Quest
generator of Agrawal & Srikant, "Fast Algorithms for Mining Association Rules", VLDB'94, §2.4.3,
with §5.1's minimum of 40 items per transaction. No Quest program can be installed here (none on
PyPI, Debian or npm), so this follows the paper, and the public Quest source (gen.cc and main.cc
of the IBMGenerator that M. Zaki keeps) where the paper is silent or the two differ: lengths are
``1 + Poisson(mean - 1)`` where the paper says Poisson(mean), so never 0; new items are drawn by
an Exp(1) weight per item where the paper says "at random"; a transaction draws at most as many
itemsets as there are.

Potential large itemsets (``large_itemsets`` of them):
- size ``1 + Poisson(large_itemset_size - 1)``;
- each after the first takes ``round(size * correlation * Exp(1))`` items (at most its size and
  the previous one's) at random from the itemset before it, and the rest by item weight
  (``item_weights="uniform"`` draws them uniformly, as the paper has it). An item drawn twice
  is drawn again, so an itemset holds as many items as its size says (the Quest source can
  hold an item twice);
- a weight, Exp(1) normalized, which is its chance of being picked;
- a corruption level, Normal(``corruption_mean``, ``corruption_variance``), not clipped.

A transaction draws its target length ``1 + Poisson(mean_length - 1)`` again until it is at
least ``min_length`` (§5.1's minimum). Until it holds that many items it takes an itemset: the
one carried over from the transaction before, else one picked by weight. It drops items one at
a time while a uniform draw falls below the itemset's corruption level. An itemset that does
not fit goes in anyway half of the time, so a transaction can end well past its target;
otherwise the itemset is carried over and the transaction closes. A transaction also closes
after ``large_itemsets`` draws, or once it holds every item the itemsets cover. One that closes
below ``min_length`` is dropped and made again, so every transaction written has at least
``min_length`` items.

The data behind docs/sanitize.md ("Data made the paper's way") is this module's output at its
defaults and, for the second set, ``large_itemset_size=15, large_itemsets=80,
item_weights="uniform", seed=2``; tests/sanitize/test_quest.py pins both by digest. numpy 2.0.2
and 2.4.6 make the same files; numpy may change a generator's stream in a later version (NEP 19),
and the digests then say so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from setveil.core.deferred import DeferredModule
from setveil.core.errors import ParameterError

if TYPE_CHECKING:
    from scipy import special
else:
    special = DeferredModule("scipy.special")

#: transactions made again for closing short, per transaction written, past which (and past
#: the first 1,000) the settings are refused: §5.1's settings make about 0.56 per transaction
DROPS_PER_TRANSACTION = 10
#: draws of an item, over all the large itemsets, and item occurrences of the data, past which the
#: settings are refused: each is a step of a Python loop, and the data is held whole before it
#: is written (§5.1's data set holds 4.9 million occurrences)
ITEM_DRAW_BUDGET = 10_000_000
OCCURRENCE_BUDGET = 100_000_000
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
        if self.large_itemset_size > self.items / 2:
            raise ParameterError("large-itemset-size", f"{self.large_itemset_size:g} is more than half of --items "
                                 f"{self.items}: the itemsets would hold most of the items")
        if self.large_itemsets * self.large_itemset_size > ITEM_DRAW_BUDGET:
            raise ParameterError("large-itemsets", f"{self.large_itemsets} itemsets of about "
                                 f"{self.large_itemset_size:g} items draw more than {ITEM_DRAW_BUDGET:,} items; "
                                 "lower it or --large-itemset-size")
        if self.transactions * max(self.mean_length, self.min_length) > OCCURRENCE_BUDGET:
            raise ParameterError("transactions", f"{self.transactions} transactions of about "
                                 f"{max(self.mean_length, self.min_length):g} items hold more than "
                                 f"{OCCURRENCE_BUDGET:,} items; make several files with other seeds")
        chance = _length_chance(self.min_length, self.mean_length)
        if chance < LEAST_TARGET_CHANCE:
            reachable, beyond = 1, self.min_length  # the chance falls as the length grows
            while beyond - reachable > 1:
                middle = (reachable + beyond) // 2
                reachable, beyond = (middle, beyond) if _length_chance(middle, self.mean_length) >= LEAST_TARGET_CHANCE \
                    else (reachable, middle)
            raise ParameterError("min-length", f"{self.min_length} is out of reach of --mean-length "
                                 f"{self.mean_length:g} (a length reaches it with chance {chance:.1e}); "
                                 f"allowed: at most {reachable}, or raise --mean-length")


def _length_chance(length: int, mean_length: float) -> float:
    """The chance that a target length, 1 + Poisson(mean_length - 1), is at least ``length``."""
    return float(special.pdtrc(length - 2, mean_length - 1)) if length >= 2 else 1.0


@dataclass(frozen=True)
class LargeItemsets:
    """The potential large itemsets (lists of item ids), their pick weights (not normalized) and
    corruption levels."""

    itemsets: list[list[int]]
    weights: np.ndarray
    corruption: list[float]

    @property
    def covered(self) -> int:
        """How many items the itemsets hold, which no transaction can pass."""
        return len(set().union(*self.itemsets))


@dataclass(frozen=True)
class QuestData:
    """The transactions as FIMI lines (item ids ascending) and what making them took."""

    lines: list[str]
    items_used: int
    dropped_short: int

    def fimi(self) -> str:
        """The file's text: a line per transaction."""
        return "".join(line + "\n" for line in self.lines)


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


def large_itemsets(settings: QuestSettings) -> LargeItemsets:
    """The potential large itemsets that :func:`generate` draws first for ``settings``."""
    settings.check()
    return _start(settings)[2]


def _start(settings: QuestSettings) -> tuple[np.random.Generator, _Uniforms, LargeItemsets]:
    generator = np.random.default_rng(settings.seed)
    uniform = _Uniforms(generator)  # its first block comes before the itemsets' draws
    return generator, uniform, _large_itemsets(generator, settings)


def generate(settings: QuestSettings) -> QuestData:
    """The transactions ``settings`` describe; the same settings give the same lines."""
    settings.check()
    generator, uniform, drawn = _start(settings)
    itemsets, weights, corruption, covered = drawn.itemsets, drawn.weights, drawn.corruption, drawn.covered
    if covered < settings.min_length:
        raise ParameterError("min-length", f"{settings.min_length} is more than the {covered} items the "
                             f"large itemsets hold (seed {settings.seed}): raise --large-itemsets or "
                             "--large-itemset-size, or lower --min-length")
    if min(corruption) >= 1:
        raise ParameterError("corruption-mean", f"every large itemset's corruption level is 1 or more (seed "
                             f"{settings.seed}), so none adds an item: lower it or raise --corruption-variance")
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
        for _ in range(settings.large_itemsets):
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
            if dropped > max(1000, DROPS_PER_TRANSACTION * len(lines)):
                raise ParameterError("min-length", f"{settings.min_length} is seldom reached: {dropped} "
                                     f"transactions closed short of it while {len(lines)} reached it; lower "
                                     "it, or raise --large-itemsets, --large-itemset-size or --mean-length")
            continue
        ordered = sorted(transaction)
        used[ordered] = True
        lines.append(" ".join(map(str, ordered)))
    return QuestData(lines, int(used.sum()), dropped)


def _large_itemsets(generator: np.random.Generator, settings: QuestSettings) -> LargeItemsets:
    """The potential large itemsets, drawn as the module docstring says."""
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
    return LargeItemsets(itemsets, weights, corruption.tolist())
