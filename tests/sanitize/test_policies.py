"""Step 2 (victims) and Step 4.1 (transaction order) of each policy, by hand (§4.1-4.4)."""

import numpy as np
import pytest

from setveil.core.window import Window
from setveil.plugins.sanitize.grouping import group_labels, groups
from setveil.plugins.sanitize.patterns import RestrictivePatterns
from setveil.plugins.sanitize.policies import IGA, ItemOrder, MaxFIA, MinFIA, Naive

from .helpers import write_patterns


def victims_of(policy, window, path):
    table = RestrictivePatterns.load(path).table(window.vocab)
    victims = policy.victims(table, ItemOrder.of(window))
    return [[window.vocab.label(int(i)) for i in victims.of(r)] for r in range(len(table))]


def test_victims_in_the_worked_example(fig3, fig3_patterns):
    # supports A 5, B 5, C 4, D 4; patterns ABD, ACD
    assert victims_of(Naive(), fig3, fig3_patterns) == [["A", "B", "D"], ["A", "C", "D"]]
    assert victims_of(MinFIA(), fig3, fig3_patterns) == [["D"], ["C"]]  # ACD: C and D tie, C is first
    assert victims_of(MaxFIA(), fig3, fig3_patterns) == [["A"], ["A"]]  # ABD: A and B tie, A is first
    # IGA: A and D are both in ABD and ACD: one group, I = AD, label D (support 4 < 5)
    assert victims_of(IGA(), fig3, fig3_patterns) == [["D"], ["D"]]


def test_maxfia_takes_the_greatest_support_not_the_pseudo_code_condition(tmp_path):
    window = Window.from_transactions([["a", "b", "c"], ["b", "c"], ["c"]])
    path = write_patterns(tmp_path / "p.txt", "a b c")
    assert victims_of(MaxFIA(), window, path) == [["c"]]
    assert victims_of(MinFIA(), window, path) == [["a"]]


def test_iga_groups_resolve_overlaps_by_size_then_label_support(tmp_path):
    # supports: a 6, b 5, c 4, d 3, e 2, f 1 (each item in the first `support` transactions)
    rows = [[item for item, support in zip("abcdef", (6, 5, 4, 3, 2, 1)) if t < support] for t in range(6)]
    window = Window.from_transactions(rows)
    path = write_patterns(tmp_path / "p.txt", "a b c", "a b d", "c e", "e f")
    table = RestrictivePatterns.load(path).table(window.vocab)
    # a, b -> {abc, abd}; c -> {abc, ce}; d -> {abd}; e -> {ce, ef}; f -> {ef}
    indptr, members = groups(table)
    assert [members[lo:hi].tolist() for lo, hi in zip(indptr[:-1], indptr[1:])] == [[1], [3], [0, 1], [0, 2], [2, 3]]
    victims = group_labels(table, ItemOrder.of(window))
    labels = [window.vocab.label(int(i)) for i in victims]
    # Task 2: G1 {abc,abd} label b (5), G2 {abc,ce} label c (4), G3 {ce,ef} label e (2),
    # G4 {abd} label d, G5 {ef} label f. Task 3, pairwise from the largest:
    # G1/G2 share abc, sizes 2 = 2: it leaves G2 (label c 4 < b 5), G2 = {ce};
    # G1/G4 share abd, 2 > 1: it leaves G4; G2/G3 share ce, now 1 < 2: it leaves G2;
    # G3/G5 share ef, 2 > 1: it leaves G5.
    assert labels == ["b", "b", "e", "e"]


# the order in which items first occur (their ids) must not change Task 3's order of comparisons
@pytest.mark.parametrize("reverse", [False, True])
def test_iga_compares_group_sizes_as_earlier_comparisons_left_them(tmp_path, reverse):
    # Regression (QA): sizes were taken once, before any overlap was removed. G_X {XY,XB,XC} takes
    # XY from G_Y {XY,YZ}, so G_Y (now 1) loses YZ to G_Z {YZ,ZD} (2) by size (3.1): YZ and ZD
    # share the victim Z. Sorting once by the old sizes tied G_Y and G_Z and gave YZ the victim Y.
    rows = [["X", "Y"], ["X", "B"], ["X", "C"], ["Y", "Z"], ["Z", "D"], ["Y"], ["Y"]]
    window = Window.from_transactions(rows[::-1] if reverse else rows)
    path = write_patterns(tmp_path / "p.txt", "X Y", "X B", "X C", "Y Z", "Z D")
    assert victims_of(IGA(), window, path) == [["X"], ["X"], ["X"], ["Z"], ["Z"]]


def test_iga_groups_of_equal_size_at_their_comparison_lose_by_label_support(tmp_path):
    # supports X 4, A 3, B 4, the others 1. Task 2: G_X {XA,XC,XD,XE} (label X), G_A {XA,AB,AF}
    # (A), G_B {AB,BG} (B), then the groups of one. G_X takes XA from G_A, which is then as large
    # as G_B, and of lower label support (3 < 4), so AB leaves G_A although G_A came first.
    window = Window.from_transactions(
        [["X", "A"], ["X", "C"], ["X", "D"], ["X", "E"], ["A", "B"], ["A", "F"], ["B", "G"], ["B"], ["B"]]
    )
    path = write_patterns(tmp_path / "p.txt", "X A", "X C", "X D", "X E", "A B", "A F", "B G")
    assert victims_of(IGA(), window, path) == [["X"]] * 4 + [["B"], ["A"], ["B"]]


def test_iga_groups_of_equal_size_and_label_support_lose_by_the_later_label(tmp_path):
    # every support 1: G_a {ab,ac} and G_b {ab,bd} tie, and ab leaves G_b (b after a); G_b {bd}
    # then ties G_d {bd}, and bd leaves G_d, so bd keeps the victim b
    window = Window.from_transactions([["a", "b", "c", "d"]])
    path = write_patterns(tmp_path / "p.txt", "a b", "a c", "b d")
    assert victims_of(IGA(), window, path) == [["a"], ["a"], ["b"]]


def test_iga_groups_of_equal_size_and_label_support_are_compared_in_label_order(tmp_path):
    # every support 1; G_a {ab,ae}, G_b {ab,bc}, G_c {bc,cd} are taken in label order: G_b loses
    # ab to G_a, and then, smaller, bc to G_c. Taken from G_c down, G_b would have won bc (b before c).
    window = Window.from_transactions([["a", "b", "c", "d", "e"]])
    path = write_patterns(tmp_path / "p.txt", "a b", "b c", "c d", "a e")
    assert victims_of(IGA(), window, path) == [["a"], ["c"], ["c"], ["a"]]


def test_equal_supports_tie_on_label_text_not_on_first_occurrence(tmp_path):
    # c, a, b get the ids 0, 1, 2 and all have support 2: the first label, a, wins
    window = Window.from_transactions([["c", "a", "b"], ["a", "b", "c"]])
    path = write_patterns(tmp_path / "p.txt", "a b c")
    assert victims_of(MinFIA(), window, path) == [["a"]]
    assert victims_of(MaxFIA(), window, path) == [["a"]]


def test_iga_every_pattern_two_groups_share_leaves_the_loser(tmp_path):
    # supports a 3, b 2, the others 1. G_a {abc,abd,ae} (label a) and G_b {abc,abd} (label b)
    # share two patterns: both leave G_b, so G_b, empty, gives abd no victim b when it meets
    # G_d {abd} (label d, support 1)
    window = Window.from_transactions([["a", "b", "c", "d", "e"], ["a", "b"], ["a"]])
    path = write_patterns(tmp_path / "p.txt", "a b c", "a b d", "a e")
    assert victims_of(IGA(), window, path) == [["a"], ["a"], ["a"]]


def test_iga_pattern_alone_gets_its_least_supported_item(tmp_path):
    window = Window.from_transactions([["a", "b", "x", "y"], ["a", "b", "x"], ["a", "x"]])
    path = write_patterns(tmp_path / "p.txt", "a b", "x y")
    assert victims_of(IGA(), window, path) == [["b"], ["y"]]


def test_equal_groups_tie_on_label_text(tmp_path):
    window = Window.from_transactions([["p", "q", "r", "s"]])
    path = write_patterns(tmp_path / "p.txt", "r s", "p q")
    assert victims_of(IGA(), window, path) == [["r"], ["p"]]


@pytest.mark.parametrize(
    "policy, expected",
    [
        # conflict 2 0 1 1 0 0, lengths 4 3 3 3 3 2: least conflicting first, then shorter, then earlier
        (Naive(), [5, 1, 4, 2, 3, 0]),
        (MinFIA(), [5, 1, 4, 2, 3, 0]),
        (MaxFIA(), [5, 1, 4, 2, 3, 0]),
        (IGA(), [0, 2, 3, 5, 1, 4]),
    ],
)
def test_transaction_order(policy, expected):
    conflict = np.array([2, 0, 1, 1, 0, 0])
    lengths = np.array([4, 3, 3, 3, 3, 2])
    assert policy.transaction_order(conflict, lengths).tolist() == expected


@pytest.mark.parametrize("policy, sign", [(MinFIA(), 1), (IGA(), -1)])
def test_transaction_order_keeps_equals_in_window_order_on_long_windows(policy, sign):
    # numpy's default sort is stable only below 17 elements (mutation pass: an argsort of one
    # combined key passed the six-transaction case above)
    rng = np.random.default_rng(0)
    conflict = rng.integers(0, 3, 500)
    lengths = rng.integers(1, 4, 500)
    expected = sorted(range(500), key=lambda t: (sign * conflict[t], lengths[t]))
    assert policy.transaction_order(conflict, lengths).tolist() == expected


# §4.4 Step 2 task 1 and text: "ABC" and "ABD" form one group labelled A or B, the shared item of least support.
@pytest.mark.parametrize("extra, label", [("A", "B"), ("B", "A")])
def test_iga_groups_abc_and_abd_under_their_least_supported_shared_item(tmp_path, extra, label):
    # one more transaction holding `extra` makes it the more frequent of A and B
    window = Window.from_transactions([["A", "B", "C", "D"], ["A", "B", "C"], ["A", "B", "D"], [extra], ["C", "D"]])
    path = write_patterns(tmp_path / "p.txt", "A B C", "A B D")
    table = RestrictivePatterns.load(path).table(window.vocab)
    indptr, members = groups(table)
    # A and B are each held by both patterns: one group, I = AB
    assert [0, 1] in [members[lo:hi].tolist() for lo, hi in zip(indptr[:-1], indptr[1:])]
    assert [window.vocab.label(int(i)) for i in group_labels(table, ItemOrder.of(window))] == [label, label]
    assert victims_of(IGA(), window, path) == [[label], [label]]
