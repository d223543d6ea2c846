"""Frequent itemsets for metrics, backed by pyfim (C. Borgelt's C implementations).

pyfim is a well-kept C miner: FP-growth, Eclat and Apriori in C with a Python API, fast on
both sparse (retail) and dense (connect) data, where a miner in Python would dominate every
metric's cost.

The number of frequent itemsets explodes when the support is low against the record lengths: at
a support of one transaction every subset of every record is frequent (2,000 records of
BMS-WebView-2 hold 23.5 million itemsets of at most 5 items), and pyfim returns them as one
Python list of tuples, about 200 bytes each. Callers that mine at a support a user chose pass a
``budget``: pyfim's pattern spectrum counts the itemsets first, in C and without listing them,
and :class:`MiningTooLarge` is raised instead of exhausting memory. Counting takes milliseconds
where perfect extensions let it count subsets by formula (12 records of 60 distinct items: 10^19
itemsets), and seconds on dense data (chess at a support of 10%: 4.6 billion itemsets, 15 s;
counting size by size to stop at the budget took as long, each size costing more than the last).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import fim
import numpy as np
import numpy.typing as npt

from .errors import SetveilError, counted, made_by_setveil
from .window import Window

#: most itemsets (or rules) a metric or a sampler may ask pyfim to list, about 200 bytes each
#: (23.5 million itemsets took 5 GB); it admits the 21.7 million rules BMS-WebView-1 can give at
#: 0.05%, Jia et al.'s rule experiment
ITEMSET_BUDGET = 25_000_000


class MiningTooLarge(SetveilError):
    """Mining would list more itemsets than the budget; names the counts, never an item, and
    ``advice``, what the command that met it lets its user do (the mining knows no option)."""

    exit_code = 2

    def __init__(self, count: float, budget: int, min_support: int, what: str = "itemsets", advice: str = "", *,
                 at_least: bool = False):
        self.count = count
        self.budget = budget
        self.min_support = min_support
        self.what = what
        # at_least: ``count`` is what the part counted holds, the rest left uncounted once past the budget
        self.at_least = at_least
        message = (f"mining at a support of {counted(min_support, 'transaction')} would list "
                   f"{'at least' if at_least else 'up to'} {count:,.0f} {what}, more than the budget of {budget:,}"
                   ) + (f": {advice}" if advice else "")
        super().__init__(message)
        self.words = made_by_setveil(message)  # a window that fails closed on it says so


def within_budget(count: int, budget: int, min_support: int, what: str = "itemsets", *, at_least: bool = False) -> int:
    """``count``, unless it is past ``budget``: then :class:`MiningTooLarge`, whose message the
    pipeline gives as a window's reason when setveil's own code called this (``what`` is the
    caller's text; ``at_least`` when ``count`` is a part of the whole)."""
    if count > budget:
        exc = MiningTooLarge(count, budget, min_support, what, at_least=at_least)
        exc.words = made_by_setveil(str(exc))  # judged by who called here, not by this module
        raise exc
    return count


def pyfim_rows(window: Window, items: npt.ArrayLike | None) -> list[list[int]]:
    """The transactions as pyfim reads them (lists of item ids, restricted to ``items``, a mask of
    the vocabulary), the empty transaction added: what :func:`itemset_spectrum` and
    :func:`itemset_arrays_of_rows` read."""
    ind, indptr = window.indices, window.indptr
    if items is not None:
        # the restriction in numpy, then the same slicing as without one
        keep = np.asarray(items, dtype=bool)[ind]
        ind = ind[keep]
        indptr = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])[indptr]
    flat, ptr = ind.tolist(), indptr.tolist()
    rows = [flat[start:stop] for start, stop in zip(ptr, ptr[1:])]
    # pyfim 6.28 never reports an itemset made only of items present in every transaction
    # (they are perfect extensions of the empty set); one empty transaction changes no
    # absolute support and makes it report them.
    rows.append([])
    return rows


def pattern_spectrum(rows: list[list[int]], min_support: int, max_size: int | None,
                     min_size: int = 1) -> list[tuple[int, int, float]]:
    """pyfim's pattern spectrum of ``rows``: ``(size, support, count)`` for every size and
    support that itemsets of support >= ``min_support`` have, counted in C, not listed (a float
    count, since counts can pass 2^63).

    Asked as a list (``report="="``): pyfim 6.28 builds the dictionary form (``"#"``) with
    ``PyDict_SetItem`` and never releases its own references, so each call leaked every key
    and count, about 600 bytes a window in a worker's checks (QA soak: +0.7-1.5 MiB/h)."""
    return _fpgrowth(rows, "s", min_support, max_size, min_size, report="=")


def _fpgrowth(rows: list[list[int]], target: str, min_support: int, max_size: int | None, min_size: int,
              report: str) -> list:
    """pyfim's FP-growth over ``rows``, for itemsets of ``min_size`` to ``max_size`` items: none
    when no size is within both bounds, since pyfim refuses a ``zmax`` below ``zmin`` and
    :func:`_zmax` raises it to ``zmin``, which would list the itemsets of ``min_size`` items."""
    if max_size is not None and max_size < min_size:
        return []
    return fim.fpgrowth(rows, target=target, supp=-max(1, int(min_support)), zmin=min_size,
                        zmax=_zmax(rows, max_size, min_size), report=report)


def _zmax(rows: list[list[int]], max_size: int | None, min_size: int) -> int:
    """pyfim's ``zmax`` for ``max_size``: no itemset is longer than the longest row, and pyfim
    takes a C long (QA: audit publish --max-size 2**63, which its option admits, ended in an
    OverflowError traceback); never below ``zmin``, which pyfim refuses."""
    longest = max(map(len, rows), default=0)
    return -1 if max_size is None else max(min_size, min(max_size, longest))


def itemset_spectrum(rows: list[list[int]], min_support: int, max_size: int | None, min_size: int = 1) -> dict[int, float]:
    """How many itemsets of each size have support >= ``min_support`` in ``rows``
    (:func:`pattern_spectrum` summed over the supports)."""
    sizes: dict[int, float] = {}
    for size, _, count in pattern_spectrum(rows, min_support, max_size, min_size):
        sizes[size] = sizes.get(size, 0.0) + float(count)
    return sizes


def _mine(window: Window, min_support: int, max_size: int | None, min_size: int, items: npt.ArrayLike | None,
          target: str, budget: int | None, by_size: bool, unordered: bool = False) -> list:
    frequent = window.supports >= max(1, int(min_support))
    if items is not None:
        frequent &= np.asarray(items, dtype=bool)
    rows = pyfim_rows(window, frequent if unordered else items)
    if budget is not None and target == "s":
        _counted_within(rows, min_support, max_size, min_size, budget, by_size, int(frequent.sum()),
                        longest=_longest(window, items))
    return _fpgrowth(rows, target, min_support, max_size, min_size, report="a")


def _longest(window: Window, items: npt.ArrayLike | None) -> int:
    """The most of ``items`` (all when None) a transaction holds: the sizes :func:`_counted_within`
    counts by, taken from the rows before they lose the infrequent items, so that a refusal says
    "at least" or "up to" the same number whether they were given or not."""
    if items is None:
        return int(window.lengths.max(initial=0))
    held = np.concatenate([[0], np.cumsum(np.asarray(items, dtype=bool)[window.indices], dtype=np.int64)])
    return int(np.diff(held[window.indptr]).max(initial=0))


def _counted_within(rows: list[list[int]], min_support: int, max_size: int | None, min_size: int, budget: int,
                    by_size: bool, frequent: int | None = None, *, longest: int) -> None:
    """:class:`MiningTooLarge` when the itemsets of ``rows`` number more than ``budget``. Counting
    takes time with what it counts: 50 records of 53-491 items (BMS-WebView-2's sessions joined)
    hold 434,727,586,880,295,075,840 itemsets at a support of 5, 55 s of CPU to count. ``by_size``
    counts those of at most 1, 2, 4, 8 ... items in turn and refuses (``at least``) as soon as a
    count passes the budget, or stops once a count holds no itemset more than the one before (none
    larger is frequent then): a few passes more for a window within the budget, for the callers
    that would rather pay them than an hour's count. Sizes whose itemsets of the ``frequent`` items
    (how many have the support) could not pass the budget were they all frequent are not counted:
    such a count refuses nothing (a window of 1,000 of retail holds a few dozen items of support 20).
    ``longest``, the most items a transaction holds, bounds the sizes."""
    support = max(1, int(min_support))
    if frequent is not None and _at_most(frequent, min_size, frequent if max_size is None else max_size,
                                         budget) <= budget:
        return
    if by_size:
        top = longest if max_size is None else min(max_size, longest)
        size, before = max(1, min_size), -1.0
        while size < top:
            if frequent is not None and _at_most(frequent, min_size, size, budget) <= budget:
                size *= 2
                continue
            _refuse_past_the_floor(support, longest, min_size, size, budget)
            counted = sum(itemset_spectrum(rows, min_support, size, min_size).values())
            if counted == before:
                return
            within_budget(int(counted), budget, support, at_least=True)
            before, size = counted, size * 2
        _refuse_past_the_floor(support, longest, min_size, top, budget)
    within_budget(int(sum(itemset_spectrum(rows, min_support, max_size, min_size).values())), budget, support)


def _refuse_past_the_floor(support: int, longest: int, min_size: int, max_size: int, budget: int) -> None:
    """:class:`MiningTooLarge` (``at least``) when ``support`` is one transaction and the longest
    record's own itemsets of ``min_size`` to ``max_size`` items, all frequent then, pass
    ``budget``: a floor found by arithmetic, where pyfim's count grows with the square of a
    record's length (QA: the pairs of one record of 200,000 items took a minute of CPU to count
    before sanitize's report, audit publish or patterns sample refused them)."""
    if support == 1:
        within_budget(_at_most(longest, min_size, max_size, budget), budget, support, at_least=True)


def _at_most(items: int, min_size: int, max_size: int, budget: int) -> int:
    """How many itemsets of ``min_size`` to ``max_size`` of ``items`` items there are, or a number
    past ``budget`` once the sizes summed pass it."""
    total = 0
    for size in range(max(1, min_size), min(max_size, items) + 1):
        total += math.comb(items, size)
        if total > budget:
            break
    return total


def frequent_itemsets(
    window: Window,
    min_support: int,
    *,
    max_size: int | None = None,
    min_size: int = 1,
    items: np.ndarray | None = None,
    target: str = "s",
    budget: int | None = None,
    by_size: bool = False,
) -> dict[frozenset[int], int]:
    """Itemsets of item ids with support >= ``min_support`` (an absolute count).

    ``items`` (boolean mask over ids) restricts mining to those items; ``target`` is pyfim's:
    ``s`` all frequent, ``c`` closed, ``m`` maximal. With a ``budget`` (target ``s``),
    :class:`MiningTooLarge` is raised before listing more itemsets than that; ``by_size`` counts
    them a few sizes at a time to refuse early (:func:`_counted_within`).
    """
    if len(window) == 0 or min_support > len(window):
        return {}
    result = _mine(window, min_support, max_size, min_size, items, target, budget, by_size)
    return {frozenset(itemset): int(count) for itemset, count in result}


def frequent_itemset_arrays(
    window: Window,
    min_support: int,
    *,
    max_size: int | None = None,
    min_size: int = 1,
    items: np.ndarray | None = None,
    target: str = "s",
    budget: int | None = None,
    by_size: bool = False,
    unordered: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The itemsets of :func:`frequent_itemsets` as CSR arrays ``(indptr, ids, supports)``:
    itemset j is ``ids[indptr[j]:indptr[j+1]]`` (unordered). No Python set per itemset, for
    callers that compare millions of them.

    ``unordered``, for a caller that sorts or counts what it is given: pyfim reads only the items
    frequent on their own, which every frequent itemset is made of, with the same support, where it
    read every occurrence in each counting pass and again to list them (retail at σ 1%: 70 of
    16,470 items, 26% of the occurrences; the audit's mining 0.42 -> 0.15 s of CPU). The itemsets
    then come in another order: pyfim's FP-growth orders the items by the summed lengths of the
    transactions that hold them, which the items left out shorten (on each of 861 random windows
    without ties in those sums, that order told whether the listing changed)."""
    if len(window) == 0 or min_support > len(window):
        return np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return _arrays(_mine(window, min_support, max_size, min_size, items, target, budget, by_size, unordered))


def itemset_arrays_of_rows(rows: list[list[int]], min_support: int,
                           max_size: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The frequent itemsets of 1 to ``max_size`` items that pyfim lists from ``rows`` as they are,
    as the CSR arrays of :func:`frequent_itemset_arrays`: for a caller that counted them with
    :func:`pattern_spectrum` on the same rows (restricted to the frequent items, the empty
    transaction added, as :func:`pyfim_rows` makes them) and need not build them again."""
    return _arrays(_fpgrowth(rows, "s", min_support, max_size, 1, report="a"))


def _arrays(result: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pyfim's list of ``(itemset, support)`` as CSR arrays ``(indptr, ids, supports)``."""
    lengths = np.fromiter((len(itemset) for itemset, _ in result), dtype=np.int64, count=len(result))
    indptr = np.zeros(len(result) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    ids = np.fromiter(itertools.chain.from_iterable(itemset for itemset, _ in result), dtype=np.int64,
                      count=int(indptr[-1]))
    supports = np.fromiter((count for _, count in result), dtype=np.int64, count=len(result))
    return indptr, ids, supports


def conditional_itemset_arrays(window: Window, min_support: int,
                               max_size: int | None) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The itemsets of :func:`frequent_itemset_arrays` (all frequent, of 1 to ``max_size`` items), a
    part at a time: for each frequent item i in turn, those whose first item is i in an order of the
    items by support (fewest first, then by id), i added to what pyfim lists from i's conditional
    database (Han et al.'s FP-growth): the transactions that hold i, restricted to the items after
    i, where every itemset's support is that of the itemset with i. pyfim lists each part as Python
    tuples, about 200 bytes an itemset, so only one part's are alive at a time (BMS-WebView-1 at
    0.05%: 230,314 of 4.5 million itemsets), for what mining each part from Python rows costs (the
    rows repeat each transaction's items after i for every i it holds: retail's 777,759 occurrences
    at 0.05% become 5.2 million, 1.4 s of CPU more than listing its 19,239 itemsets at once)."""
    if len(window) == 0 or min_support > len(window) or (max_size is not None and max_size < 1):
        return
    support = max(1, int(min_support))
    frequent = np.flatnonzero(window.supports >= support)
    order = frequent[np.lexsort((frequent, window.supports[frequent]))]
    position = np.full(len(window.supports), -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    held = position[window.indices]
    frequent_occurrence = held >= 0
    owner, held = window.owners()[frequent_occurrence], held[frequent_occurrence]
    sort = np.lexsort((held, owner))
    held, owner = held[sort], owner[sort]
    flat, ends = order[held].tolist(), np.searchsorted(owner, owner, side="right").tolist()
    by_item = np.argsort(held, kind="stable")
    starts = np.searchsorted(held[by_item], np.arange(len(order) + 1)).tolist()
    for rank, item in enumerate(order.tolist()):
        occurrences = by_item[starts[rank] : starts[rank + 1]].tolist()
        rows = [flat[at + 1 : ends[at]] for at in occurrences]
        yield _with_item(item, len(occurrences), _conditional(rows, support, max_size))


def _conditional(rows: list[list[int]], min_support: int, max_size: int | None) -> list:
    """What pyfim lists from a conditional database: its itemsets of 1 to ``max_size`` - 1 items, the
    empty transaction added as in :func:`pyfim_rows`."""
    if max_size == 1 or not any(rows):
        return []
    rows.append([])
    return _fpgrowth(rows, "s", min_support, None if max_size is None else max_size - 1, 1, report="a")


def _with_item(item: int, support: int, result: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CSR arrays of ``item`` alone (``support`` transactions) and of ``item`` added to each
    itemset of ``result``."""
    indptr, ids, supports = _arrays(result)
    return (np.concatenate([[0], indptr + np.arange(1, len(indptr) + 1)]),
            np.insert(ids, np.concatenate([[0], indptr[:-1]]), item),
            np.concatenate([[support], supports]))
