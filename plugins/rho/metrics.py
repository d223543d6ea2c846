"""Utility of a release (Jia et al. §2.2 and §4): info loss, symmetric K-L divergence of the
item distributions, and the Jaccard similarity of the association rules minable before and
after.

- info loss (§4): (Items(T) - Items(T')) / Items(T), which is the core's
  :func:`~setveil.core.metrics.suppressed_share` (S/N of Xu et al.).
- sensitive loss: the share of the sensitive items' occurrences deleted. Not one of the paper's
  measures, but what a release's reader of the sensitive items loses (its Figs. 2-4 show it for
  no policy; `setveil bench rho` gives it beside info loss).
- symmetric K-L divergence (§4.1): S(H1||H2) = ½ KL(H1||M) + ½ KL(H2||M) with H the item
  distribution (support over all occurrences) and M = (H1 + H2)/2, natural logarithm. The
  paper calls M "the union of distributions"; the mean is what keeps every ratio finite when
  an item vanishes from T'.
- rules (eq. 4-5): R(T) holds the rules X -> y with X non-empty, support of X ∪ {y} at least
  ``min_support`` of the transactions and confidence at least ``confidence`` (the paper uses
  ρ), mined by pyfim (C. Borgelt's C implementation), of at most ``max_size`` items: on data
  with long repeated records (BMS-WebView-1's robot sessions) the number of rules explodes with
  their size (21 million of 5 items at 0.05%). J = |R(T) ∩ R(T')| / |R(T) ∪ R(T')|, taken as 1
  when both sets are empty; a lost rule is in R(T) only, a spurious one in R(T') only. Rules
  are kept as sorted fixed-width keys, not Python objects, and are never listed as such: pyfim
  lists the frequent itemsets (4.5 million of at most 5 items on BMS-WebView-1, where they give
  18.6-21.7 million rules), and the rules X -> y are derived from them in numpy, supp(X) looked
  up among the itemsets of one item fewer and the confidence tested as pyfim's ``arules`` tests
  it, so that the keys are those of the rules ``arules`` lists (which took 4.1-4.8 GiB and
  38-52 s of CPU there, against 0.50-0.55 GiB and 9.7-10.9 s). pyfim lists the itemsets as
  Python tuples before they become arrays, a part at a time when they are many (the itemsets
  whose first item is i, from i's conditional database), and R(T) is bounded first: an itemset
  of z items gives at most z rules, and pyfim's pattern spectrum counts the itemsets without
  listing them. Above
  :data:`~setveil.core.mining.ITEMSET_BUDGET` rules :class:`~setveil.core.mining.MiningTooLarge`
  is raised (a small input at the default support of 0.05% is a support of one transaction,
  where every subset of every record is frequent). T' only loses items, so its rules at the
  same absolute support are bounded by T's.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Collection, Iterable, Iterator

import numpy as np

from setveil.core.mining import (ITEMSET_BUDGET, conditional_itemset_arrays, itemset_arrays_of_rows, itemset_spectrum,
                                 pyfim_rows, within_budget)
from setveil.core.window import Window

#: rows turned back into item ids at a time, so that the divisions' temporaries stay small
_SLICE = 1 << 20
#: how many rule or itemset keys an int64 holds (0 to 2^63 - 1); wider rows are kept as bytes
_CODES = 2 ** 63
#: itemsets of 2 items or more above which they are mined a part at a time: listed at once they take about 200
#: MB of Python tuples a million (BMS-WebView-1 at 0.05%: 4.5 million), mined a part at a time they cost what
#: repeating each transaction's items for each item it holds costs (retail: 19,239 itemsets, 1.4 s more)
_LISTED_AT_ONCE = 1_000_000
#: itemsets (or their keys) of one size, with their supports
Level = tuple[np.ndarray, np.ndarray]


def sensitive_loss(original: Window, release: Window, sensitive: Collection[str]) -> float:
    """The share of the occurrences of the ``sensitive`` labels in ``original`` that ``release``
    lacks; 0 when ``original`` holds none."""
    before = int(original.supports[original.vocab.mask(sensitive)].sum())
    after = int(release.supports[release.vocab.mask(sensitive)].sum())
    return 0.0 if before == 0 else (before - after) / before


def symmetric_kl(original: Window, release: Window) -> float:
    """S(H1||H2) of §4.1 between the item distributions of ``original`` and ``release``
    (which share a vocabulary). A window with no occurrence has no distribution: two such are
    at 0, and one against a distribution at ln 2, the divergence's bound, which two
    distributions with no item in common reach."""
    width = max(len(original.vocab), len(release.vocab))
    p = np.bincount(original.indices, minlength=width).astype(np.float64)
    q = np.bincount(release.indices, minlength=width).astype(np.float64)
    if p.sum() == 0 or q.sum() == 0:
        return 0.0 if p.sum() == q.sum() else float(np.log(2))
    p /= p.sum()
    q /= q.sum()
    mean = (p + q) / 2
    return 0.5 * _kl(p, mean) + 0.5 * _kl(q, mean)


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    held = p > 0
    return float(np.sum(p[held] * np.log(p[held] / q[held])))


def association_rules(window: Window, min_support: float, confidence: float, max_size: int | None,
                      budget: int | None = ITEMSET_BUDGET) -> np.ndarray:
    """R(T) as sorted, distinct keys: one row (head, body items ascending, -1 padding) per rule
    X -> y with support >= ``min_support`` (a share of the transactions, support of X ∪ {y}),
    confidence >= ``confidence`` and at most ``max_size`` items (None: any size).
    :class:`MiningTooLarge` when the rules could be more than ``budget``."""
    if len(window) == 0:
        return _rule_keys(np.zeros((0, 1), dtype=np.int32))
    rows, threshold = _rows(window, min_support)
    counted = _rules_bounded(rows, threshold, max_size, budget) if budget is not None else itemset_spectrum(
        rows, threshold, max_size, 2)
    items = np.flatnonzero(window.supports >= threshold)
    levels = _levels(items, counted, _itemsets(window, rows, threshold, max_size, sum(counted.values())))
    top = max(levels, default=0)
    if top < 2:
        return _rule_keys(np.zeros((0, 1), dtype=np.int32))
    found, width = _rule_codes(levels, _pyfim_bar(confidence), top, len(items) + 1)
    return _id_keys(found, top, width, len(items) + 1, items)


def _pyfim_bar(confidence: float) -> float:
    """The bar of pyfim's own confidence test, which the rules reproduce: given the confidence in
    percent, pyfim keeps X -> y when supp(X ∪ {y}) >= supp(X) * bar, bar being the percent / 100
    times 1 - DBL_EPSILON, in doubles. Neither supp/supp(X) >= confidence nor exact fractions
    agree with it: 7,233 of 10,000 is not kept at 0.7233 (72.33000000000001%) while 923 of 1,000
    is at 0.923; this bar agreed with pyfim on 40,000 such ratios at their boundaries."""
    return ((100.0 * confidence) / 100) * (1 - sys.float_info.epsilon)


def _itemsets(window: Window, rows: list[list[int]], threshold: int, max_size: int | None,
              counted: float) -> Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The frequent itemsets as CSR arrays: listed at once from ``rows`` while pyfim's tuples of the
    ``counted`` itemsets of 2 items or more stay small, else a part at a time from conditional
    databases."""
    if counted > _LISTED_AT_ONCE:
        return conditional_itemset_arrays(window, threshold, max_size)
    return [itemset_arrays_of_rows(rows, threshold, max_size)]


def _levels(items: np.ndarray, counted: dict[int, float],
            parts: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> dict[int, Level]:
    """The frequent itemsets by size, from ``parts`` of them as CSR arrays: ``levels[z]`` holds those
    of z items as rows of their items' ranks among ``items``, the frequent items ascending (int32,
    ascending along a row), with their supports. Each size's arrays are made at once, as large as
    pyfim's spectrum ``counted`` (the singletons are the items), and filled part by part, where
    parts kept to be joined at the end held the itemsets twice and left the heap in holes: with
    them rule_comparison of BMS-WebView-1 and a release peaked at 873,048 KB RSS, 727,120 so."""
    rank = np.zeros(int(items.max(initial=-1)) + 1, dtype=np.int32)
    rank[items] = np.arange(len(items), dtype=np.int32)
    levels = {size: (np.empty((int(count), size), dtype=np.int32), np.empty(int(count), dtype=np.int64))
              for size, count in ({1: len(items)} | counted).items() if count}
    filled = dict.fromkeys(levels, 0)
    for indptr, ids, supports in parts:
        sizes = np.diff(indptr)
        for size in np.unique(sizes).tolist():
            chosen = np.flatnonzero(sizes == size)
            at, ranks, held = filled[size], *levels[size]
            ranks[at : at + len(chosen)] = rank[ids[indptr[chosen, None] + np.arange(size)]]
            held[at : at + len(chosen)] = supports[chosen]
            filled[size] += len(chosen)
    for ranks, _ in levels.values():
        ranks.sort(axis=1)
    # the slices change nothing while the spectrum counts what pyfim lists, as it does
    return {size: (ranks[: filled[size]], held[: filled[size]]) for size, (ranks, held) in sorted(levels.items())}


def _rule_codes(levels: dict[int, Level], bar: float, top: int, base: int) -> tuple[list[np.ndarray], int]:
    """The :func:`_keys` of ``top`` columns of the rules of every size, in parts, and how many
    columns the longest rule fills. Each level is dropped from ``levels`` once its rules and the
    lookup of the next size are made, so that the itemsets and the rule keys are not all held
    together."""
    found, width = [], 1
    below = _lookup(*levels.pop(1), base)
    for size in range(2, top + 1):
        level = levels.pop(size)
        for keys in _level_rules(*level, below, bar, top, base):
            found.append(keys)
            width = size if len(keys) else width
        if size < top:
            below = _lookup(*level, base)
    return found, width


def _lookup(ranks: np.ndarray, supports: np.ndarray, base: int) -> Level:
    """The itemsets of one size as sorted keys, with their supports in that order."""
    keys = _keys(ranks, ranks.shape[1], base)
    order = np.argsort(keys)
    return keys[order], supports[order]


def _level_rules(ranks: np.ndarray, supports: np.ndarray, below: Level, bar: float, top: int,
                 base: int) -> Iterator[np.ndarray]:
    """Keys, of ``top`` columns, of the rules X -> y of the itemsets of one size (``ranks``, with
    their ``supports``), one head position at a time: those that pass pyfim's test of confidence,
    supp(X) looked up in ``below``, the itemsets of one item fewer (every subset of a frequent
    itemset is frequent)."""
    known, known_supports = below
    for head in range(ranks.shape[1]):
        body = np.delete(ranks, head, axis=1)
        held = supports >= known_supports[np.searchsorted(known, _keys(body, body.shape[1], base))] * bar
        yield _keys(np.column_stack((ranks[held, head], body[held])), top, base)


def _keys(ranks: np.ndarray, width: int, base: int) -> np.ndarray:
    """Rows of ranks as keys that sort as the rows do, padded to ``width`` columns with the rank
    ``base - 1``, which sorts last as pyfim's keys' -1 does: one int64 per row in base ``base``
    while the rows fit (5 columns of up to 6,207 frequent items: retail has 3,926 at 0.05%), else
    the rows' big-endian bytes, which numpy searched 4 times slower (19 million in 600,000)."""
    if base ** width <= _CODES:
        codes = np.zeros(len(ranks), dtype=np.int64)
        for column in range(width):
            codes *= base
            codes += ranks[:, column] if column < ranks.shape[1] else base - 1
        return codes
    table = np.full((len(ranks), width), base - 1, dtype=">i4")
    table[:, : ranks.shape[1]] = ranks
    return table.view(np.dtype((np.void, 4 * width))).ravel()


def _id_keys(found: list[np.ndarray], top: int, width: int, base: int, items: np.ndarray) -> np.ndarray:
    """The keys :func:`_rule_keys` makes of the rules whose :func:`_keys` of ``top`` columns are
    the parts ``found`` (emptied here): sorted (each rule was found once, so they are distinct),
    turned back into item ids, -1 for the padding, and cut to ``width`` columns, a slice of rows
    at a time. int64 keys are sorted inside the table's own memory (:func:`_sorted_at_the_end`),
    which holds them while it is written from its start, where they were a copy as large as a
    third of the table (BMS-WebView-1 at 0.05%: 173 MB beside 432)."""
    count = sum(map(len, found))
    ids = np.append(items, -1)
    memory = np.empty(4 * width * count + 8, dtype=np.uint8)
    keys = _sorted_at_the_end(memory, found) if found[0].dtype == np.int64 else np.sort(np.concatenate(found))
    table = memory[: 4 * width * count].view(">i4").reshape(count, width)
    for start in range(0, count, _SLICE):
        part = keys[start : start + _SLICE]
        if part.dtype != np.int64:
            table[start : start + _SLICE] = ids[part.view(">i4").reshape(len(part), top)[:, :width]]
            continue
        for column in reversed(range(top)):
            part, digit = np.divmod(part, base)
            if column < width:
                table[start : start + _SLICE, column] = ids[digit]
    return memory[: 4 * width * count].view(np.dtype((np.void, 4 * width)))


def _sorted_at_the_end(memory: np.ndarray, found: list[np.ndarray]) -> np.ndarray:
    """The int64 keys of the parts ``found``, sorted, in the last 8-byte-aligned bytes of the
    table's ``memory`` (its rows and 8 bytes more), each part dropped once copied. A rule's row
    takes 4 bytes a column, at least 2, so the rows written before the key of rule r end before
    that key starts: each slice of rows lands on keys already read."""
    count = sum(map(len, found))
    start = (len(memory) - 8 * count) // 8 * 8
    keys = memory[start : start + 8 * count].view(np.int64)
    at = 0
    while found:
        part = found.pop(0)
        keys[at : at + len(part)] = part
        at += len(part)
    keys.sort()
    return keys


def rules_within_budget(window: Window, min_support: float, max_size: int | None) -> None:
    """:class:`MiningTooLarge` when :func:`association_rules` would refuse ``window``. A window
    made from it by deleting items has no more rules to bound, so a benchmark can settle every
    run's mining from the original before it runs any."""
    if len(window):
        rows, threshold = _rows(window, min_support)
        _rules_bounded(rows, threshold, max_size, ITEMSET_BUDGET)


def _rows(window: Window, min_support: float) -> tuple[list[list[int]], int]:
    """pyfim's transactions and the absolute support threshold of ``min_support``: the rows hold
    only the items of that support, the only ones a frequent itemset holds (the same itemsets and
    supports, and at a support of one transaction every item), so that pyfim reads no more and
    the same rows serve the count and the listing."""
    threshold = max(1, math.ceil(min_support * len(window) - 1e-9))
    return pyfim_rows(window, window.supports >= threshold), threshold


def _rules_bounded(rows: list[list[int]], threshold: int, max_size: int | None, budget: int) -> dict[int, float]:
    """:class:`MiningTooLarge` when the rules could be more than ``budget``: at most one per item
    of each itemset of 2 items or more with support >= ``threshold``, as pyfim's spectrum counts
    them; returns those itemsets' counts by size. Counting takes time with what it counts, and at
    a support of one transaction (every window of fewer than 2,000 transactions at the default
    rule_support) every subset of every record is such an itemset: 50 records of 53-491 items
    (BMS-WebView-2's sessions joined) hold 4,976,232,694,704 rules at sizes 2 to 5, which took
    over 8 minutes to count. There the longest record's own subsets, its pairs, then its triples
    and so on, are a floor found by arithmetic, and the rules are refused (``at least``) as soon as
    that floor passes the budget, before any counting; otherwise every size is counted in one pass,
    as at a higher support (counting them one size at a time cost retail's windows of 1,000 2.5
    times as much)."""
    if threshold == 1:
        longest = max(map(len, rows), default=0)
        top = longest if max_size is None else min(max_size, longest)
        floor = 0
        for size in range(2, top + 1):
            floor += size * math.comb(longest, size)
            if floor > budget:
                break
        within_budget(floor, budget, threshold, "rules", at_least=True)
    counted = itemset_spectrum(rows, threshold, max_size, 2)
    within_budget(int(sum(size * count for size, count in counted.items())), budget, threshold, "rules")
    return counted


def _rule_keys(table: np.ndarray) -> np.ndarray:
    return np.unique(np.ascontiguousarray(table, dtype=">i4").view(np.dtype((np.void, 4 * table.shape[1]))).ravel())


def compare_rules(before: np.ndarray, after: np.ndarray) -> dict[str, float | int]:
    """Jaccard similarity of two rule sets from :func:`association_rules`, with the lost and
    spurious rules."""
    width = max(before.dtype.itemsize, after.dtype.itemsize)
    common = _common(_widen(before, width), _widen(after, width))
    union = len(before) + len(after) - common
    return {
        "rules_original": len(before),
        "rules_release": len(after),
        "rules_common": common,
        "rules_lost": len(before) - common,
        "rules_spurious": len(after) - common,
        "rules_jaccard": 1.0 if union == 0 else common / union,
    }


def _common(before: np.ndarray, after: np.ndarray) -> int:
    """How many keys two sorted arrays of distinct keys share: each key of the shorter searched in
    the longer, a slice at a time, where np.intersect1d sorted a copy of both together
    (BMS-WebView-1 at ρ 0.7: 21.3 and 4.2 million keys of 20 bytes, 6.0 s of CPU and a copy of
    509 MB, against 0.6 s)."""
    short, long = sorted((before, after), key=len)
    if len(long) == 0:
        return 0
    common = 0
    for start in range(0, len(short), _SLICE):
        part = short[start : start + _SLICE]
        at = np.minimum(np.searchsorted(long, part), len(long) - 1)
        common += int(np.count_nonzero(long[at] == part))
    return common


def _widen(keys: np.ndarray, width: int) -> np.ndarray:
    """Keys padded (with -1 items) to ``width`` bytes, so keys of two tables compare."""
    if keys.dtype.itemsize == width:
        return keys
    table = np.full((len(keys), width // 4), -1, dtype=">i4")
    table[:, : keys.dtype.itemsize // 4] = keys.view(">i4").reshape(len(keys), keys.dtype.itemsize // 4)
    return table.view(np.dtype((np.void, width))).ravel()


def rule_comparison(original: Window, release: Window, min_support: float, confidence: float,
                    max_size: int | None) -> dict[str, float | int]:
    before = association_rules(original, min_support, confidence, max_size)
    return compare_rules(before, association_rules(release, min_support, confidence, max_size))
