"""The independent check of ρ-uncertainty (Jia et al. §2.1) and of "only deletions".

A release T' is safe when conf(q -> e) = sup(q ∪ {e}) / sup(q) <= ρ for every qid q (an
itemset drawn from a record of T', the empty one included, |q| <= qid_size) and every
sensitive e ∉ q. The check is exhaustive through one equivalence: if q -> e is unsafe, so
is g -> e for a smallest g ⊆ q with sup(g) = sup(q) (g is free: each proper subset has a
larger support; C(g) = C(q) and e ∉ g). So it suffices to check the free qids, and only those
drawn from records that hold a sensitive item outside them (otherwise sup(q ∪ {e}) = 0).
Free itemsets are closed under subsets, so they are enumerated level by level from such
records, a (j+1)-subset only when its j-subsets are free with support >= 2.

This module shares no state with the anonymizer and none of its algorithm: it rebuilds
everything from the release, keeps exact covers as sorted record lists, tests membership by
binary search on the sorted (record, item) keys of the release and counts consequents by
sorting. The one code both use is :mod:`.itemsets`' sortable keys of itemsets, so a fault there
would mislead both at once: the keys have tests of their own (tests/rho/test_large_data_paths.py)
and the check is tested against a literal reference that scans records (tests/rho/rho_reference.py).

``qid_size`` "all" means every qid size; no qid longer than the longest released record minus
one can have a consequent outside it, so that is the size checked, provided the released records
holding a sensitive item have at most ``ALL_SUBSETS_BUDGET`` subsets in all (sized on the
release, not the original: a qid the release's records do not hold has no support, and a release
that suppressed enough is checked where its original could not be). Beyond that the check raises
:class:`ParameterError` (``verify`` exits 2, a window fails closed) rather than check less
than promised.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from setveil.core.arrays import as_ids, concat_ranges, id_dtype, in_sorted, joined, sorted_unique
from setveil.core.errors import ParameterError, counted
from setveil.core.model import Violation
from setveil.core.share import Share
from setveil.core.verify import suppression_basics
from setveil.core.window import Window

from .itemsets import decode_keys, itemset_keys, lookup

ALL_SUBSETS_BUDGET = 1 << 22
# records (or extensions) handled at once: bounds the check's memory, a few arrays of 8 bytes
# each (a BMS-WebView-1 window of 1,000 peaked at 55 MB extending its pairs at 2^21, 25 at 2^17)
SLICE = 1 << 17
# candidate qids of 3 and more items counted at once
CHUNK = 1 << 14


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
    aligned = yield from suppression_basics(original, release)
    if aligned is None:
        return
    original, release = aligned
    sensitive = original.vocab.mask(sensitive_labels)
    if qid_size == "all":
        size = all_qids_size(release, sensitive)
        if size is None:
            # not a violation: `verify` said "FAILS rho" (exit 1) of a release it never checked (QA)
            refused = ParameterError("qid_size", f"all needs every subset of every record holding a sensitive item, "
                                     f"more than {ALL_SUBSETS_BUDGET:,} here, so the release is not checked; give a "
                                     "numeric qid_size")
            refused.words = str(refused)  # setveil's own, counts only: a window failed closed on it may say so
            raise refused
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
        self.row_dtype = id_dtype(self.n)
        held = sensitive[window.indices]
        self.nsens = np.bincount(self.owner[held], minlength=self.n)
        self.sens_ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.nsens, out=self.sens_ptr[1:])
        self.sens_items = window.indices[held]
        ptr, ind = window.indptr.tolist(), window.indices
        first: dict[bytes, int] = {}
        self.first_of_kind = np.array(
            [first.setdefault(ind[a:b].tobytes(), row) == row for row, (a, b) in enumerate(zip(ptr, ptr[1:]))], dtype=bool
        )

    def holds(self, rows: np.ndarray, items: np.ndarray) -> np.ndarray:
        wanted = rows.astype(np.int64) * self.width + items
        return in_sorted(wanted, self.keys)

    def consequents(self, owner: np.ndarray, rows: np.ndarray, exclude: np.ndarray):
        """For covers given as (qid index, record) pairs: (qid, sensitive item, count) triples
        with the item outside the qid's items ``exclude[qid]``."""
        starts, stops = self.sens_ptr[rows], self.sens_ptr[rows + 1]
        items = self.sens_items[concat_ranges(starts, stops)]
        who = np.repeat(owner, stops - starts)
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
    share = Share.of(rho)
    for e in np.flatnonzero(sensitive & share.exceeded(data.sup, n)).tolist():
        yield _violation((), e, int(data.sup[e]), n, rho, labels)
    if size < 1:
        return
    # level 1: items that are free (rarer than the empty qid) and held by a record with another
    # sensitive item; their covers are the tidlists of the release
    ind = window.indices
    other = data.nsens[data.owner] - sensitive[ind] >= 1
    items = sorted_unique(ind[other])
    items = items[data.sup[items] < n]
    inv_ptr, inv_rows = window.inverted
    sets = items[:, None]
    cover_ptr = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(data.sup[items], out=cover_ptr[1:])
    cover_rows = _Rows([inv_rows[concat_ranges(inv_ptr[items], inv_ptr[items + 1])].astype(data.row_dtype)])
    sup = data.sup[items]
    yield from _level_violations(data, sets, sup, cover_ptr, cover_rows, rho, labels)
    # instances: (record, qid index) for extendable qids, in the first of each group of
    # identical records (the others give the same qids) with a sensitive item outside the qid
    level_of_item = np.full(data.width, -1, dtype=np.int64)
    level_of_item[items] = np.arange(len(items))
    ext = sup >= 2
    inst_rows = data.owner[other]
    inst_qid = level_of_item[ind[other]]
    keep = (inst_qid >= 0) & data.first_of_kind[inst_rows]
    keep[keep] = ext[inst_qid[keep]]
    inst_rows, inst_qid = inst_rows[keep].astype(data.row_dtype), as_ids(inst_qid[keep], len(items))
    pairs = None
    for j in range(1, size):
        if j > 1 and j + 1 == size:
            yield from _last_level_violations(data, sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid, pairs,
                                              rho, labels)
            return
        step = _next_level(data, sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid, pairs, last=j + 1 == size)
        if step is None:
            return
        sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid, free = step
        if j == 1:
            # every pair inside an extendable free itemset is an extendable free pair
            pairs = itemset_keys(sets[ext], data.width)
        yield from _level_violations(data, sets[free], sup[free], *_sub_covers(cover_ptr, cover_rows, free), rho, labels)


def _next_level(data: _Release, sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid, pairs, last: bool):
    """Level j+1 from level j: each instance extended by a later item of its record, a slice at
    a time, each slice's distinct candidates kept as keys."""
    found = _candidates(data, sets, inst_rows, inst_qid, pairs, last)
    if found is None:
        return None
    distinct_keys, instance_keys, instance_rows = found
    counted = list(_counted_chunks(data, distinct_keys, sets, sup, ext, cover_ptr, cover_rows))
    distinct_keys, distinct, new_sup, free = (joined([part[i] for part in counted]) for i in (0, 1, 2, 4))
    members = _Rows([rows for part in counted for rows in part[3].parts])
    del counted
    if len(distinct) == 0:
        return None
    new_ptr = np.zeros(len(distinct) + 1, dtype=np.int64)
    np.cumsum(new_sup, out=new_ptr[1:])
    new_ext = free & (new_sup >= 2)
    if last:
        return distinct, new_sup, new_ext, new_ptr, members, None, None, free
    # the next level's instances: those of extendable candidates, slice by slice, each slice of
    # this level's dropped once read (held through the next level's, they set the check's peak)
    next_rows, next_qid = [], []
    while instance_keys:
        keys, rows = instance_keys.pop(0), instance_rows.pop(0)
        at = lookup(distinct_keys, keys)
        keep = at >= 0
        keep[keep] = new_ext[at[keep]]
        next_rows.append(rows[keep])
        next_qid.append(as_ids(at[keep], len(distinct)))
    return distinct, new_sup, new_ext, new_ptr, members, np.concatenate(next_rows), np.concatenate(next_qid), free


def _last_level_violations(data: _Release, sets, sup, ext, cover_ptr, cover_rows, inst_rows, inst_qid, pairs, rho,
                           labels) -> Iterator[Violation]:
    """The unsafe rules of the last level (of 3 items or more), a slice of covers at a time: its
    covers serve its own rules alone, so each slice's free qids are checked and dropped before
    the next slice is counted, where the level was held whole, twice over as its slices were
    joined (on connect's first 10,000: 23.5 million cover rows, the check's peak). Chunks and
    slices come in key order, the joined level's order, so the violations do too."""
    found = _candidates(data, sets, inst_rows, inst_qid, pairs, last=True)
    if found is None:
        return
    distinct_keys = found[0]
    sorted_keys, order = _sorted_level(sets, data.width)
    for lo in range(0, len(distinct_keys), CHUNK):
        _, distinct, sub_sup, sub_index = _complete(data, distinct_keys[lo : lo + CHUNK], sets.shape[1], sorted_keys,
                                                    order, sup, ext)
        below = sub_sup.min(axis=1)
        for start, stop, new_sup, members in _covers_slices(data, distinct, sub_sup, sub_index, cover_ptr, cover_rows):
            free = new_sup < below[start:stop]
            new_ptr = np.zeros(int(free.sum()) + 1, dtype=np.int64)
            np.cumsum(new_sup[free], out=new_ptr[1:])
            yield from _level_violations(data, distinct[start:stop][free], new_sup[free], new_ptr, _Rows([members]),
                                         rho, labels)


def _candidates(data: _Release, sets, inst_rows, inst_qid, pairs, last: bool):
    """(sorted distinct keys, instance keys by slice, their records by slice) of level j+1, the
    instances only when it is not the last; None when there is no candidate."""
    width = data.width
    distinct_keys, instance_keys, instance_rows = None, [], []
    for cand, rows in _extensions(data, sets, inst_rows, inst_qid, pairs):
        keys = itemset_keys(cand, width)
        if not last:
            instance_keys.append(keys)
            instance_rows.append(rows)
        keys = sorted_unique(keys)
        if distinct_keys is None:
            distinct_keys = keys
        else:
            # a candidate recurs in many records: insert only the keys not seen yet
            fresh = keys[~in_sorted(keys, distinct_keys)]
            distinct_keys = np.insert(distinct_keys, np.searchsorted(distinct_keys, fresh), fresh)
    if distinct_keys is None:
        return None
    return distinct_keys, instance_keys, instance_rows


def _counted_chunks(data: _Release, distinct_keys, sets, sup, ext, cover_ptr, cover_rows):
    """:func:`_counted` of the candidates ``distinct_keys``, chunk after chunk in key order."""
    sorted_keys, order = _sorted_level(sets, data.width)
    j = sets.shape[1]
    # the pairs are counted at once (every record's pairs are listed for them); from 3 items on
    # one long record alone gives up to C(L, j + 1) candidates, mostly not free, so they are
    # counted CHUNK at a time and only the free ones kept (131,000 triples in a BMS-WebView-1
    # window of 1,000 with a record of 103 items, 296 of them free)
    chunk = len(distinct_keys) if j == 1 else CHUNK
    for lo in range(0, len(distinct_keys), chunk):
        yield _counted(data, distinct_keys[lo : lo + chunk], j, sorted_keys, order, sup, ext, cover_ptr, cover_rows)


def _sorted_level(sets, width: int):
    """(sorted keys, the qid of each) of a level's itemsets ``sets``."""
    level_keys = itemset_keys(sets, width)
    order = np.argsort(level_keys, kind="stable")
    return level_keys[order], order


def _counted(data: _Release, keys, j: int, sorted_keys, order, sup, ext, cover_ptr, cover_rows):
    """The candidates ``keys`` (sorted) whose j-subsets are all extendable, with their supports
    and covers; from 3 items on only the free ones. Returns (keys, itemsets, supports, covers one
    after another, free)."""
    keys, distinct, sub_sup, sub_index = _complete(data, keys, j, sorted_keys, order, sup, ext)
    if len(distinct) == 0:
        return keys, distinct, np.zeros(0, dtype=np.int64), _Rows([]), np.zeros(0, dtype=bool)
    if j == 1:
        new_sup, members = _pair_covers(data, keys)
        return keys, distinct, new_sup, _Rows([members]), new_sup < sub_sup.min(axis=1)
    new_sup, members = _covers(data, distinct, sub_sup, sub_index, cover_ptr, cover_rows)
    free = new_sup < sub_sup.min(axis=1)
    return keys[free], distinct[free], new_sup[free], members, free[free]


def _complete(data: _Release, keys, j: int, sorted_keys, order, sup, ext):
    """The candidates ``keys`` (sorted) whose j-subsets are all extendable: (keys, itemsets, the
    supports of their j-subsets, the j-subsets' qids)."""
    width = data.width
    distinct = decode_keys(keys, j + 1, width)
    sub_sup = np.empty((len(distinct), j + 1), dtype=np.int64)
    sub_index = np.empty((len(distinct), j + 1), dtype=np.int64)
    complete = np.ones(len(distinct), dtype=bool)
    for drop in range(j + 1):
        at = lookup(sorted_keys, itemset_keys(np.delete(distinct, drop, axis=1), width))
        index = order[np.maximum(at, 0)]
        complete &= (at >= 0) & ext[index]
        sub_sup[:, drop] = sup[index]
        sub_index[:, drop] = index
    return keys[complete], distinct[complete], sub_sup[complete], sub_index[complete]


def _extension_spans(data: _Release, sets, inst_rows, inst_qid):
    """Each instance's extensions as (end, count) among the release's occurrences: the items of its
    record after its qid's last. int32 where the occurrences fit: three int64 arrays per instance,
    with the running count, set the peak of the last level's candidates."""
    # an end may be the count of occurrences itself, one past the last occurrence's position
    narrow = id_dtype(len(data.keys) + 1)
    stops = data.window.indptr[inst_rows + 1].astype(narrow)
    after = np.searchsorted(data.keys, inst_rows.astype(np.int64) * data.width + sets[inst_qid, -1]) + 1
    return stops, (stops - after).astype(narrow)


def _extensions(data: _Release, sets, inst_rows, inst_qid, pairs):
    """(candidate rows, their records) for slices of about ``SLICE`` extensions; from level 3
    on an extension must make an extendable free pair (``pairs``) with the last item."""
    width = data.width
    stops, counts = _extension_spans(data, sets, inst_rows, inst_qid)
    load = np.cumsum(counts, dtype=np.int64)
    lo = 0
    while lo < len(inst_rows):
        hi = max(lo + 1, int(np.searchsorted(load, (load[lo - 1] if lo else 0) + SLICE, side="right")))
        positions = concat_ranges(stops[lo:hi] - counts[lo:hi], stops[lo:hi])
        parent = np.repeat(np.arange(lo, hi, dtype=np.int64), counts[lo:hi])
        rows = inst_rows[parent]
        cand = np.concatenate([sets[inst_qid[parent]], data.window.indices[positions][:, None]], axis=1)
        keep = data.nsens[rows] - data.sensitive[cand].sum(axis=1) >= 1
        if pairs is not None:
            keep &= lookup(pairs, itemset_keys(cand[:, -2:], width)) >= 0
        lo = hi
        if keep.any():
            yield cand[keep], rows[keep]


def _covers(data: _Release, distinct, sub_sup, sub_index, cover_ptr, cover_rows):
    """Exact supports of the candidates, and the covers of the free ones (a support under their
    j-subsets' least), one after another: the cover of each candidate's rarest j-subset filtered
    by the item it lacks, a slice of about ``SLICE`` records at a time. A slice's candidates are
    whole, so only the free ones' rows outlive it (every candidate's cover was held with its
    owner, and joined, before the others were dropped), kept as :class:`_Rows` parts: joined,
    they were held twice (connect's first 10,000: the triples' 58 MiB of covers, the check's peak)."""
    sups = []

    def slices():
        # handed to _Rows as they come, so that a slice joined into a part is not held beside it
        for _, _, sup, rows in _covers_slices(data, distinct, sub_sup, sub_index, cover_ptr, cover_rows):
            sups.append(sup)
            yield rows

    members = _Rows(slices())
    return (np.concatenate(sups).astype(np.int64) if sups else np.zeros(0, dtype=np.int64)), members


def _covers_slices(data: _Release, distinct, sub_sup, sub_index, cover_ptr, cover_rows):
    """:func:`_covers` a slice at a time: (first candidate, end, supports, the free ones' covers)."""
    below = sub_sup.min(axis=1)
    drop = np.argmin(sub_sup, axis=1)
    picked = np.arange(len(distinct))
    parent_qid, lacking = sub_index[picked, drop], distinct[picked, drop]
    starts, stops = cover_ptr[parent_qid], cover_ptr[parent_qid + 1]
    load = np.cumsum(stops - starts)
    lo = 0
    while lo < len(distinct):
        hi = max(lo + 1, int(np.searchsorted(load, (load[lo - 1] if lo else 0) + SLICE, side="right")))
        rows = cover_rows.take(starts[lo:hi], stops[lo:hi])
        owner = np.repeat(np.arange(hi - lo, dtype=np.int64), stops[lo:hi] - starts[lo:hi])
        hit = data.holds(rows, lacking[lo + owner])
        owner, rows = owner[hit], rows[hit]
        sup = np.bincount(owner, minlength=hi - lo).astype(np.int64)
        yield lo, hi, sup, rows[(sup < below[lo:hi])[owner]]
        lo = hi


def _pair_covers(data: _Release, keys: np.ndarray):
    """(supports, covers one after another) of the pairs with sorted ``keys``: the pairs of every
    record are listed (a slice of records at a time), as most pairs are far rarer than either of
    their items."""
    window = data.window
    lengths = window.lengths
    load = np.cumsum(lengths * (lengths - 1) // 2)
    owners, members = [], []
    start = 0
    while start < data.n:
        stop = max(start + 1, int(np.searchsorted(load, (load[start - 1] if start else 0) + SLICE, side="right")))
        lo, hi = window.indptr[start], window.indptr[min(stop, data.n)]
        position = np.arange(lo, hi, dtype=np.int64)
        ends = window.indptr[data.owner[lo:hi] + 1]
        second = concat_ranges(position + 1, ends)
        first = np.repeat(position, ends - position - 1)
        pairs = np.stack([window.indices[first], window.indices[second]], axis=1)
        at = lookup(keys, itemset_keys(pairs, data.width))
        hit = at >= 0
        owners.append(as_ids(at[hit], len(keys)))
        members.append(data.owner[first[hit]].astype(data.row_dtype))
        start = stop
    owner = np.concatenate(owners)
    del owners
    member = np.concatenate(members)
    del members
    # records come in ascending order, each holding a pair once, so a stable sort by pair alone
    # orders each cover by record (lexsort's order, with two int64 keys beside the arrays)
    member = member[np.argsort(owner, kind="stable")]
    return np.bincount(owner, minlength=len(keys)).astype(np.int64), member


def _sub_covers(cover_ptr, cover_rows: _Rows, chosen) -> tuple[np.ndarray, _Rows]:
    if chosen.all():  # from 3 items on every qid of a level is free: a copy would hold its covers twice
        return cover_ptr, cover_rows
    ids = np.flatnonzero(chosen)
    starts, stops = cover_ptr[ids], cover_ptr[ids + 1]
    ptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(stops - starts, out=ptr[1:])
    return ptr, _Rows([cover_rows.take(starts, stops)])


def _level_violations(data: _Release, sets, sup, cover_ptr, cover_rows: _Rows, rho, labels) -> Iterator[Violation]:
    """The unsafe rules of the qids ``sets``, counting the sensitive items of their covers a
    slice of about ``SLICE`` sensitive occurrences at a time."""
    sizes = np.diff(cover_ptr)
    # the sensitive occurrences of the covers up to each qid's end, with no owner per cover row
    # (the owners, and the weights as floats, tripled the last level's covers at the check's peak)
    load = np.cumsum(cover_rows.loads(data.nsens, cover_ptr))
    share = Share.of(rho)
    lo = 0
    while lo < len(sets):
        hi = max(lo + 1, int(np.searchsorted(load, (load[lo - 1] if lo else 0) + SLICE, side="right")))
        owner = np.repeat(np.arange(lo, hi, dtype=np.int64), sizes[lo:hi])
        qid, item, count = data.consequents(owner, cover_rows.span(int(cover_ptr[lo]), int(cover_ptr[hi])), sets)
        bad = share.exceeded(count, sup[qid])
        for q, e, k in zip(qid[bad].tolist(), item[bad].tolist(), count[bad].tolist()):
            yield _violation(tuple(sets[q].tolist()), e, k, int(sup[q]), rho, labels)
        lo = hi


class _Rows:
    """A level's covers end to end, held as the parts they were counted in (each qid's cover lies
    in one part), where joining them held the level's covers twice at the check's peak. Parts
    shorter than ``SLICE`` are joined as they come, so that a level has few parts."""

    def __init__(self, parts: Iterable[np.ndarray]):
        self.parts: list[np.ndarray] = []
        pending: list[np.ndarray] = []
        for part in parts:
            if len(part) == 0:
                continue
            pending.append(part)
            if sum(len(p) for p in pending) >= SLICE:
                self.parts.append(joined(pending))
                pending = []
        if pending or not self.parts:
            self.parts.append(joined(pending) if pending else np.zeros(0, dtype=np.int64))
        self.bounds = np.zeros(len(self.parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in self.parts], out=self.bounds[1:])

    def __len__(self) -> int:
        return int(self.bounds[-1])

    def take(self, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        """The rows of the covers [starts[i], stops[i]) one after another."""
        if len(self.parts) == 1:
            return self.parts[0][concat_ranges(starts, stops)]
        # an empty cover may start at the end of the last part
        part = np.minimum(np.searchsorted(self.bounds, starts, side="right") - 1, len(self.parts) - 1)
        lengths = stops - starts
        ends = np.cumsum(lengths)
        rows = np.empty(int(ends[-1]) if len(ends) else 0, dtype=self.parts[0].dtype)
        order = np.argsort(part, kind="stable")
        cuts = np.flatnonzero(np.diff(part[order])) + 1
        for group in np.split(order, cuts):
            if len(group) == 0:
                continue
            p, base = int(part[group[0]]), self.bounds[part[group[0]]]
            rows[concat_ranges(ends[group] - lengths[group], ends[group])] = \
                self.parts[p][concat_ranges(starts[group] - base, stops[group] - base)]
        return rows

    def span(self, lo: int, hi: int) -> np.ndarray:
        """Rows ``lo`` to ``hi`` (a view where they lie in one part, else a slice's copy)."""
        if hi <= lo:
            return self.parts[0][:0]
        first = int(np.searchsorted(self.bounds, lo, side="right")) - 1
        last = int(np.searchsorted(self.bounds, hi, side="left")) - 1
        pieces = [self.parts[p][max(lo - self.bounds[p], 0) : hi - self.bounds[p]] for p in range(first, last + 1)]
        return joined(pieces)

    def loads(self, weight: np.ndarray, ptr: np.ndarray) -> np.ndarray:
        """The sum of ``weight`` over each cover's rows (``ptr`` its bounds), a part at a time."""
        sums = np.zeros(len(ptr) - 1, dtype=np.int64)
        for p, part in enumerate(self.parts):
            lo, hi = self.bounds[p], self.bounds[p + 1]
            if lo == hi:
                continue
            running = np.zeros(hi - lo + 1, dtype=np.int64)
            np.cumsum(weight[part], out=running[1:])
            # the covers ending in this part (each lies in one part, so it starts there too)
            ends = ptr[1:]
            mine = np.flatnonzero((ends > lo) & (ends <= hi) & (ptr[:-1] >= lo))
            sums[mine] = running[ends[mine] - lo] - running[ptr[:-1][mine] - lo]
        return sums


def _violation(qid: tuple[int, ...], e: int, k: int, s: int, rho: float, labels) -> Violation:
    return Violation(
        "rho",
        f"a qid of {counted(len(qid), 'item')} infers a sensitive item with confidence {k}/{s} > rho={rho}",
        tuple(labels(i) for i in qid),
        target=labels(e),
    )
