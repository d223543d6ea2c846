"""The independent check of ρ-uncertainty (Jia et al. §2.1) and of "only deletions".

A release T' is safe when conf(q -> e) = sup(q ∪ {e}) / sup(q) <= ρ for every qid q (an
itemset drawn from a record of T', the empty one included, |q| <= qid_size) and every
sensitive e ∉ q. The check is exhaustive through one equivalence: if q -> e is unsafe, so
is g -> e for a smallest g ⊆ q with sup(g) = sup(q) (g is free: each proper subset has a
larger support; C(g) = C(q) and e ∉ g). So it suffices to check the free qids, and only those
drawn from records that hold a sensitive item outside them (otherwise sup(q ∪ {e}) = 0).
Free itemsets are closed under subsets, so they are enumerated level by level from such
records, a (j+1)-subset only when its j-subsets are free with support >= 2.

This module shares no code or state with the anonymizer: it rebuilds everything from the
release, keeps exact covers as sorted record lists, tests membership by binary search on
the sorted (record, item) keys of the release and counts consequents by sorting.

``qid_size`` "all" means every qid size; no qid longer than the longest record minus one can
have a consequent outside it, so that is the size checked, provided the sensitive records
have at most ``ALL_SUBSETS_BUDGET`` subsets in all. Beyond that the check refuses (a
violation) rather than check less than promised.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from setveil.core.arrays import concat_ranges, in_sorted
from setveil.core.model import Violation
from setveil.core.verify import added_occurrences, on_one_vocabulary, shape_violation
from setveil.core.window import Window

from .itemsets import itemset_keys, lookup

ALL_SUBSETS_BUDGET = 1 << 22


def all_qids_size(window: Window, sensitive: np.ndarray) -> int | None:
    """The qid size that "all" amounts to on ``window``, or None when its sensitive records
    have more than ``ALL_SUBSETS_BUDGET`` subsets."""
    lengths = window.lengths
    holds = np.bincount(window.owners()[sensitive[window.indices]], minlength=len(window)) > 0
    sizes = lengths[holds]
    if len(sizes) == 0:
        return 0
    if int(sizes.max()) >= 62 or float(np.sum(np.exp2(sizes.astype(np.float64)))) > ALL_SUBSETS_BUDGET:
        return None
    return max(int(lengths.max()) - 1, 0)


def rho_violations(
    original: Window, release: Window, sensitive_labels: frozenset[str], rho: float, qid_size: int | str, limit: int = 100
) -> Iterator[Violation]:
    problem = shape_violation(original, release)
    if problem is not None:
        yield problem
        return
    original, release = on_one_vocabulary(original, release)
    yield from added_occurrences(original, release)
    sensitive = original.vocab.mask(sensitive_labels)
    if qid_size == "all":
        size = all_qids_size(original, sensitive)
        if size is None:
            yield Violation(
                "unverifiable",
                f"qid_size=all needs every subset of every sensitive record, more than {ALL_SUBSETS_BUDGET} here; "
                "give a numeric qid_size",
            )
            return
    else:
        size = int(qid_size)
    found = 0
    for violation in _unsafe_rules(release, sensitive, rho, size):
        yield violation
        found += 1
        if found >= limit:
            yield Violation("more", f"stopped after {limit} unsafe rules; there may be more")
            return


class _Release:
    """The release as sorted (record, item) keys with exact tidlists."""

    def __init__(self, window: Window, sensitive: np.ndarray):
        self.window = window
        self.n = len(window)
        self.width = len(window.vocab)
        self.owner = window.owners()
        self.keys = self.owner * self.width + window.indices
        self.sup = window.supports
        self.sensitive = sensitive
        self.nsens = np.bincount(self.owner[sensitive[window.indices]], minlength=self.n)

    def holds(self, rows: np.ndarray, items: np.ndarray) -> np.ndarray:
        wanted = rows * self.width + items
        return in_sorted(wanted, self.keys)

    def consequents(self, owner: np.ndarray, rows: np.ndarray, exclude: np.ndarray):
        """For covers given as (qid index, record) pairs: (qid, sensitive item, count) triples
        with the item outside the qid's items ``exclude[qid]``."""
        ptr = self.window.indptr
        lengths = ptr[rows + 1] - ptr[rows]
        items = self.window.indices[concat_ranges(ptr[rows], ptr[rows + 1])]
        who = np.repeat(owner, lengths)
        keep = self.sensitive[items]
        who, items = who[keep], items[keep]
        if exclude.shape[1]:
            outside = ~(exclude[who] == items[:, None]).any(axis=1)
            who, items = who[outside], items[outside]
        key, count = np.unique(who * self.width + items, return_counts=True)
        return key // self.width, key % self.width, count


def _unsafe_rules(window: Window, sensitive: np.ndarray, rho: float, size: int) -> Iterator[Violation]:
    data = _Release(window, sensitive)
    n = data.n
    if n == 0:
        return
    labels = window.vocab.label
    for e in np.flatnonzero(sensitive & (data.sup > rho * n)).tolist():
        yield _violation((), e, int(data.sup[e]), n, rho, labels)
    if size < 1:
        return
    # level 1: items that are free (rarer than the empty qid) and held by a record with another
    # sensitive item; their covers are the tidlists of the release
    ind = window.indices
    other = data.nsens[data.owner] - sensitive[ind] >= 1
    items = np.unique(ind[other])
    items = items[data.sup[items] < n]
    inv_ptr, inv_rows = window.inverted
    sets = items[:, None]
    cover_ptr = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(data.sup[items], out=cover_ptr[1:])
    cover_rows = inv_rows[concat_ranges(inv_ptr[items], inv_ptr[items + 1])]
    sup = data.sup[items]
    yield from _level_violations(data, sets, sup, cover_ptr, cover_rows, rho, labels)
    # instances: (record, qid index) for extendable qids, in records with a sensitive item
    # outside the qid
    level_of_item = np.full(data.width, -1, dtype=np.int64)
    level_of_item[items] = np.arange(len(items))
    ext = sup >= 2
    inst_rows = data.owner[other]
    inst_qid = level_of_item[ind[other]]
    keep = inst_qid >= 0
    keep[keep] = ext[inst_qid[keep]]
    inst_rows, inst_qid = inst_rows[keep], inst_qid[keep]
    for _ in range(1, size):
        step = _next_level(data, sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid)
        if step is None:
            return
        sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid, free = step
        yield from _level_violations(data, sets[free], sup[free], *_sub_covers(cover_ptr, cover_rows, free), rho, labels)


def _next_level(data: _Release, sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid):
    """Level j+1 from level j: extend each instance by a later item of its record."""
    width = data.width
    ptr = data.window.indptr
    last = sets[inst_qid, -1]
    after = np.searchsorted(data.keys, inst_rows * width + last) + 1
    stops = ptr[inst_rows + 1]
    positions = concat_ranges(after, stops)
    parent = np.repeat(np.arange(len(inst_rows), dtype=np.int64), stops - after)
    new_item = data.window.indices[positions]
    rows = inst_rows[parent]
    cand = np.concatenate([sets[inst_qid[parent]], new_item[:, None]], axis=1)
    keep = data.nsens[rows] - data.sensitive[cand].sum(axis=1) >= 1
    cand, rows, parent = cand[keep], rows[keep], parent[keep]
    if len(cand) == 0:
        return None
    j = sets.shape[1]
    level_keys = itemset_keys(sets, width)
    order = np.argsort(level_keys, kind="stable")
    sorted_keys = level_keys[order]
    uniq, first, inverse = np.unique(itemset_keys(cand, width), return_index=True, return_inverse=True)
    distinct = cand[first]
    sub_sup = np.empty((len(distinct), j + 1), dtype=np.int64)
    sub_index = np.empty((len(distinct), j + 1), dtype=np.int64)
    complete = np.ones(len(distinct), dtype=bool)
    for drop in range(j + 1):
        sub = np.delete(distinct, drop, axis=1)
        at = lookup(sorted_keys, itemset_keys(sub, width))
        index = order[np.maximum(at, 0)]
        complete &= (at >= 0) & ext[index]
        sub_sup[:, drop] = sup[index]
        sub_index[:, drop] = index
    distinct, sub_sup, sub_index, uniq = distinct[complete], sub_sup[complete], sub_index[complete], uniq[complete]
    renumber = np.cumsum(complete) - 1
    inst_keep = complete[inverse]
    inst_rows, inst_qid = rows[inst_keep], renumber[inverse[inst_keep]]
    if len(distinct) == 0:
        return None
    if j == 1:
        owner, members = _pair_covers(data, uniq)
    else:
        # exact covers: the cover of the rarest j-subset, filtered by the item it lacks
        drop = np.argmin(sub_sup, axis=1)
        picked = np.arange(len(distinct))
        parent_qid, lacking = sub_index[picked, drop], distinct[picked, drop]
        starts, stops = cover_ptr[parent_qid], cover_ptr[parent_qid + 1]
        members = cover_rows[concat_ranges(starts, stops)]
        owner = np.repeat(picked, stops - starts)
        hit = data.holds(members, lacking[owner])
        owner, members = owner[hit], members[hit]
    new_sup = np.bincount(owner, minlength=len(distinct)).astype(np.int64)
    new_ptr = np.zeros(len(distinct) + 1, dtype=np.int64)
    np.cumsum(new_sup, out=new_ptr[1:])
    free = new_sup < sub_sup.min(axis=1)
    new_ext = free & (new_sup >= 2)
    keep = new_ext[inst_qid]
    return distinct, new_sup, new_ext, new_ptr, members, inst_rows[keep], inst_qid[keep], free


def _pair_covers(data: _Release, keys: np.ndarray, slice_pairs: int = 1 << 22):
    """(pair index, record) for every record holding one of the pairs with sorted ``keys``:
    the pairs of every record are listed (a slice of records at a time), as most pairs are far
    rarer than either of their items."""
    window = data.window
    lengths = window.lengths
    load = np.cumsum(lengths * (lengths - 1) // 2)
    owners, members = [], []
    start = 0
    while start < data.n:
        stop = max(start + 1, int(np.searchsorted(load, (load[start - 1] if start else 0) + slice_pairs, side="right")))
        lo, hi = window.indptr[start], window.indptr[min(stop, data.n)]
        position = np.arange(lo, hi, dtype=np.int64)
        ends = window.indptr[data.owner[lo:hi] + 1]
        second = concat_ranges(position + 1, ends)
        first = np.repeat(position, ends - position - 1)
        pairs = np.stack([window.indices[first], window.indices[second]], axis=1)
        at = lookup(keys, itemset_keys(pairs, data.width))
        hit = at >= 0
        owners.append(at[hit])
        members.append(data.owner[first[hit]])
        start = stop
    owner, member = np.concatenate(owners), np.concatenate(members)
    order = np.lexsort((member, owner))
    return owner[order], member[order]


def _sub_covers(cover_ptr, cover_rows, chosen):
    ids = np.flatnonzero(chosen)
    starts, stops = cover_ptr[ids], cover_ptr[ids + 1]
    ptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(stops - starts, out=ptr[1:])
    return ptr, cover_rows[concat_ranges(starts, stops)]


def _level_violations(data: _Release, sets, sup, cover_ptr, cover_rows, rho, labels) -> Iterator[Violation]:
    owner = np.repeat(np.arange(len(sets), dtype=np.int64), np.diff(cover_ptr))
    qid, item, count = data.consequents(owner, cover_rows, sets)
    bad = count > rho * sup[qid]
    for q, e, k in zip(qid[bad].tolist(), item[bad].tolist(), count[bad].tolist()):
        yield _violation(tuple(sets[q].tolist()), e, k, int(sup[q]), rho, labels)


def _violation(qid: tuple[int, ...], e: int, k: int, s: int, rho: float, labels) -> Violation:
    return Violation(
        "rho",
        f"a qid of {len(qid)} item(s) infers a sensitive item with confidence {k}/{s} > rho={rho}",
        tuple(labels(i) for i in qid),
        target=labels(e),
    )
