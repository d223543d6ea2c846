"""The victim heuristics of §3.2 by hand: H_dist (eq. 6) is maximized and divides by N_s,
H_mine (eq. 7) is minimized and weighs N_s by leftover(t) (Definition 2). The safety tests
cannot see these: any victim yields a safe release, only a different one."""

import math

import numpy as np
import pytest

from setveil.plugins.rho.policies import Dist, Global, Mine, Options, State


def state(support, support0):
    support, support0 = np.array(support, dtype=np.int64), np.array(support0, dtype=np.int64)
    n = len(support)
    return State(support, support0, int(support.sum()), int(support0.sum()), np.zeros(n, dtype=np.int64),
                 np.ones(1, dtype=np.int64), np.arange(n), np.zeros(1, dtype=np.int64))


def options(victims, deletions, in_qid):
    victims = np.array(victims, dtype=np.int64)
    return Options(np.zeros(0, dtype=np.int64), victims, victims, np.array(deletions, dtype=np.int64),
                   np.array(in_qid, dtype=bool))


def test_h_dist_is_equation_6():
    # T has lost two occurrences of item 2 (13 -> 11 in all): T(t) = sup(t)/11, T0(t) = sup0(t)/13
    now = state([6, 3, 2], [6, 3, 4])
    score = Dist().score(options([0, 1, 2], [1, 2, 1], [False, True, True]), now)
    expected = [6 / 11 * math.log((6 / 11) / (6 / 13)) / 1,
                3 / 11 * math.log((3 / 11) / (3 / 13)) / 2,
                2 / 11 * math.log((2 / 11) / (4 / 13)) / 1]
    assert score.tolist() == pytest.approx(expected)


def test_dist_prefers_fewer_deletions_over_a_larger_share():
    # Item 2 was deleted before, so items 0 and 1 are over-represented by the same ratio
    # r = 20/18: H_dist = T(t) log r / N_s. The consequent 0 (sup 4, N_s 1) scores 4/18·log r,
    # the qid item 1 (sup 6, N_s 2) 6/18·log r / 2 = 3/18·log r: eq. 6 deletes the consequent.
    # Without the division by N_s item 1, the larger share, would go.
    now = state([4, 6, 8], [4, 6, 10])
    assert Dist().choose(options([0, 1], [1, 2], [False, True]), now) == 0


def test_h_mine_is_equation_7_and_minimized():
    # leftover(0) = 1/4 (deleted before), leftover(1) = 1: H_mine = 1/4·2 = 0.5 against 1·1 = 1,
    # so mine keeps deleting item 0 although it needs one deletion more
    now = state([1, 5], [4, 5])
    chosen = options([0, 1], [2, 1], [True, False])
    assert Mine().score(chosen, now).tolist() == pytest.approx([-0.5, -1.0])
    assert Mine().choose(chosen, now) == 0


def test_global_removes_the_type_that_settles_most_per_occurrence():
    # the baseline's payoff (documented in docs/rho.md): unsafe qids and rules settled per
    # occurrence removed. Item 0 settles 2 with 1 occurrence (2 per occurrence), item 1 settles 3
    # with 6 (1/2 per occurrence): item 0 goes first although item 1 settles more in all.
    now = state([1, 6], [1, 6])
    now.unsafe_rules = np.array([2, 3], dtype=np.int64)
    offered = options([0, 1], [1, 6], [False, False])
    assert Global().score(offered, now).tolist() == pytest.approx([2.0, 0.5])
    assert Global().choose(offered, now) == 0


def records_state(lengths, ranks):
    now = state([1], [1])
    now.record_length, now.record_rank = np.array(lengths, dtype=np.int64), np.array(ranks, dtype=np.int64)
    return now


def test_the_longest_records_lose_the_victim_and_ties_go_by_the_seeded_record_rank():
    # record 3 is the longest; records 0, 1 and 2 tie on length and rank 2, 0, 1
    now = records_state([2, 2, 2, 5], [2, 0, 1, 3])
    records = np.arange(4)
    assert Dist().pick_records(records, 1, now).tolist() == [3]
    assert Dist().pick_records(records, 3, now).tolist() == [3, 1, 2]


def many_global_options(unsafe, support):
    """Global's offer of every item type (more than the 32 options that choose sorts whole), with the
    seeded ranks reversed so that the lowest item id is not the first by rank."""
    now = state(support, support)
    now.unsafe_rules = np.array(unsafe, dtype=np.int64)
    now.item_rank = np.arange(len(support))[::-1].copy()
    return options(np.arange(len(support)), support, [False] * len(support)), now


def test_among_many_options_the_tie_breaks_still_apply():
    # 40 types, each settling one rule with one occurrence: a tie that the seeded rank breaks,
    # for the last item, which ranks first
    offered, now = many_global_options([1] * 40, [1] * 40)
    assert Global().choose(offered, now) == 39
