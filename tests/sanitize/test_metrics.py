"""The measures of §5: HF, MC, AP at σ, dissimilarity and size loss."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.mining import frequent_itemsets
from setveil.core.window import Window
from setveil.plugins.sanitize.metrics import PatternMetrics, _minimal, dissimilarity, fimi_bytes
from setveil.plugins.sanitize.patterns import RestrictivePatterns

from .helpers import write_patterns


def test_hand_checked_on_the_worked_example(fig3, fig3_patterns):
    # σ=0.3 of 6 transactions: support >= 2. P: A B C D, AB AC AD BC BD CD, ABC ABD ACD (13);
    # restrictive: ABD, ACD. The IGA release at ψ=0 (ABC ABC AB AC ABC BD) keeps
    # A B C AB AC BC ABC: no restrictive pattern, 4 legitimate ones lost (D AD BD CD).
    release = Window.from_transactions([list(t) for t in ["ABC", "ABC", "AB", "AC", "ABC", "BD"]], vocab=fig3.vocab)
    figures = PatternMetrics(fig3, 0.3).evaluate(release, RestrictivePatterns.load(fig3_patterns))
    assert figures["min_support"] == 2
    assert (figures["frequent_before"], figures["frequent_after"]) == (13, 7)
    assert (figures["restrictive_before"], figures["restrictive_after"]) == (2, 0)
    assert figures["hiding_failure"] == 0.0
    assert figures["misses_cost"] == pytest.approx(4 / 11)
    assert figures["artifactual_patterns"] == 0.0
    assert figures["dissimilarity"] == pytest.approx(3 / 18)


def test_a_release_with_its_own_vocabulary_is_measured_by_label(fig3, fig3_patterns):
    # the worked example's release, rows reordered so that its own ids (B D A C) differ from the
    # original's (A B C D): the figures are those above
    release = Window.from_transactions([list(t) for t in ["BD", "ABC", "ABC", "AB", "AC", "ABC"]])
    figures = PatternMetrics(fig3, 0.3).evaluate(release, RestrictivePatterns.load(fig3_patterns))
    assert (figures["frequent_after"], figures["restrictive_after"]) == (7, 0)
    assert figures["misses_cost"] == pytest.approx(4 / 11)
    assert figures["artifactual_patterns"] == 0.0
    assert figures["dissimilarity"] == pytest.approx(3 / 18)


def test_unchanged_release_and_sigma_off(fig3, fig3_patterns):
    patterns = RestrictivePatterns.load(fig3_patterns)
    figures = PatternMetrics(fig3, 0.3).evaluate(fig3, patterns)
    assert (figures["hiding_failure"], figures["misses_cost"], figures["artifactual_patterns"]) == (1.0, 0.0, 0.0)
    assert PatternMetrics(fig3, None).evaluate(fig3, patterns) == {"dissimilarity": 0.0, "size_loss": 0.0}


def test_size_is_measured_in_fimi_bytes():
    window = Window.from_transactions([["10", "7"], [], ["100"]])
    assert fimi_bytes(window) == len("10 7\n\n100\n")
    smaller = Window.from_transactions([["7"], [], ["100"]], vocab=window.vocab)
    assert dissimilarity(window, smaller) == pytest.approx(1 / 3)


def test_artifacts_are_counted(fig3, fig3_patterns):
    # not a sanitization: adding C to T6 makes BCD frequent, which it was not
    release = Window.from_transactions([list(t) for t in ["ABCD", "ABC", "ABD", "ACD", "ABC", "BCD"]], vocab=fig3.vocab)
    figures = PatternMetrics(fig3, 0.3).evaluate(release, RestrictivePatterns.load(fig3_patterns))
    assert figures["artifactual_patterns"] == pytest.approx(1 / 14)  # BCD is new among 14
    assert dissimilarity(fig3, release) == pytest.approx(1 / 18)


ALPHABET = list("abcdef")


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.lists(st.sampled_from(ALPHABET), unique=True, max_size=5), min_size=1, max_size=20),
    released_mask=st.lists(st.booleans(), min_size=100, max_size=100),
    # up to 6 patterns of 2 to 4 items, so that one often holds another (only the minimal ones are tested)
    patterns=st.lists(st.lists(st.sampled_from(ALPHABET + ["z"]), unique=True, min_size=2, max_size=4), min_size=1, max_size=6),
    sigma=st.sampled_from([0.05, 0.2, 0.5]),
)
def test_matches_set_arithmetic(tmp_path_factory, rows, released_mask, patterns, sigma):
    unique = list(dict.fromkeys(frozenset(p) for p in patterns))
    path = write_patterns(tmp_path_factory.mktemp("p") / "p.txt", *(" ".join(sorted(p)) for p in unique))
    mask = iter(released_mask * 10)
    released = [[item for item in row if next(mask)] for row in rows]
    original = Window.from_transactions(rows)
    release = Window.from_transactions(released, vocab=original.vocab)
    figures = PatternMetrics(original, sigma).evaluate(release, RestrictivePatterns.load(path))
    support = figures["min_support"]
    label = original.vocab.label
    before = {frozenset(label(i) for i in s) for s in frequent_itemsets(original, support)}
    after = {frozenset(label(i) for i in s) for s in frequent_itemsets(release, support)}
    restrictive = {s for s in before if any(p <= s for p in unique)}
    legitimate = before - restrictive
    assert figures["frequent_before"] == len(before) and figures["frequent_after"] == len(after)
    assert figures["restrictive_after"] == sum(1 for s in after if any(p <= s for p in unique))
    if restrictive:
        assert figures["hiding_failure"] == pytest.approx(len(restrictive & after) / len(restrictive))
    if legitimate:
        assert figures["misses_cost"] == pytest.approx(len(legitimate - after) / len(legitimate))
    if after:
        assert figures["artifactual_patterns"] == 0.0


def test_only_the_minimal_patterns_are_kept_to_test_containment():
    # QA as a researcher: 74,560 patterns (every one holding the 10 picks) took an hour to count
    masks = np.array([[0b1110], [0b0110], [0b0110], [0b1001], [0b1101], [0b0011]], dtype=np.uint64)
    sizes = np.array([3, 2, 2, 2, 3, 2])
    assert sorted(_minimal(masks, sizes)[:, 0].tolist()) == [0b0011, 0b0110, 0b1001]


@pytest.mark.parametrize("sigma, n, support", [(1 / 11, 11, 1), (5 / 7, 7, 5), (0.1, 30, 3), (0.1000000001, 10, 1)])
def test_sigma_asks_for_the_support_meant_with_a_tolerance_of_1e_9(sigma, n, support):
    # docs/sanitize.md, Choices 5: the shortest decimal of a computed k/n can exceed k when
    # multiplied by n (0.09090909090909091 * 11 > 1), so sigma is not read exactly as psi is, and
    # a sigma typed to ten digits is read to nine (QA)
    window = Window.from_transactions([["a", "b"]] * n)
    assert PatternMetrics(window, sigma).min_support == support


def test_a_measure_with_no_pattern_to_count_is_null(tmp_path, fig3):
    # docs/sanitize.md: HF, MC and AP are null when undefined. At σ=1 of [a] [b] nothing is
    # frequent: no restrictive, no legitimate pattern in P, and P' is empty
    pair = write_patterns(tmp_path / "ab.txt", "a b")
    original = Window.from_transactions([["a"], ["b"]])
    figures = PatternMetrics(original, 1.0).evaluate(original, RestrictivePatterns.load(pair))
    assert (figures["hiding_failure"], figures["misses_cost"], figures["artifactual_patterns"]) == (None, None, None)
    # Fig. 3 at σ=0.3 (support 2): ABCD is in T1 alone, so R_P(D) is empty; nothing changed
    whole = write_patterns(tmp_path / "abcd.txt", "A B C D")
    figures = PatternMetrics(fig3, 0.3).evaluate(fig3, RestrictivePatterns.load(whole))
    assert (figures["hiding_failure"], figures["misses_cost"], figures["artifactual_patterns"]) == (None, 0.0, 0.0)
    # [ab] [ab] at σ=1: P = {a, b, ab}, R_P(D) = {ab}; the release [a] [b] has P' empty:
    # HF = 0/1, MC = 2/2 (a and b lost), AP undefined
    original = Window.from_transactions([["a", "b"], ["a", "b"]])
    release = Window.from_transactions([["a"], ["b"]], vocab=original.vocab)
    figures = PatternMetrics(original, 1.0).evaluate(release, RestrictivePatterns.load(pair))
    assert (figures["hiding_failure"], figures["misses_cost"], figures["artifactual_patterns"]) == (0.0, 1.0, None)


def test_dissimilarity_counts_items_the_original_does_not_have():
    # Σ|f_D(i) - f_D'(i)| / Σ f_D(i) with f_D(z) = 0: (|1-1| + |1-1| + |0-1|) / 2
    original = Window.from_transactions([["a"], ["b"]])
    release = Window.from_transactions([["a", "z"], ["b"]])
    assert PatternMetrics(original, None).evaluate(release, RestrictivePatterns("none", (), ()))["dissimilarity"] == 0.5


def test_an_empty_database_loses_nothing():
    empty = Window.from_transactions([])
    assert PatternMetrics(empty, None).evaluate(empty, RestrictivePatterns("none", (), ())) == {
        "dissimilarity": 0.0, "size_loss": 0.0}


def test_patterns_new_to_the_release_past_64_frequent_items_are_told_apart(tmp_path):
    # not a sanitization: 64 items, each alone in 2 of 128 transactions, are P at support 2
    # (σ = 1/64) and fill one 64-bit word; the release adds y to both i0 and z to both i1. P' =
    # P + {y}, {z}, {i0, y}, {i1, z}: AP = 4/68, and no frequent itemset holds the restrictive y z
    rows = [[f"i{k}"] for k in range(64) for _ in range(2)]
    original = Window.from_transactions(rows)
    release = Window.from_transactions([rows[0] + ["y"], rows[1] + ["y"], rows[2] + ["z"], rows[3] + ["z"], *rows[4:]])
    patterns = RestrictivePatterns.load(write_patterns(tmp_path / "p.txt", "y z"))
    figures = PatternMetrics(original, 1 / 64).evaluate(release, patterns)
    assert (figures["frequent_before"], figures["frequent_after"]) == (64, 68)
    assert (figures["restrictive_before"], figures["restrictive_after"], figures["hiding_failure"]) == (0, 0, None)
    assert figures["artifactual_patterns"] == pytest.approx(4 / 68) and figures["misses_cost"] == 0.0


def test_restrictive_patterns_in_different_words_of_the_frequent_items_are_each_counted(tmp_path):
    # Mutation pass: a mask taken to hold the smallest pattern when one of its 64-bit words does
    # (any for all) passed every test, as every test's restrictive patterns shared a word. Here a b
    # are frequent items 0 and 1, c d 72 and 73, each pair held by 2 transactions: both pairs are
    # restrictive, and the release hides c d alone (c and d, now held once each, go too)
    rows = [["a", "b"]] * 2 + [[f"i{k}"] for k in range(70) for _ in range(2)] + [["c", "d"]] * 2
    original = Window.from_transactions(rows)
    release = Window.from_transactions([*rows[:-2], ["c"], ["d"]], vocab=original.vocab)
    patterns = RestrictivePatterns.load(write_patterns(tmp_path / "p.txt", "a b", "c d"))
    figures = PatternMetrics(original, 2 / len(rows)).evaluate(release, patterns)
    assert (figures["frequent_before"], figures["frequent_after"]) == (76, 73)
    assert (figures["restrictive_before"], figures["restrictive_after"], figures["hiding_failure"]) == (2, 1, 0.5)
    assert figures["misses_cost"] == pytest.approx(2 / 74)
