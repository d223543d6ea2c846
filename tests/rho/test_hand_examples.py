"""Small tables whose exact release follows from Algorithms 1-2 and Definition 1 by hand. Any
victim, order or count of deletions that ends safe passes the checker, so only an exact release
shows that the suppressor is the paper's."""

import numpy as np
import pytest

from .rho_reference import unsafe_rules
from .test_algorithm import table_of
from setveil.core.window import Window
from setveil.plugins.rho import suppressor
from setveil.plugins.rho.checker import rho_violations
from setveil.plugins.rho.policies import Dist, Global, Mine, RhoPolicy
from setveil.plugins.rho.qids import QidBuffer
from setveil.plugins.rho.suppressor import PartialSuppressor


def suppressed(rows, n_items, sensitive, policy, rho, qid_size, seed, b_max=1_000_000):
    """The release's records and the suppressor's statistics."""
    table = table_of(rows, n_items, sensitive)
    stats = PartialSuppressor(table, policy, rho, qid_size, b_max, np.random.default_rng(seed)).run()
    return current(table, rows), stats


def current(table, rows):
    """The records of ``table`` (made of ``rows``) as they are now."""
    return [[int(i) for i, alive in zip(r, table.alive[a:b]) if alive]
            for r, a, b in zip(rows, table.indptr, table.indptr[1:])]


def labelled(rows):
    """``rows`` as a window whose item i is labelled ``i<i>``, for the independent checker."""
    return Window.from_transactions([[f"i{i}" for i in row] for row in rows])


def records_after(rows, n_items, sensitive, policy, rho, qid_size, seed):
    return suppressed(rows, n_items, sensitive, policy, rho, qid_size, seed)[0]


@pytest.mark.parametrize("seed", range(4))
def test_single_item_qids_are_visited_in_record_order_not_item_order(seed):
    # Local item ids need not follow the records (a part of a split window renumbers its items
    # in the window's order). ρ = 0.5, qid size 1, sensitive 2 and 3, policy dist.
    # The empty qid: sup(3) = 3 of 5 > 0.5, N_s = 1; the longest holder, record 0, loses 3.
    # Now |T| = 8 occurrences (9 in T0), and the unsafe single-item qids are 1 -> 2 (2/3, first
    # held by record 0) and 0 -> 2 (1/1, first held by record 2): 1 comes first.
    # 1 -> 2: N_s = 1 for item 1 and for 2; H_dist = T(t) log(9/8) with T(1) = 3/8 > T(2) = 2/8,
    # so one 1 goes, from the longer holder, record 2. Then 1 -> 2 is 1/2, safe; 0 -> 2 is still
    # 1/1 in record 2, and T(2) = 2/7 > T(0) = 1/7 takes 2 from it.
    # Visited by item id (0 first), deleting 2 from record 2 would have settled both.
    rows = [[1, 2, 3], [1], [0, 1, 2], [3], [3]]
    assert records_after(rows, 4, [2, 3], Dist(), 0.5, 1, seed) == [[1, 2], [1], [0], [3], [3]]


@pytest.mark.parametrize("seed", range(4))
def test_the_consequent_loses_n_s_instances_not_the_qid_items_count(seed):
    # ρ = 0.5, qid size 1, sensitive 1 (item 0 = a, 1 = s, 2 = x). a -> s is 4/4 (the empty qid:
    # 4 of 9, safe; x -> s 1/6, safe). Definition 1: N_s(s) = 4 - 0.5·4 = 2, N_s(a) =
    # (4 - 2)/(1 - 0.5) = 4. H_mine = leftover·N_s = 2 against 4: two s go, the first from the
    # longest holder, record 0, leaving a -> s at 2/4 = 0.5.
    rows = [[0, 1, 2], [0, 1], [0, 1], [0, 1]] + [[2]] * 5
    after = records_after(rows, 3, [1], Mine(), 0.5, 1, seed)
    assert after[0] == [0, 2]
    assert sum(1 in r for r in after) == 2
    assert all(0 in r for r in after[:4])


@pytest.mark.parametrize("seed", range(4))
def test_the_buffer_visits_its_records_in_table_order(seed):
    # Algorithm 1 fills B from T[1], T[2], ... and Algorithm 2 sanitizes its unsafe qids in that
    # order. ρ = 0.5, qid size 3, sensitive 0 and 4, policy dist. The empty and single-item qids
    # are safe (at most 2 of 4, 1 of 2). The buffer holds records 1 {0, 1, 3} and 3 {1, 2, 4};
    # its unsafe pairs are {1, 3} -> 0 (record 1) and {1, 2} -> 4 (record 3), each 1/1 with
    # N_s = 1 for every option. Record 1's comes first: nothing is deleted yet, every H_dist
    # is 0, and the consequent 0 goes. Then T has 8 occurrences (9 in T0), items 1, 2 and 4
    # all have T(t) = 2/8, and the tie goes to the consequent 4. Visited the other way round,
    # 4 goes first (every H_dist 0) and then 0, at T(0) = 1/8, scores below 1 and 3 at 2/8, so
    # record 1 would keep its sensitive 0 and lose 1 or 3.
    rows = [[2, 3], [0, 1, 3], [4], [1, 2, 4]]
    assert records_after(rows, 5, [0, 4], Dist(), 0.5, 3, seed) == [[2, 3], [1, 3], [4], [1, 2]]


@pytest.mark.parametrize("seed", range(4))
def test_a_buffer_settles_the_regression_its_own_deletions_cause(seed):
    # §3.2.3 and Algorithm 2: SANITIZEBUFFER repeats until no qid of B is unsafe, so a rule the
    # buffer's later deletions make unsafe again is settled before the pass moves on, and the
    # next pass finds nothing. ρ = 0.7, qid size 2, sensitive 1 and 3, policy mine.
    # Single items: 0 -> 1 is 3/3; N_s(1) = 1 against N_s(0) = 3 (deleting 0 keeps it at 1/1),
    # so H_mine takes one 1, from the longest holder, record 3 -> {0, 2, 3}.
    # The buffer (records 2 {0, 1, 3} and 3 {0, 2, 3}): {0, 3} -> 1 is 1/2, safe, but
    # {0, 2} -> 3 is 1/1; every leftover is 1 and every N_s 1, so the consequent 3 goes from
    # record 3. That leaves {0, 3} held by record 2 alone: {0, 3} -> 1 is now 1/1. Its options
    # score leftover(0) = 1, leftover(3) = leftover(1) = 2/3, and the tie between 3 and the
    # consequent 1 goes to the consequent: record 2 loses 1 in the same pass.
    rows = [[0, 1], [3], [0, 1, 3], [0, 1, 2, 3], [2]]
    release, stats = suppressed(rows, 4, [1, 3], Mine(), 0.7, 2, seed)
    assert release == [[0, 1], [3], [0, 3], [0, 2], [2]]
    assert stats["deletions_by_pass"] == [3, 0]


@pytest.mark.parametrize("seed", range(4))
def test_the_settle_of_a_buffer_visits_its_qids_in_buffer_order_not_key_order(seed):
    # §3.2.3: the qids of B made unsafe again by later deletions are sanitized again in the order
    # B holds them (by first record), as the first time. ρ = 0.7, qid size 2, sensitive 0, 2, 3,
    # policy mine. Single items: 1 -> 0 is 3/4; N_s is 1 for 0 and for 1, and the tie goes to
    # the consequent: 0 goes from the longest holder, record 6. In the buffer (records 1 and 3-6)
    # {1, 4} -> 3 is 1/1 (record 6 alone); every option is 1 deletion at leftover 1, so the
    # consequent 3 goes from record 6. That leaves {3, 4} (first held by record 1) to record 1
    # alone, {3, 4} -> 2 at 1/1, and {1, 3} (first held by record 4) to record 4 alone,
    # {1, 3} -> 0 at 1/1. In buffer order {3, 4} comes first: leftover(3) = 3/4 is the least
    # (2 and 4 are at 1), so record 1 loses 3; then for {1, 3} leftover(3) = 2/4 is below
    # leftover(0) = 2/3, and record 4 loses 3 too. In key order {1, 3} came first and record 4
    # lost 0 (2/3 < 3/4).
    rows = [[0, 5], [2, 3, 4], [1, 5], [2, 4, 5], [0, 1, 3, 5], [0, 1, 5], [0, 1, 3, 4, 5], [3, 5]]
    release, stats = suppressed(rows, 6, [0, 2, 3], Mine(), 0.7, 2, seed)
    assert release == [[0, 5], [2, 4], [1, 5], [2, 4, 5], [0, 1, 5], [0, 1, 5], [1, 4, 5], [3, 5]]
    assert stats["deletions_by_pass"] == [4, 0]
    assert not list(rho_violations(labelled(rows), labelled(release), frozenset({"i0", "i2", "i3"}), 0.7, 2))


class LastQidItem(RhoPolicy):
    """A third party's policy that deletes the largest item of the qid."""

    name = "last-qid-item"

    def score(self, options, state):
        return np.where(options.in_qid, options.victim, -1).astype(np.float64)


def test_the_settle_of_a_buffer_repeats_until_a_round_deletes_nothing():
    # Theorem 1 and Algorithm 2, line 18: SANITIZEBUFFER ends only when no qid of B is unsafe, so
    # a qid that a re-sanitized qid makes unsafe again is sanitized again, in another round.
    # ρ = 0.5, sensitive 3 and 4. The buffer (records 0 and 1) holds the free pairs {1, 2}
    # (record 0), {0, 1} and {0, 2} (record 1), each rule at most 1/2. A deletion made for a later
    # qid (here by hand: 0 from record 2) leaves {0, 1} to record 1 alone, {0, 1} -> 3 at 1/1.
    # Round 1: {1, 2} is safe, {0, 1} loses its largest item 1 from record 1, which leaves
    # {1, 2} to record 0 alone, {1, 2} -> 4 at 1/1; {0, 2} is safe. Round 2: {1, 2} loses 2
    # from record 0. Round 3 deletes nothing.
    rows = [[1, 2, 4], [0, 1, 2, 3], [0, 1], [2], [0], [0, 2]]
    table = table_of(rows, 5, [3, 4])
    buffer = QidBuffer(table, np.array([0, 1]), 1_000_000)
    pairs = buffer.extend(buffer.singletons())
    ordered = np.array([q for q in pairs.order if pairs.free[q]])
    assert pairs.sets[ordered].tolist() == [[1, 2], [0, 1], [0, 2]]
    assert unsafe_rules(current(table, rows), {3, 4}, 0.5, 2) == set()
    table.delete_one(0, 2)
    PartialSuppressor(table, LastQidItem(), 0.5, 2, 1_000_000, np.random.default_rng(0))._settle([(pairs, ordered)])
    assert current(table, rows) == [[1, 4], [0, 2, 3], [1], [2], [0], [0, 2]]
    assert unsafe_rules(current(table, rows), {3, 4}, 0.5, 2) == set()


@pytest.mark.parametrize("seed", range(6))
def test_identical_records_made_unequal_by_a_deletion_in_the_buffer_each_generate_their_qids(seed):
    # A buffer lets only the first of identical records generate qids, which holds while they
    # stay identical. ρ = 0.5, qid size 3, sensitive 3, policy mine; records 0-2 are {0, 1, 2, 3}.
    # The pair {0, 1} -> 3 is 3/5; N_s(3) = 1 against 2 for 0 or 1, so one 3 goes from one of the
    # three equally long records (the seed's choice). {0, 2} -> 3 and {1, 2} -> 3 are then 2/4,
    # but the triple {0, 1, 2} -> 3 is 2/3, held with 3 by the two records that kept it. When the
    # first record lost the 3 (seeds 2 and 3), the triple comes from the other two, so it is
    # still sanitized in this buffer (leftover(3) = 2/3 beats 1: 3 goes again) and the second
    # pass deletes nothing. Regression: the duplicate mask, computed once per buffer, kept the
    # other two from generating it, and the triple was left to the next pass.
    rows = [[0, 1, 2, 3]] * 3 + [[0, 1], [0, 1], [0, 2], [1, 2], [0], [1], [2]]
    release, stats = suppressed(rows, 4, [3], Mine(), 0.5, 3, seed)
    assert sorted(release[:3]) == [[0, 1, 2], [0, 1, 2], [0, 1, 2, 3]] and release[3:] == rows[3:]
    assert stats["deletions_by_pass"] == [2, 0]
    assert not list(rho_violations(labelled(rows), labelled(release), frozenset({"i3"}), 0.5, 3))


@pytest.mark.parametrize("b_max, buffers", [(3, 3), (4, 2), (6, 2), (7, 1)])
def test_a_buffer_takes_records_until_their_pairs_reach_b_max(b_max, buffers):
    # Algorithm 1, lines 4-8: records are read into B until their qid instances reach b_max, the
    # record that reaches it included. Records 0, 1 and 2 hold the sensitive 6 and 3 pairs each
    # (cumulated 3, 6, 9); the others make every rule safe at ρ = 0.5 (6 -> 3/9, each item -> 1/3,
    # each pair of a record with 6 -> 1/3), so one pass deletes nothing and reads each record once.
    rows = [[0, 1, 6], [2, 3, 6], [4, 5, 6], [0, 1], [0, 1], [2, 3], [2, 3], [4, 5], [4, 5]]
    release, stats = suppressed(rows, 7, [6], Mine(), 0.5, 2, 0, b_max=b_max)
    assert release == rows
    assert (stats["passes"], stats["buffers"]) == (1, buffers)


class QidItemFirst(RhoPolicy):
    """A third party's policy that deletes an item of the qid whenever it may."""

    name = "qid-item-first"

    def score(self, options, state):
        return options.in_qid.astype(np.float64)


@pytest.mark.parametrize("seed", range(4))
def test_an_item_of_the_qid_is_deleted_only_from_records_that_also_hold_the_consequent(seed):
    # Algorithm 2, line 13: d is deleted from records of C(q ∪ {e}), not of C(q). ρ = 0.5, qid
    # size 1, sensitive 1 (0 = a, 1 = s). a -> s is 2/3 (the empty qid: 2 of 7, safe), and
    # N_s(a) = (2 - 0.5·3)/(1 - 0.5) = 1: one a goes from record 0 or 1, leaving 1/2. The longest
    # holder of a, record 2, lacks s: deleting a there would raise a -> s to 2/2.
    rows = [[0, 1], [0, 1], [0, 2, 3, 4], [2], [3], [4], [5]]
    release = records_after(rows, 6, [1], QidItemFirst(), 0.5, 1, seed)
    assert release[2:] == rows[2:]
    assert sorted(release[:2]) == [[0, 1], [1]]


class Recording(Mine):
    """:class:`Mine`, keeping the options of every choice it is asked to make."""

    def __init__(self):
        super().__init__()
        self.offered = []

    def choose(self, options, state):
        self.offered.append(options)
        return super().choose(options, state)


def test_an_unsafe_qid_offers_each_of_its_items_against_each_consequent_at_its_n_s():
    # Algorithm 2, lines 5-11: every (d, e) with d in q ∪ {e}, and k = N_s(d, q -> e) of Definition 1.
    # ρ = 0.4, qid size 2, sensitive 2 and 3 (0 = a, 1 = b, 4 = y). {a, b} is held by 8 records,
    # 4 with e2 and 4 with e3: both rules are 4/8 > 0.4, and nothing else is unsafe (a -> e2 and
    # b -> e2 are 4/10, the empty qid 4/12, and no record holds both sensitive items).
    # N_s(e) = 4 - 0.4·8 = 0.8, one deletion; N_s(a) = N_s(b) = 0.8/(1 - 0.4), two.
    rows = [[0, 1, 2]] * 4 + [[0, 1, 3]] * 4 + [[0, 4]] * 2 + [[1, 4]] * 2
    policy = Recording()
    stats = suppressed(rows, 5, [2, 3], policy, 0.4, 2, 0)[1]
    assert stats["unsafe_qids"] == 1
    first = policy.offered[0]
    assert first.qid.tolist() == [0, 1]
    offered = set(zip(first.victim.tolist(), first.consequent.tolist(), first.deletions.tolist(),
                      first.in_qid.tolist()))
    assert len(offered) == len(first.victim)
    assert offered == {(2, 2, 1, False), (3, 3, 1, False),
                       (0, 2, 2, True), (0, 3, 2, True), (1, 2, 2, True), (1, 3, 2, True)}


def test_records_of_the_same_length_lose_the_victim_in_a_seeded_random_order():
    # line 13's record choice: a -> s is 2/2 at ρ = 0.5, N_s(s) = 1 against N_s(a) = 2, so one s
    # goes, from record 0 or record 1, both of length 2; the seeded record rank decides, and the
    # seeds disagree
    rows = [[0, 1], [0, 1], [2], [3]]
    releases = {tuple(map(tuple, records_after(rows, 4, [1], Mine(), 0.5, 1, seed))) for seed in range(8)}
    assert releases == {((0,), (0, 1), (2,), (3,)), ((0, 1), (0,), (2,), (3,))}


@pytest.mark.parametrize("rows, rho, release", [
    # a -> s1 and a -> s2 are 1/3 > 0.3 over records 0-2 (the empty qid: 1 of 4 each, safe);
    # every option needs one deletion, so each rule loses its consequent
    ([[0, 1], [0, 2], [0, 3], [4]], 0.3, [[0], [0], [0, 3], [4]]),
    # a, held by record 0 alone, infers s1 and s2 at 1/1 (the empty qid: 3 of 7 each; s1 -> s2
    # and s2 -> s1 are 1/3)
    ([[0, 1, 2], [1], [2], [1], [2], [3], [3]], 0.5, [[0], [1], [2], [1], [2], [3], [3]]),
])
@pytest.mark.parametrize("seed", range(2))
def test_a_qid_with_two_unsafe_consequents_is_sanitized_until_safe_in_one_pass(rows, rho, release, seed):
    # Algorithm 2, lines 3-17 repeat on q until it is safe: with qid size 1 and sensitive 1 and 2,
    # a = 0 loses neither (every leftover is 1 and the tie goes to the consequent), both
    # consequents go in the first pass, and the second deletes nothing; a is one unsafe qid
    after, stats = suppressed(rows, 1 + max(map(max, rows)), [1, 2], Mine(), rho, 1, seed)
    assert after == release
    assert stats["deletions_by_pass"] == [2, 0]
    assert stats["unsafe_qids"] == 1


@pytest.mark.parametrize("seed", range(2))
def test_a_consequent_at_exactly_rho_is_left_alone_while_another_is_sanitized(seed):
    # ρ = 0.7 as typed, compared exactly (docs/rho.md): in floating point 0.7·90 is
    # 62.99999999999999. Of 90 records, 64 hold s0 and 63 hold s1 (37 both). The empty qid infers
    # s0 at 64/90 > 0.7, N_s = 1, and s1 at 63/90 = 0.7, safe; one s0 goes from a longest record,
    # one of the first 37. Then s0 -> s1 and s1 -> s0 are 36/63, safe, and nothing else is deleted.
    rows = [[0, 1]] * 37 + [[0]] * 27 + [[1]] * 26
    after, stats = suppressed(rows, 2, [0, 1], Mine(), 0.7, 1, seed)
    assert after[37:] == rows[37:]
    assert sorted(after[:37]) == [[0, 1]] * 36 + [[1]]
    assert stats["deletions_by_pass"] == [1, 0]


@pytest.mark.parametrize("seed", range(2))
def test_the_settle_counts_a_qid_unsafe_only_for_a_sensitive_item_it_still_infers(seed):
    # docs/rho.md's unsafe_qids: the qids found with an unsafe rule q -> e, e outside q. ρ = 0.7, qid
    # size 3, sensitive 1 and 3. The one unsafe rule is {1, 2} -> 3 at 1/1 (record 2; every other rule
    # is at most 2/3); Mine's options are one deletion each at leftover 1 and the tie goes to the
    # consequent, so that 3 goes. The settle of the buffer then re-checks its qids: {2, 3} and {1, 3}
    # hold a sensitive item, which is no rule of theirs, and the deleted 3 is no longer held.
    rows = [[0], [1], [1, 2, 3], [0, 3], [0, 2, 3], [0, 2]]
    after, stats = suppressed(rows, 4, [1, 3], Mine(), 0.7, 3, seed)
    assert after == [[0], [1], [1, 2], [0, 3], [0, 2, 3], [0, 2]]
    assert stats["unsafe_qids"] == 1
    assert stats["deletions_by_pass"] == [1, 0]


@pytest.mark.parametrize("seed", range(8))
def test_dist_weighs_a_qid_held_by_one_record_by_the_current_occurrences(seed):
    # eq. 6's T(t) is a share of the occurrences of T as it is now. ρ = 0.5, qid size 3, sensitive
    # 3, 4 and 5; 18 occurrences. The single-item qids {2} -> 3 (2/3) and {1} -> 3 (2/2) are unsafe;
    # {2} comes first, every H_dist is 0 (T = T0), and the tie goes to the consequent: one 3 goes,
    # from the longer holder, record 5, which settles {1} -> 3 too. Of 17 occurrences left, record 6
    # alone holds {0, 2} -> 3: H_dist(3) = 3/17 log((3/17)/(4/18)) < 0, H_dist(0) = 2/17 log(18/17),
    # H_dist(2) = 3/17 log(18/17), the best: 2 goes. Over 18 occurrences 0 and 2 would tie at 0.
    rows = [[0], [2, 4], [3, 5], [1, 3], [5], [1, 2, 3, 6], [0, 2, 3], [4, 5], [6]]
    after, stats = suppressed(rows, 7, [3, 4, 5], Dist(), 0.5, 3, seed)
    assert after == [[0], [2, 4], [3, 5], [1, 3], [5], [1, 2, 6], [0, 3], [4, 5], [6]]
    assert stats["deletions_by_pass"] == [2, 0]


def test_global_fails_rather_than_removing_a_settled_type_for_ever(monkeypatch):
    # a -> s1 and a -> s2 are 1/1 at ρ = 0.5 (every other rule at most 1/2), and removing a, one
    # occurrence for both rules, goes first. A slip that left those rules counted for s1 and s2
    # (here, the rules of the qids that die with a never found) offered s1 again after its
    # removal, for ever; now the window fails
    monkeypatch.setattr(suppressor, "concat_ranges", lambda starts, stops: np.zeros(0, dtype=np.int64))
    rows = [[0, 1, 2], [1], [2], [3], [3], [3]]
    with pytest.raises(RuntimeError, match="global: removing item type [12] left 1 unsafe qid"):
        suppressed(rows, 4, [1, 2], Global(), 0.5, 1, 0)
