"""The utility measures of §2.2 and §4.1."""

import math

import numpy as np
import pytest

from setveil.core.mining import MiningTooLarge
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.core.metrics import partially_suppressed, suppressed_share as info_loss
from setveil.plugins.rho.bench import Data, _anonymize
from setveil.plugins.rho.metrics import association_rules, compare_rules, rule_comparison, symmetric_kl


def test_info_loss_is_the_share_of_deleted_occurrences():
    original = Window.from_transactions([["a", "b"], ["a", "c", "d"]])
    release = original.keep_occurrences(np.array([True, False, True, True, False]))
    assert info_loss(original, release) == pytest.approx(2 / 5)


def test_partially_suppressed_counts_the_items_kept_in_some_transactions_only():
    # R3 of Xu et al. §2.2: b kept in one of its two transactions counts, c removed from both does not
    original = Window.from_transactions([["a", "b", "c"], ["b", "c"]])
    release = original.keep_occurrences(np.array([True, True, False, False, False]))
    assert partially_suppressed(original, release) == 1
    assert partially_suppressed(original, original) == 0


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


def test_rule_support_is_a_share_of_the_transactions_rounded_up_and_of_the_whole_rule():
    # docs/rho.md: support of X ∪ {y} at least min_support of the transactions. 30% of 4 is
    # 1.2, so a rule needs 2 transactions. Supports: a 3, b 2, c 2, ab 2, ac 1.
    # a -> b: support 2, confidence 2/3; b -> a: 2, 2/2. c -> a has confidence 1/2 >= 0.5 but a
    # support of 1 (its body c alone has 2), and a -> c has 1 and 1/3: R(T) = {a -> b, b -> a}.
    window = Window.from_transactions([["a", "b"], ["a", "b"], ["a", "c"], ["c"]])
    a, b = window.vocab.ids(["a", "b"]).tolist()
    rules = association_rules(window, 0.3, 0.5, None)
    assert sorted(rules.view(">i4").reshape(len(rules), -1).tolist()) == sorted([[b, a], [a, b]])


def test_a_rule_is_the_same_key_whatever_order_of_frequency_its_items_have():
    # a is more frequent than c in T (5 against 4), less in T' (3 against 4), which changes the
    # order pyfim lists a body in. Every rule of ab, ac, bc, abc has support >= 2 and confidence
    # >= 2/5 in both (a -> b is 2/5 in T), so R(T) = R(T'): 2 + 2 + 2 + 3 = 9 rules.
    original = Window.from_transactions([["a", "b", "c"], ["a", "b", "c"], ["a", "c"], ["a"], ["a"], ["c"]])
    release = Window.from_transactions([["a", "b", "c"], ["a", "b", "c"], ["a", "c"], [], [], ["c"]],
                                       vocab=original.vocab)
    result = rule_comparison(original, release, 0.1, 0.1, None)
    assert (result["rules_original"], result["rules_common"], result["rules_jaccard"]) == (9, 9, 1.0)


def test_keys_compare_whichever_side_is_wider():
    # T' can hold longer rules than T (a rule whose confidence rose): the same 6 pair rules in
    # common, read the other way round from the test above
    window = Window.from_transactions([["a", "b", "c"]] * 3)
    result = compare_rules(association_rules(window, 0.1, 0.5, 2), association_rules(window, 0.1, 0.5, None))
    assert (result["rules_common"], result["rules_lost"], result["rules_spurious"]) == (6, 0, 3)


def test_the_rule_budget_bounds_each_itemset_by_its_size():
    # docs/rho.md: an itemset of z items gives at most z rules. [abc] x 3: ab, ac, bc give 2
    # each and abc 3, a bound of 9, which is also the number of rules (at a support of 1, the
    # longest record's own pairs and triple, 6 + 3, are past a budget of 8 before any counting)
    window = Window.from_transactions([["a", "b", "c"]] * 3)
    assert len(association_rules(window, 0.1, 0.5, None, budget=9)) == 9
    with pytest.raises(MiningTooLarge, match="at least 9 rules"):
        association_rules(window, 0.1, 0.5, None, budget=8)


def test_info_loss_of_a_window_with_no_occurrence_is_zero():
    # nothing to delete is nothing lost (S/N with N = 0)
    empty = Window.from_transactions([[], []])
    assert info_loss(empty, empty) == 0.0


def test_the_sensitive_loss_of_a_window_without_sensitive_occurrences_is_zero():
    # nothing sensitive to lose, so the report's share is 0 however much else the release deleted
    window = Window.from_transactions([["a", "b"], ["a"]])
    model = get_registry().configure("rho", None, {"rho": "0.5", "rule_metrics": "false"},
                                     Context(schema=ItemSchema(private=frozenset({"s"})))).model
    release = window.keep_occurrences(np.array([True, False, False]))
    assert model.metrics(window, release)["sensitive_loss"] == 0.0


@pytest.mark.parametrize("params, rules", [
    ({}, 9),  # ρ = 0.5 as the confidence: every rule of [abc] x 3 has confidence 1
    ({"rule_max_size": "2"}, 6),  # the six x -> y only
    ({"rule_max_size": "all", "rule_confidence": "1"}, 9),
])
def test_the_report_mines_the_rules_its_parameters_name(params, rules):
    window = Window.from_transactions([["a", "b", "c"]] * 3)
    model = get_registry().configure("rho", None, {"rho": "0.5", "rule_support": "0.5", **params},
                                     Context(schema=ItemSchema(private=frozenset({"c"})))).model
    assert model.metrics(window, window)["rules_original"] == rules


@pytest.mark.parametrize("confidence, support, rules", [("rho", "0.5", 1), ("0.5", "0.5", 2), ("0.5", "0.9", 0)])
def test_the_report_mines_at_its_rule_support_and_at_rho_unless_told_another_confidence(confidence, support, rules):
    # [ab] [ab] [a]: a -> b has confidence 2/3, b -> a 1; ρ = 0.7 keeps b -> a only, 0.5 both;
    # a support of 0.9 of 3 transactions is 3, which ab (2) lacks
    window = Window.from_transactions([["a", "b"], ["a", "b"], ["a"]])
    params = {"rho": "0.7", "rule_support": support, "rule_confidence": confidence}
    model = get_registry().configure("rho", None, params, Context(schema=ItemSchema(private=frozenset({"b"})))).model
    assert model.metrics(window, window)["rules_original"] == rules


def test_a_bench_row_gives_the_loss_the_sensitive_share_deleted_and_the_divergence():
    # Table 1 at ρ = 0.5 with `mine`: the condoms of {bread, beer, condom} and {flour, condom} go,
    # 2 of 15 occurrences and 2 of the 4 condoms. H1 = (bread 2, beer 2, condom 4, coffee 3,
    # fruits 3, flour 1)/15, H2 = (2, 2, 2, 3, 3, 1)/13
    rows = [line.split() for line in ["bread beer condom", "coffee fruits", "beer condom", "coffee fruits",
                                      "flour condom", "bread coffee", "fruits condom"]]
    window = Window.from_transactions(rows)
    data = Data("table1", window, Context(schema=ItemSchema(private=frozenset({"condom"}))), window.vocab.mask({"condom"}))
    row = _anonymize(data, "mine", {"rho": "0.5"}, 0, 1)
    h1 = [c / 15 for c in (2, 2, 4, 3, 3, 1)]
    h2 = [c / 13 for c in (2, 2, 2, 3, 3, 1)]
    m = [(p + q) / 2 for p, q in zip(h1, h2)]
    expected = 0.5 * sum(p * math.log(p / r) for p, r in zip(h1, m) if p) + 0.5 * sum(
        q * math.log(q / r) for q, r in zip(h2, m) if q)
    assert row["info_loss"] == pytest.approx(2 / 15) and row["sensitive_deleted"] == 0.5
    assert row["sym_kl"] == pytest.approx(expected)


def test_a_rule_held_by_exactly_the_minimum_support_is_mined_though_the_product_rounds_up():
    # 0.07 · 100 is 7.000000000000001 in floating point; the threshold is still 7 transactions,
    # which {a, b} has: a -> b and b -> a
    window = Window.from_transactions([["a", "b"]] * 7 + [["c"]] * 93)
    assert len(association_rules(window, 0.07, 0.5, None)) == 2
