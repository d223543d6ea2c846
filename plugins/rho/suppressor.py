"""PARTIALSUPPRESSOR and SANITIZEBUFFER (Jia et al. §3.1-3.2, Algorithms 1 and 2).

One pass scans the table: the empty qid and the single-item qids are checked over the whole
table (their rules need no generation), then the records holding a sensitive item are read
in order into buffers of about ``b_max`` qid instances (Algorithm 1, lines 4-8) and each
buffer is filled level by level with its free qids of sizes 2..qid_size (see :mod:`.qids`).
After a level is generated its unsafe qids are sanitized (Algorithm 2) before the next level
is generated from what is left, so a record stripped of its sensitive items generates no
larger qids. Sanitizing a qid q repeats until q is safe: E = {e : conf(q -> e) > ρ}, the
policy picks (d, e) with d ∈ q ∪ {e}, and N_s(d, q -> e) (Definition 1) instances of d are
deleted from records of C(q ∪ {e}); supports are kept current by :class:`.table.Table`.

Regression (§3.2.3): a deletion lowers sup(q') of every qid q' holding the deleted item in
that record, which can make a safe rule unsafe. Supports are always current, so a later qid
of the pass sees it; earlier ones are seen by the next pass. Passes repeat until one makes
no deletion; that pass checked every free qid of the final table, so the release is safe
(Theorem 1). Each pass before the last deletes at least one item, so the loop terminates.

N_s is the smallest integer number of deletions that makes conf(q -> e) <= ρ, computed in
integers with ρ as typed (:class:`setveil.core.share.Share`), as the checker compares.

A policy with ``global_suppression`` (the baseline of Cao et al.) runs the same passes and
levels but settles each level's unsafe rules by removing whole item types, see
:meth:`PartialSuppressor._global_level`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from setveil.core.arrays import concat_ranges, sorted_unique
from setveil.core.errors import counted
from setveil.core.share import Share

from .policies import Options, PolicyError, RhoPolicy, State
from .qids import QidBuffer, unsafe_rules
from .table import Table

BLOCK = 256
#: the fewest sensitive occurrences a block's re-check expands at once, whatever b_max: chunks of
#: b_max made 1.3-3.4 calls a block and BMS-WebView-2's runs (ρ 0.7, t_max off) 5-20% slower at
#: b_max 10^4 (mine) and 10^3 (dist), where 2^18 occurrences hold about 10 MiB
RECHECK_FLOOR = 1 << 18


class PartialSuppressor:
    """Suppresses ``table`` in place until every qid of at most ``qid_size`` items is safe."""

    def __init__(self, table: Table, policy: RhoPolicy, rho: float, qid_size: int, b_max: int, rng: np.random.Generator):
        self.table = table
        self.policy = policy
        self.share = Share.of(rho)
        self.qid_size = qid_size
        self.b_max = b_max
        self.state = State(
            support=table.sup,
            support0=table.sup0,
            total=table.total,
            total0=table.total0,
            unsafe_rules=np.zeros(table.n_items, dtype=np.int64),
            record_length=table.length,
            item_rank=rng.permutation(table.n_items),
            record_rank=rng.permutation(table.n),
        )
        self.suppressed_types: list[int] = []
        # global suppression: the supports counted so far, which stay true all run (see .qids)
        self.known: dict | None = {} if policy.global_suppression else None
        self.stats: dict[str, Any] = {"passes": 0, "buffers": 0, "unsafe_qids": 0, "sanitized_rules": 0,
                                      "qids_generated": 0, "deletions_by_pass": []}

    def run(self) -> dict:
        started = time.perf_counter()
        t = self.table
        while True:
            self.stats["passes"] += 1
            before = t.deleted
            self._empty_qid()
            if self.qid_size >= 1:
                self._singletons()
            if self.qid_size >= 2:
                for rows in self._buffers():
                    self._fill_and_sanitize(rows)
            self.stats["deletions_by_pass"].append(t.deleted - before)
            if t.deleted == before:
                break
        self.stats["deletions"] = t.deleted
        self.stats["seconds"] = time.perf_counter() - started
        return self.stats

    # -- the levels ------------------------------------------------------------------------
    def _empty_qid(self) -> None:
        """The empty qid: an attacker who knows nothing infers e with confidence sup(e)/|T|."""
        t = self.table
        unsafe = np.flatnonzero(t.sensitive & self.share.exceeded(t.sup, t.n))
        if len(unsafe) == 0:
            return
        self.stats["unsafe_qids"] += 1
        if self.policy.global_suppression:
            self._global_level(np.zeros((1, 0), dtype=np.int64), np.zeros(len(unsafe), dtype=np.int64), unsafe)
        else:
            self._sanitize_qid(np.zeros(0, dtype=np.int64), np.arange(t.n, dtype=np.int64))

    def _singletons(self) -> None:
        t = self.table
        cover_ptr = np.zeros(t.n_items + 1, dtype=np.int64)
        np.cumsum(t.sup, out=cover_ptr[1:])
        cover_rows = t.inv_rows[t.alive[t.inv_occ]]
        sets = np.arange(t.n_items, dtype=np.int64)[:, None]
        candidates = np.flatnonzero((t.sup >= 1) & (t.sup < t.n))
        self.stats["qids_generated"] += len(candidates)
        qid, item, _ = unsafe_rules(t, sets, t.sup, cover_ptr, cover_rows, candidates, self.share, self.b_max)
        if len(qid) == 0:
            return
        if self.policy.global_suppression:
            self._global_level(sets, qid, item)
            return
        unsafe = sorted_unique(qid)
        first_record = cover_rows[cover_ptr[unsafe]]
        unsafe = unsafe[np.argsort(first_record, kind="stable")]
        self._sanitize_level(sets, unsafe, t.inv_ptr, t.inv_rows)

    def _buffers(self):
        """Chunks of the records holding a sensitive item and at least three items, in table
        order, each worth about ``b_max`` pair instances (the qids of a level-2 buffer)."""
        t = self.table
        cursor = 0
        while cursor < t.n:
            rest = np.arange(cursor, t.n, dtype=np.int64)
            eligible = rest[(t.nsens[rest] >= 1) & (t.length[rest] >= 3)]
            if len(eligible) == 0:
                return
            size = t.length[eligible]
            load = np.cumsum(size * (size - 1) // 2)
            stop = max(1, int(np.searchsorted(load, self.b_max, side="left")) + 1)
            rows = eligible[:stop]
            cursor = int(rows[-1]) + 1
            self.stats["buffers"] += 1
            yield rows

    def _fill_and_sanitize(self, rows: np.ndarray) -> None:
        t = self.table
        buffer = QidBuffer(t, rows, self.b_max, self.known)
        level = buffer.singletons()
        generated = []
        for size in range(2, self.qid_size + 1):
            # global suppression reads only the rules of its last level: they are checked as the
            # level is counted, and its covers are never held whole
            share = self.share if self.policy.global_suppression else None
            extended = buffer.extend(level, last=size == self.qid_size, share=share)
            if extended is None:
                break
            level = extended
            free = np.flatnonzero(level.free)
            self.stats["qids_generated"] += len(free)
            if level.rules is not None:
                qid, item, _ = level.rules
            else:
                # a qid without a cover here was counted, and so made safe, by an earlier buffer
                checked = free[level.counted[free]]
                qid, item, _ = unsafe_rules(t, level.sets, level.sup, level.cover_ptr, level.cover_rows, checked,
                                            self.share, self.b_max)
            if self.policy.global_suppression:
                if len(qid):
                    self._global_level(level.sets, qid, item)
                continue
            rank = np.empty(len(level.sets), dtype=np.int64)
            rank[level.order] = np.arange(len(level.sets))
            generated.append((level, free[np.argsort(rank[free], kind="stable")]))
            if len(qid):
                unsafe = sorted_unique(qid)
                self._sanitize_level(level.sets, unsafe[np.argsort(rank[unsafe], kind="stable")], level.cover_ptr, level.cover_rows)
        self._settle(generated)

    def _settle(self, generated) -> None:
        """Regression inside the buffer (§3.2.3): deletions made for later qids can make the
        buffer's earlier qids unsafe again. Algorithm 2 repeats until no qid of B is unsafe;
        the qids already in B are re-checked against the current table (their covers only
        shrink) and sanitized again until a round deletes nothing."""
        t = self.table
        checked = [level.as_of for level, _ in generated]
        while True:
            before = t.deleted
            for index, (level, ordered) in enumerate(generated):
                if checked[index] == t.deleted or len(ordered) == 0:
                    continue
                # as of now: the level's own deletions below can make a qid found safe here
                # unsafe, and call for another round (QA: marked checked after them, a level
                # never looked again, and such a qid was left to the next pass)
                checked[index] = t.deleted
                flags = np.concatenate([
                    self._still_unsafe(level.sets, part, level.cover_ptr, level.cover_rows)
                    for part in self._slices(ordered, level.cover_ptr)
                ])
                if flags.any():
                    self._sanitize_level(level.sets, ordered[flags], level.cover_ptr, level.cover_rows)
            if t.deleted == before:
                return

    def _slices(self, qids: np.ndarray, cover_ptr: np.ndarray):
        """``qids`` in consecutive slices whose covers hold about ``b_max`` records."""
        load = np.cumsum(cover_ptr[qids + 1] - cover_ptr[qids])
        lo = 0
        while lo < len(qids):
            hi = max(lo + 1, int(np.searchsorted(load, (load[lo - 1] if lo else 0) + self.b_max, side="right")))
            yield qids[lo:hi]
            lo = hi

    def _global_level(self, sets: np.ndarray, rule_qid: np.ndarray, rule_item: np.ndarray) -> None:
        """Global suppression of the unsafe rules (qid ``sets[rule_qid[i]]`` -> ``rule_item[i]``)
        of a level, after Cao et al.: remove whole item types, best policy score first, until no
        rule is left. Removing a type changes no support of an itemset without it, so a rule
        is made safe exactly when one of its items is removed and no other rule becomes unsafe.

        ``state.unsafe_rules[t]`` counts what removing t settles: each unsafe qid holding t once
        (all its rules go with it) and each unsafe rule with consequent t."""
        t, state = self.table, self.state
        qids, rule_qid = np.unique(rule_qid, return_inverse=True)
        self.stats["unsafe_qids"] += len(qids)
        items = sets[qids]
        width = items.shape[1]
        left = np.bincount(rule_qid, minlength=len(qids))
        qid_of_item = _inverted(items.ravel(), np.repeat(np.arange(len(qids)), width), t.n_items)
        rule_of_item = _inverted(rule_item, np.arange(len(rule_item)), t.n_items)
        rules_ptr, rules_of_qid = _inverted(rule_qid, np.arange(len(rule_qid)), len(qids))
        consequent = np.bincount(rule_item, minlength=t.n_items)
        count = np.bincount(items.ravel(), minlength=t.n_items) + consequent
        qid_alive = np.ones(len(qids), dtype=bool)
        rule_alive = np.ones(len(rule_item), dtype=bool)
        while True:
            candidates = np.flatnonzero(count)
            if len(candidates) == 0:
                return
            # a type that is no live rule's consequent is offered as an item of a qid, so the
            # tie-break prefers consequents here too (QA: item 2 went before the sensitive 4,
            # whose removal alone made the window safe)
            options = Options(np.zeros(0, dtype=np.int64), candidates, candidates, t.sup[candidates],
                              consequent[candidates] == 0)
            state.unsafe_rules, state.total = count, t.total
            victim = int(candidates[_checked_pick(self.policy.choose(options, state), len(candidates))])
            t.delete(victim, t.tidlist(victim))
            self.suppressed_types.append(victim)
            self.stats["sanitized_rules"] += 1
            # qids holding the victim disappear with all their rules
            ptr, ids = qid_of_item
            dead = ids[ptr[victim] : ptr[victim + 1]]
            dead = dead[qid_alive[dead]]
            qid_alive[dead] = False
            count -= np.bincount(items[dead].ravel(), minlength=t.n_items)
            # rules whose consequent is the victim disappear; a qid left without rules is safe
            ptr, ids = rule_of_item
            gone = ids[ptr[victim] : ptr[victim + 1]]
            gone = gone[rule_alive[gone] & qid_alive[rule_qid[gone]]]
            rule_alive[gone] = False
            count[victim] -= len(gone)
            consequent[victim] -= len(gone)
            np.subtract.at(left, rule_qid[gone], 1)
            emptied = sorted_unique(rule_qid[gone])
            emptied = emptied[(left[emptied] == 0) & qid_alive[emptied]]
            qid_alive[emptied] = False
            count -= np.bincount(items[emptied].ravel(), minlength=t.n_items)
            # rules of dead qids no longer count for their consequents; only the qids that died
            # in this step can hold live ones (a scan of every rule per step took 50 s on retail)
            stale = rules_of_qid[concat_ranges(rules_ptr[dead], rules_ptr[dead + 1])]
            stale = stale[rule_alive[stale]]
            rule_alive[stale] = False
            settled = np.bincount(rule_item[stale], minlength=t.n_items)
            count -= settled
            consequent -= settled
            if count[victim]:
                # every qid holding the victim and every rule inferring it is gone, so a count
                # left for it is a bookkeeping slip, which would offer it again for ever (QA:
                # three mutants hung the window instead of failing it)
                raise RuntimeError(f"global: removing item type {victim} left {int(count[victim])} unsafe "
                                   f"{'qid or rule' if count[victim] == 1 else 'qids or rules'} counted for it")

    # -- SANITIZEBUFFER ----------------------------------------------------------------------
    def _sanitize_level(self, sets: np.ndarray, unsafe: np.ndarray, cover_ptr: np.ndarray, cover_rows: np.ndarray) -> None:
        """Sanitize the unsafe qids in order. Most are held by one record (Algorithm 2 makes
        them unsafe whenever that record keeps a sensitive item outside them), which is a
        constant-time test; the others are re-checked a block at a time, so qids made safe by
        earlier deletions cost no Python step."""
        t = self.table
        self.stats["unsafe_qids"] += len(unsafe)
        single = (cover_ptr[unsafe + 1] - cover_ptr[unsafe]) == 1
        record = np.where(single, cover_rows[np.minimum(cover_ptr[unsafe], len(cover_rows) - 1)], -1)
        inside = t.sensitive[sets[unsafe]].sum(axis=1)
        for start in range(0, len(unsafe), BLOCK):
            block = slice(start, start + BLOCK)
            ids, alone, rows, sens_in = unsafe[block], single[block], record[block], inside[block]
            check = np.ones(len(ids), dtype=bool)
            if not alone.all():
                check[~alone] = self._still_unsafe(sets, ids[~alone], cover_ptr, cover_rows)
            nsens = t.nsens
            members = sets[ids].tolist()
            for index, (qid, one, row, held, go) in enumerate(
                    zip(ids.tolist(), alone.tolist(), rows.tolist(), sens_in.tolist(), check.tolist())):
                if not go or (one and (nsens[row] <= held or not t.holds_all(members[index], row))):
                    continue
                if one:
                    self._sanitize_unique(sets[qid], members[index], row)
                else:
                    self._sanitize_qid(sets[qid], cover_rows[cover_ptr[qid] : cover_ptr[qid + 1]])

    def _still_unsafe(self, sets, block, cover_ptr, cover_rows) -> np.ndarray:
        """Which qids of ``block`` have an unsafe rule in the current table (vectorized)."""
        t = self.table
        starts, stops = cover_ptr[block], cover_ptr[block + 1]
        rows = cover_rows[concat_ranges(starts, stops)]
        owner = np.repeat(np.arange(len(block), dtype=np.int64), stops - starts)
        items = sets[block]
        keep = np.ones(len(rows), dtype=bool)
        for column in range(items.shape[1]):
            keep &= t.has(items[owner, column], rows)
        owner, rows = owner[keep], rows[keep]
        sup = np.bincount(owner, minlength=len(block))
        # the covers' records are expanded to their sensitive occurrences about b_max (at least
        # RECHECK_FLOOR) at a time, whole qids each: the records covering BMS-WebView-1's qids are
        # long, and one slice of 10^6 cover records took 52 million, two arrays of 397 MiB at the
        # suppressor's peak
        ends = np.cumsum(sup)
        load = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(t.sens_ptr[rows + 1] - t.sens_ptr[rows], out=load[1:])
        load = load[ends]
        flags = np.zeros(len(block), dtype=bool)
        step = max(self.b_max, RECHECK_FLOOR)
        lo = 0
        while lo < len(block):
            hi = max(lo + 1, int(np.searchsorted(load, (load[lo - 1] if lo else 0) + step, side="right")))
            first, stop = (ends[lo - 1] if lo else 0), ends[hi - 1]
            flags[lo:hi] = self._unsafe_in(items[lo:hi], sup[lo:hi], owner[first:stop] - lo, rows[first:stop])
            lo = hi
        return flags

    def _unsafe_in(self, items: np.ndarray, sup: np.ndarray, owner: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Which of the qids ``items`` (supports ``sup``, current covers ``rows`` by ``owner``) have
        an unsafe rule."""
        t = self.table
        sstarts, sstops = t.sens_ptr[rows], t.sens_ptr[rows + 1]
        occ = t.sens_occ[concat_ranges(sstarts, sstops)]
        who = np.repeat(owner, sstops - sstarts)
        live = t.alive[occ]
        occ, who = occ[live], who[live]
        key, count = np.unique(who * t.n_items + t.indices[occ], return_counts=True)
        who, item = key // t.n_items, key % t.n_items
        outside = ~(items[who] == item[:, None]).any(axis=1)
        bad = outside & self.share.exceeded(count, sup[who])
        flags = np.zeros(len(items), dtype=bool)
        flags[who[bad]] = True
        return flags

    def _sanitize_qid(self, qid: np.ndarray, cover: np.ndarray) -> None:
        """Algorithm 2, lines 3-17, for one qid until it is safe."""
        t, policy, state = self.table, self.policy, self.state
        # a level's covers may hold int32 record ids (.qids); a policy is given int64 ones, as ever
        cover = t.holding(qid, cover.astype(np.int64, copy=False))
        while len(cover):
            items, k = t.sensitive_counts(cover, qid)
            s = len(cover)
            unsafe = self.share.exceeded(k, s)
            if not unsafe.any():
                return
            consequents, k = items[unsafe], k[unsafe]
            options = self._options(qid, consequents, k, s)
            state.total = t.total
            pick = _checked_pick(policy.choose(options, state), len(options.victim))
            victim = int(options.victim[pick])
            holders = t.holding(options.consequent[pick : pick + 1], cover)
            rows = _checked_records(policy.pick_records(holders, int(options.deletions[pick]), state), holders)
            t.delete(victim, rows)
            self.stats["sanitized_rules"] += 1
            if options.in_qid[pick]:
                cover = t.holding(options.victim[pick : pick + 1], cover)

    def _sanitize_unique(self, qid: np.ndarray, members: list[int], row: int) -> None:
        """:meth:`_sanitize_qid` for a qid (``members`` as a list) held by the one record
        ``row``, which still holds it: every sensitive item e of the record outside q gives
        conf(q -> e) = 1, and every option deletes one item from that record, so the options
        reduce to one per candidate victim."""
        t, policy, state = self.table, self.policy, self.state
        consequents = t.sensitive_items(row, members)
        width = len(qid)
        while len(consequents):
            n_e = len(consequents)
            victims = np.concatenate([consequents, qid])
            in_qid = np.arange(n_e + width) >= n_e
            paired = np.concatenate([consequents, np.full(width, consequents[0])])
            options = Options(qid, victims, paired, np.ones(n_e + width, dtype=np.int64), in_qid)
            state.total = t.total
            pick = _checked_pick(policy.choose(options, state), n_e + width)
            victim = int(victims[pick])
            t.delete_one(victim, row)
            self.stats["sanitized_rules"] += 1
            if pick >= n_e:
                return
            consequents = consequents[consequents != victim]

    def _options(self, qid: np.ndarray, consequents: np.ndarray, k: np.ndarray, s: int) -> Options:
        counts = k.tolist()
        as_consequent = [deletions_needed(x, s, self.share, False) for x in counts]
        as_antecedent = [deletions_needed(x, s, self.share, True) for x in counts]
        n_e, width = len(counts), len(qid)
        victim = np.concatenate([consequents, np.repeat(qid, n_e)])
        consequent = np.concatenate([consequents] * (width + 1))
        deletions = np.array(as_consequent + as_antecedent * width, dtype=np.int64)
        in_qid = np.zeros(n_e * (width + 1), dtype=bool)
        in_qid[n_e:] = True
        return Options(qid, victim, consequent, deletions, in_qid)


def _checked_pick(pick, count: int) -> int:
    """The policy's choice, refused unless it is one of the ``count`` options."""
    if not (isinstance(pick, (int, np.integer)) and 0 <= pick < count):
        raise PolicyError(f"the policy chose option {pick!r} of {count}")
    return int(pick)


def _checked_records(rows, holders: np.ndarray) -> np.ndarray:
    """The records the policy picked, refused unless they are distinct records of ``holders``
    and at least one: anything else could corrupt the table or never end."""
    rows = np.asarray(rows, dtype=np.int64)
    if len(rows) == 0 or len(np.unique(rows)) != len(rows) or not np.isin(rows, holders).all():
        raise PolicyError(f"the policy picked {counted(len(rows), 'record')}, not distinct records holding the rule")
    return rows


def deletions_needed(k: int, s: int, share: Share, in_qid: bool) -> int:
    """N_s (Definition 1), made integral: the fewest deletions n with
    conf = (k - n) / (s - n·[d ∈ q]) <= ρ, for a rule of support k over a qid of support s.
    In integers (ρ = num/den): (k - n)·den <= num·(s - n·[d ∈ q])."""
    excess = k * share.den - share.num * s
    per_deletion = share.den - share.num if in_qid else share.den
    return max(1, min(k, -(-excess // per_deletion)))


def _inverted(keys: np.ndarray, values: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR (ptr, values) of ``values`` grouped by ``keys``."""
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_items), out=ptr[1:])
    return ptr, values[order]
