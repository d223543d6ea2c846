"""The utility measures of §2.2 and §4.1."""

import math

import numpy as np
import pytest

from setveil.core.window import Window
from setveil.core.metrics import suppressed_share as info_loss
from setveil.plugins.rho.metrics import association_rules, compare_rules, rule_comparison, symmetric_kl


def test_info_loss_is_the_share_of_deleted_occurrences():
    original = Window.from_transactions([["a", "b"], ["a", "c", "d"]])
    release = original.keep_occurrences(np.array([True, False, True, True, False]))
    assert info_loss(original, release) == pytest.approx(2 / 5)


def test_symmetric_kl_is_zero_for_the_same_distribution_and_symmetric():
    original = Window.from_transactions([["a", "b"], ["a", "b"], ["a"]])
    assert symmetric_kl(original, original) == 0.0
    other = Window.from_transactions([["a"], ["a"], ["b"]], vocab=original.vocab)
    assert symmetric_kl(original, other) == pytest.approx(symmetric_kl(other, original))


def test_symmetric_kl_by_hand():
    # H1 = (3/5 a, 2/5 b); H2 = (1/2 a, 1/2 b); M = (0.55, 0.45)
    original = Window.from_transactions([["a", "b"], ["a", "b"], ["a"]])
    release = Window.from_transactions([["a", "b"], [], []], vocab=original.vocab)
    m = (0.55, 0.45)
    expected = 0.5 * (0.6 * math.log(0.6 / m[0]) + 0.4 * math.log(0.4 / m[1])) + 0.5 * (
        0.5 * math.log(0.5 / m[0]) + 0.5 * math.log(0.5 / m[1])
    )
    assert symmetric_kl(original, release) == pytest.approx(expected)


def test_symmetric_kl_stays_finite_when_an_item_vanishes():
    original = Window.from_transactions([["a", "b"], ["c"]])
    release = Window.from_transactions([["a"], []], vocab=original.vocab)
    assert 0 < symmetric_kl(original, release) <= math.log(2)


def test_a_release_with_every_occurrence_deleted_is_at_the_bound_of_the_divergence():
    # docs/rho.md, Choices: no distribution to compare, so the bound two disjoint ones reach (QA)
    original = Window.from_transactions([["s1"], ["s2"], ["s1"]])
    emptied = Window.from_transactions([[], [], []], vocab=original.vocab)
    assert symmetric_kl(original, emptied) == symmetric_kl(emptied, original) == math.log(2)
    assert symmetric_kl(emptied, emptied) == 0.0
    disjoint = Window.from_transactions([["a"], ["b"]])
    other = Window.from_transactions([["c"], ["d"]], vocab=disjoint.vocab)
    assert symmetric_kl(disjoint, other) == pytest.approx(math.log(2))


def test_rules_lost_and_spurious():
    # R(T) at support 25% and confidence 60%: a -> b (3/4), b -> a, c -> a, bc -> a
    original = Window.from_transactions([["a", "b"], ["a", "b"], ["a", "c"], ["a", "b", "c"]])
    release = Window.from_transactions([["a", "b"], ["a", "b"], ["a"], ["a", "b", "c"]], vocab=original.vocab)
    result = rule_comparison(original, release, 0.25, 0.6, None)
    # deleting c from one record makes c -> b and ac -> b confident (1/1): two spurious rules
    assert result == {
        "rules_original": 4,
        "rules_release": 6,
        "rules_common": 4,
        "rules_lost": 0,
        "rules_spurious": 2,
        "rules_jaccard": pytest.approx(4 / 6),
    }


def test_rule_size_bound_and_keys_of_different_widths_compare():
    original = Window.from_transactions([["a", "b", "c"]] * 3)
    pairs_only = association_rules(original, 0.1, 0.5, 2)
    everything = association_rules(original, 0.1, 0.5, None)
    # six rules x -> y, and three xy -> z; every itemset is in every transaction, which pyfim
    # alone would not report
    assert len(pairs_only) == 6 and len(everything) == 9
    result = compare_rules(everything, pairs_only)
    assert result["rules_common"] == 6 and result["rules_lost"] == 3 and result["rules_spurious"] == 0


def test_no_rules_on_either_side_is_full_similarity():
    empty = Window.from_transactions([["a"], ["b"]])
    assert rule_comparison(empty, empty, 0.5, 0.5, None)["rules_jaccard"] == 1.0
