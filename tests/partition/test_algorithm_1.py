"""Algorithm 1's choices that Example 2 never exercises, each on a small database whose release is
derived by hand from §4.1 and the choices of docs/partition.md: a tie in pick_node, a node whose
children are inner nodes (the gain is the NCP before minus the NCP after), which transactions top
up a leftover, and which bucket moves whole."""

import numpy as np
import pytest

from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition import Partition
from setveil.plugins.partition.partition import _balance
from setveil.plugins.partition.recoding import LeafWindow

from .examples import FIGURE_2, as_sets, hierarchy
from .test_paper_examples import run

# Fig. 2 with A one level deeper: A -> {A1, A2}, A1 -> {a1, a2}, A2 -> {a3, a4}, B -> {b1, b2};
# |I| = 6, so NCP is 4/6 for A and 2/6 for A1, A2 and B.
DEEP = [("A", "ALL"), ("B", "ALL"), ("A1", "A"), ("A2", "A"), ("a1", "A1"), ("a2", "A1"), ("a3", "A2"),
        ("a4", "A2"), ("b1", "B"), ("b2", "B")]


def released(edges, rows, k=2):
    _, _, release = run("kanonymity", {"k": str(k)}, edges, rows)
    return [set(row) for row in as_sets(release)]


def test_a_tie_in_pick_node_goes_to_the_node_first_in_preorder():
    # Cut {A, B} for all four: A and B gain 4 * 2/4 each. A, first in preorder, splits them into
    # {a1, B} (T1, T2) and {a2, B} (T3, T4); B then fails in both. Taking B first would give
    # {A, b1} and {A, b2}.
    rows = [["a1", "b1"], ["a1", "b2"], ["a2", "b1"], ["a2", "b2"]]
    assert released(FIGURE_2, rows) == [{"a1", "B"}, {"a1", "B"}, {"a2", "B"}, {"a2", "B"}]


def test_the_gain_of_a_node_is_its_ncp_less_its_childs():
    # Cut {A, B} for all four. Expanding A takes 4 occurrences from 4/6 to 2/6 (gain 8/6), B takes 6
    # from 2/6 to 0 (gain 12/6): B goes first, and A then fails (T1 is under A1, T3 under A2).
    # Counting the NCP before only (A 16/6 against B 12/6) would take A first and release
    # {a1, B}, {a1, B}, {a3, B}, {a3, B}.
    rows = [["a1", "b1", "b2"], ["a1", "b1"], ["a3", "b1", "b2"], ["a3", "b1"]]
    assert released(DEEP, rows) == [{"A", "b1", "b2"}, {"A", "b1"}, {"A", "b1", "b2"}, {"A", "b1"}]


def test_the_leftover_is_topped_up_by_the_gain_of_the_expanded_node():
    # Cut {A, B}: A gains 4 + 2 + 4 + 4 (in units of 1/6), B 2 + 4 + 2 + 2: A goes. T1-T3 land in
    # {A1, B}, T4 alone in {A1, A2, B} and needs one more. The donor is T2, whose expansion of A
    # gains least (2, against 4 for T1 and T3), not T1, whose whole transaction gains as little
    # (6, as T2's and T3's). T1 and T3 then reach their leaves; the leftover keeps {A, B}.
    rows = [["a1", "a2", "b1"], ["a1", "b1", "b2"], ["a1", "a2", "b1"], ["a1", "a3", "b1"]]
    assert released(DEEP, rows) == [{"a1", "a2", "b1"}, {"A", "B"}, {"a1", "a2", "b1"}, {"A", "B"}]


def test_a_bucket_that_can_spare_exactly_what_the_leftover_needs_gives_it():
    # k = 2: T0 alone needs one more; the bucket T1-T3 can spare exactly one, its least gain (T2)
    bucket = np.array([0, 1, 1, 1])
    move = _balance(bucket, np.zeros(4, dtype=np.int64), np.array([0.0, 3.0, 1.0, 2.0]), 1, 2)
    assert move.tolist() == [True, False, True, False]


def test_equal_gains_give_the_earliest_transactions():
    # k = 2: T0 and T3 are alone (a leftover of two, enough); T4 alone in the next partition needs
    # one more from the bucket T5-T8, all of equal gain: T5, the first, goes
    bucket = np.array([0, 1, 1, 2, 3, 4, 4, 4, 4])
    tpart = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1])
    move = _balance(bucket, tpart, np.array([1.0, 1, 1, 1, 1, 1, 1, 1, 1]), 2, 2)
    assert np.flatnonzero(move).tolist() == [0, 3, 4, 5]


def test_equal_gains_give_the_earliest_transaction_across_buckets():
    # k = 2: T0 alone needs one more; buckets 2 (T1-T3) and 1 (T4-T6) can each spare one, all of
    # equal gain. Bucket ids follow the children mask, not input order, so T1, the earliest, goes
    # although its bucket's id is the larger.
    bucket = np.array([0, 2, 2, 2, 1, 1, 1])
    move = _balance(bucket, np.zeros(7, dtype=np.int64), np.ones(7), 1, 2)
    assert np.flatnonzero(move).tolist() == [0, 1]


def test_no_bucket_gives_more_than_its_excess_when_the_gains_of_two_buckets_interleave():
    # k = 5: T0 alone needs four more; the buckets T1-T7 and T8-T14 can each spare two, their
    # least gains 1, 2 and 3, 10. The leftover takes 1, 2, 3, 10, not the third of T1-T7 (gain 4),
    # which would leave it four transactions, fewer than k. Mutation testing: donors ranked by
    # gain across the buckets before each bucket's excess was counted (ranks 1, 2 | 3 | 4 |
    # 10) let the gain 4 through.
    bucket = np.array([0] + [1] * 7 + [2] * 7)
    gain = np.array([0.0, 1, 2, 4, 20, 20, 20, 20, 3, 10, 20, 20, 20, 20, 20])
    move = _balance(bucket, np.zeros(15, dtype=np.int64), gain, 1, 5)
    assert np.flatnonzero(move).tolist() == [0, 1, 2, 8, 9]


def test_partitions_topping_up_in_the_same_round_each_take_their_own_need():
    # k = 3: T0 and T7 are alone in two partitions and each needs two more; each partition's
    # bucket of six can spare three, gains 1, 3, 5 and 2, 4, 6. Each leftover takes its own two
    # least gains, so both hold exactly k. Mutation testing: donors ranked by gain across the
    # partitions at once (interleaved 1, 2, 3, ...) moved all six spares, leaving buckets of k.
    bucket = np.array([0, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3, 3])
    tpart = np.array([0] * 7 + [1] * 7)
    gain = np.array([0.0, 1, 3, 5, 7, 7, 7, 0, 2, 4, 6, 8, 8, 8])
    move = _balance(bucket, tpart, gain, 2, 3)
    assert np.flatnonzero(move).tolist() == [0, 1, 2, 7, 8, 9]


def test_when_no_bucket_can_spare_enough_the_bucket_of_least_total_gain_moves_whole():
    # k = 3: T0 alone needs two more; the buckets T1-T3 (gain 6) and T4-T6 (gain 3) can spare none,
    # so T4-T6 moves whole
    bucket = np.array([0, 1, 1, 1, 2, 2, 2])
    move = _balance(bucket, np.zeros(7, dtype=np.int64), np.array([0.0, 2, 2, 2, 1, 1, 1]), 1, 3)
    assert np.flatnonzero(move).tolist() == [0, 4, 5, 6]


def test_partitions_that_each_move_a_bucket_whole_in_the_same_round_move_one_each():
    # k = 2: T0 and T5 are alone in two partitions; no bucket can spare one. Each partition's
    # bucket of least total gain moves whole: T1-T2 (1, against 3 for T3-T4) and T6-T7 (2,
    # against 4 for T8-T9). Mutation testing: buckets ranked by gain across the partitions
    # (1, 2, 3, 4 alternate between them) moved all four whole.
    bucket = np.array([0, 1, 1, 2, 2, 3, 4, 4, 5, 5])
    tpart = np.array([0] * 5 + [1] * 5)
    gain = np.array([0.0, 1, 0, 1, 2, 0, 1, 1, 2, 2])
    move = _balance(bucket, tpart, gain, 2, 2)
    assert np.flatnonzero(move).tolist() == [0, 1, 2, 5, 6, 7]


def test_a_tie_between_buckets_that_could_move_whole_goes_to_the_smallest_children_mask():
    # k = 2, ALL expanded: T1 alone in {A, B} needs one more; {A} (T2, T3) and {B} (T4, T5) can
    # spare none and gain alike (2 occurrences from 4/4 to 2/4). {A}, children mask 0b01 against
    # 0b10, moves whole, and the leftover T1-T3 keeps {ALL}
    rows = [["a1", "a2", "b1"], ["a1"], ["a1"], ["b1"], ["b1"]]
    assert released(FIGURE_2, rows) == [{"ALL"}, {"ALL"}, {"ALL"}, {"b1"}, {"b1"}]


@pytest.mark.parametrize("children", [64, 65])
def test_the_tie_goes_to_the_smallest_children_mask_when_the_last_child_is_the_64th_or_65th(children):
    # k = 2, ALL over 64 or 65 leaves expanded: T1 alone in {c1} needs one more; {c0} (T2, T3) and
    # {c63} or {c64} (T4, T5) can spare none and gain alike, so {c0}, the smaller mask, moves whole.
    # Mutation testing: buckets keyed as signed 64-bit integers up to 64 bits wide put the mask of
    # bit 63 (negative) first, and {c63} moved whole.
    last = f"c{children - 1}"
    edges = [(f"c{i}", "ALL") for i in range(children)]
    rows = [["c1"], ["c0"], ["c0"], [last], [last]]
    assert released(edges, rows) == [{"ALL"}, {"ALL"}, {"ALL"}, {last}, {last}]


def test_a_hierarchy_of_one_item_releases_it_as_is_in_one_class():
    # `--fanout` over data of a single item builds a one-node hierarchy: the root is the leaf, no
    # round runs, and the transactions holding it are one class of identical releases
    h = Hierarchy.balanced(["x"], 5)
    original = Window.from_transactions([["x"], ["x"], ["x"]])
    recoding = Partition().recode(LeafWindow.of(original, h), h, 2, np.random.default_rng(0))
    assert recoding.stats["equivalence_classes"] == 1 and recoding.stats["partition_rounds"] == 0
    assert as_sets(recoding.release(original, h)) == [frozenset({"x"})] * 3


def test_the_empty_transactions_are_one_more_equivalence_class():
    # docs/partition.md: `equivalence_classes` counts groups of identical released transactions,
    # and the empty ones release as empty, identical only to each other. Regression: the stat
    # counted Partition's partitions alone and gave 1 here.
    h = hierarchy(FIGURE_2)
    original = Window.from_transactions([["a1"], [], ["a1"], []])
    recoding = Partition().recode(LeafWindow.of(original, h), h, 2, np.random.default_rng(0))
    assert as_sets(recoding.release(original, h)) == [frozenset({"a1"}), frozenset(), frozenset({"a1"}), frozenset()]
    assert recoding.stats["equivalence_classes"] == 2
