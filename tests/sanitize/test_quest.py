"""The Quest-style generator behind docs/sanitize.md's "Data made the paper's way": its data
pinned by digest, the generator's invariants on random settings, and its refusals."""

import hashlib
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.cli import cli
from setveil.core.errors import ParameterError
from setveil.plugins.sanitize import quest
from setveil.plugins.sanitize.quest import QuestSettings, generate


def digest(settings: QuestSettings) -> str:
    return hashlib.sha256(generate(settings).fimi().encode()).hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("options, expected", [
    ({}, "596371a03d7b599bb2e5c4490196d02ba684e07a6ef7e009c9ace951afd78fbf"),
    ({"large_itemset_size": 15.0, "large_itemsets": 80, "item_weights": "uniform", "seed": 2},
     "dd00e69c123c3dfa483b31180ca360175de81a5f25e1c4f024fcc072933efcca"),
])
def test_the_data_sets_docs_sanitize_measured_are_made_again(options, expected):
    assert digest(QuestSettings(**options)) == expected


SMALL = dict(transactions=300, items=60, mean_length=8.0, min_length=6, large_itemset_size=4.0, large_itemsets=20)


# the second closes a fifth of its transactions on every item its 4 large itemsets cover, before the target
@pytest.mark.parametrize("options, expected", [
    (SMALL, "fe28184b40cb629366fc49d5760a12633a3f496bc0f2c0c4df66acf1551e3995"),
    ({**SMALL, "mean_length": 16.0, "min_length": 3, "large_itemsets": 4, "corruption_mean": 0.1,
      "corruption_variance": 0.01}, "49ca7d17c3f2751304b8dc8837cc9dc80252bc6f38918cde6a3ceaceab3b0f5d"),
])
def test_a_small_data_set_is_pinned_so_a_change_in_draw_order_shows(options, expected):
    assert digest(QuestSettings(**options)) == expected


@settings(max_examples=60, deadline=None)
@given(transactions=st.integers(1, 60), items=st.integers(2, 80), mean_length=st.floats(1, 12),
       large_itemset_size=st.floats(1, 8), large_itemsets=st.integers(1, 30), correlation=st.floats(0, 1),
       corruption_mean=st.floats(0, 1), item_weights=st.sampled_from(["exp", "uniform"]),
       seed=st.integers(0, 2**32), min_share=st.floats(0, 1))
def test_every_transaction_is_long_enough_sorted_and_within_the_items(transactions, items, mean_length,
                                                                      large_itemset_size, large_itemsets,
                                                                      correlation, corruption_mean, item_weights,
                                                                      seed, min_share):
    mean_length = min(mean_length, items)
    options = QuestSettings(transactions=transactions, items=items, mean_length=mean_length,
                            min_length=max(1, int(min_share * mean_length)),
                            large_itemset_size=min(large_itemset_size, items / 2), large_itemsets=large_itemsets,
                            correlation=correlation, corruption_mean=corruption_mean, item_weights=item_weights,
                            seed=seed)
    try:
        data = generate(options)
    except ParameterError as exc:
        drawn = quest.large_itemsets(options)
        if exc.name == "corruption-mean":
            assert min(drawn.corruption) >= 1
        else:
            assert exc.name == "min-length"
            assert drawn.covered < options.min_length or "is seldom reached" in exc.problem
        return
    assert len(data.lines) == transactions
    used = set()
    for line in data.lines:
        row = [int(item) for item in line.split(" ")]
        assert len(row) >= options.min_length
        assert row == sorted(set(row))
        assert 0 <= row[0] and row[-1] < items
        used.update(row)
    assert data.items_used == len(used)
    assert generate(options) == data


def test_the_large_itemsets_follow_their_settings():
    drawn = quest.large_itemsets(QuestSettings(items=5000, large_itemsets=4000, seed=3))
    assert 15.7 < np.mean([len(itemset) for itemset in drawn.itemsets]) < 16.3
    assert all(len(set(itemset)) == len(itemset) for itemset in drawn.itemsets)
    # correlation 0.5 takes about half of an itemset from the one before, less where either's size caps it
    shared = [len(set(before) & set(after)) / len(after) for before, after in zip(drawn.itemsets, drawn.itemsets[1:])]
    assert 0.35 < np.mean(shared) < 0.45
    assert 0.48 < np.mean(drawn.corruption) < 0.52 and 0.09 < np.var(drawn.corruption) < 0.11
    apart = quest.large_itemsets(QuestSettings(items=5000, large_itemsets=4000, seed=3, correlation=0.0))
    assert np.mean([len(set(b) & set(a)) / len(a) for b, a in zip(apart.itemsets, apart.itemsets[1:])]) < 0.02


def test_the_seed_changes_the_data():
    assert generate(QuestSettings(**SMALL)).lines != generate(QuestSettings(**SMALL, seed=2)).lines


def test_lengths_follow_the_mean_above_the_minimum():
    lengths = np.array([line.count(" ") + 1 for line in generate(QuestSettings(**{**SMALL, "transactions": 3000,
                                                                                  "min_length": 1})).lines])
    # a target of 1 + Poisson(7) items, mean 8: short of it when an itemset that does not fit is
    # carried over, past it when the itemset goes in anyway
    assert 7 <= lengths.mean() <= 9
    assert lengths.min() >= 1 and 0.05 < (lengths > 8).mean() < 0.95


def test_the_command_writes_fimi_and_says_what_it_made(runner, tmp_path):
    args = ["bench", "sanitize", "quest", "--transactions", "300", "--items", "60", "--mean-length", "8",
            "--min-length", "6", "--large-itemset-size", "4", "--large-itemsets", "20"]
    result = runner.invoke(cli, args + ["-o", str(tmp_path / "q.dat")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "q.dat").read_text() == generate(QuestSettings(**SMALL)).fimi()
    rows = [line.split() for line in (tmp_path / "q.dat").read_text().splitlines()]
    lengths = [len(row) for row in rows]
    used = len({item for row in rows for item in row})
    assert (f"300 transactions of {min(lengths)}-{max(lengths)} items (mean {sum(lengths) / 300:.1f}) over {used} of "
            "60 items, seed 1 (") in result.stderr
    assert runner.invoke(cli, args + ["-o", "-"]).stdout == (tmp_path / "q.dat").read_text()


def test_a_negative_zero_variance_is_a_zero_one(runner, tmp_path):
    # QA: --corruption-variance -0.0, which 0<=x<=1 admits, ended in "ValueError: scale < 0"
    args = ["bench", "sanitize", "quest", "--transactions", "300", "--items", "60", "--mean-length", "8",
            "--min-length", "6", "--large-itemset-size", "4", "--large-itemsets", "20", "-o", "-"]
    result = runner.invoke(cli, args + ["--corruption-variance", "-0.0"])
    assert result.exit_code == 0, result.output
    assert result.stdout == runner.invoke(cli, args + ["--corruption-variance", "0"]).stdout


@pytest.mark.parametrize("args, words", [
    (["--mean-length", "5"], "parameter 'min-length': 40 is out of reach of --mean-length 5 (a length reaches it "
                             "with chance 3.0e-25); allowed: at most 12"),
    (["--items", "30"], "parameter 'mean-length': 40 is more than --items 30"),
    (["--items", "60", "--large-itemsets", "1", "--large-itemset-size", "3", "--min-length", "41", "--mean-length", "45"],
     "parameter 'min-length': 41 is more than the 2 items the large itemsets hold"),
    (["--large-itemset-size", "1e300"], "parameter 'large-itemset-size': 1e+300 is more than half of --items 500"),
    (["--large-itemsets", "1000000", "--large-itemset-size", "40"], "parameter 'large-itemsets': 1000000 itemsets"),
    (["--transactions", "100000000"], "parameter 'transactions': 100000000 transactions of about 40 items"),
    (["--corruption-mean", "1", "--corruption-variance", "0"], "parameter 'corruption-mean': every large itemset's "
                                                               "corruption level is 1 or more"),
    (["--correlation", "2"], "'--correlation'"),
])
def test_settings_it_cannot_meet_exit_2_in_one_line_and_write_nothing(runner, tmp_path, args, words):
    result = runner.invoke(cli, ["bench", "sanitize", "quest", "-o", str(tmp_path / "q.dat")] + args)
    assert result.exit_code == 2
    assert words in result.stderr
    assert not (tmp_path / "q.dat").exists()


def test_settings_whose_transactions_seldom_reach_the_minimum_are_refused():
    # itemsets of one item, of which a transaction draws at most 100 (the Quest source's bound),
    # each left out with chance about 1/2, seldom make 40 distinct items
    with pytest.raises(ParameterError, match="40 is seldom reached: 1001 transactions closed short of it while 0"):
        generate(QuestSettings(transactions=50, large_itemset_size=1.0))


def test_a_min_length_of_every_item_is_met_and_one_more_is_refused_by_name():
    every = QuestSettings(transactions=20, items=6, mean_length=6.0, min_length=6, large_itemset_size=3.0,
                          large_itemsets=10, corruption_mean=0.0, corruption_variance=0.0)
    assert set(generate(every).lines) == {"0 1 2 3 4 5"}
    with pytest.raises(ParameterError, match=r"^parameter 'min-length': 7 is more than --items 6$"):
        replace(every, min_length=7).check()


def test_a_min_length_past_the_items_the_large_itemsets_hold_is_refused_by_name():
    # one item past them: a transaction could only close short, and be made again a thousand times
    settings = QuestSettings(**{**SMALL, "mean_length": 40.0})
    covered = quest.large_itemsets(settings).covered
    with pytest.raises(ParameterError, match=f"^parameter 'min-length': {covered + 1} is more than the {covered} "
                                             "items the large itemsets hold"):
        generate(replace(settings, min_length=covered + 1))


@pytest.mark.parametrize("mean_length, allowed", [(1.0, 1), (3.0, 9), (40.0, 61)])
def test_the_min_length_a_refusal_allows_is_accepted_and_one_more_refused(mean_length, allowed):
    # a target length is 1 + Poisson(mean_length - 1), so at a mean of 1 it is always 1
    with pytest.raises(ParameterError, match=f"^parameter 'min-length': 200 is out of reach of --mean-length "
                                             f"{mean_length:g} .*; allowed: at most {allowed}, or raise"):
        QuestSettings(mean_length=mean_length, min_length=200).check()
    QuestSettings(mean_length=mean_length, min_length=allowed).check()
    with pytest.raises(ParameterError, match=f"^parameter 'min-length': {allowed + 1} is out of reach"):
        QuestSettings(mean_length=mean_length, min_length=allowed + 1).check()


def test_the_draw_budgets_take_settings_up_to_them_and_refuse_one_past_by_name():
    QuestSettings(large_itemsets=1_000_000, large_itemset_size=10.0).check()
    with pytest.raises(ParameterError, match="^parameter 'large-itemsets': 1000001 itemsets of about 10 items draw "
                                             "more than 10,000,000 items"):
        QuestSettings(large_itemsets=1_000_001, large_itemset_size=10.0).check()
    # a min-length above the mean length makes transactions of about min-length items
    QuestSettings(transactions=2_500_000, mean_length=38.0, min_length=40).check()
    with pytest.raises(ParameterError, match="^parameter 'transactions': 2500001 transactions of about 40 items hold "
                                             "more than 100,000,000 items"):
        QuestSettings(transactions=2_500_001, mean_length=38.0, min_length=40).check()


def test_a_large_itemset_holds_at_most_every_item():
    # 1 + Poisson(1) passes 4 items about once in 50 itemsets
    drawn = quest.large_itemsets(QuestSettings(items=4, mean_length=2.0, min_length=1, large_itemset_size=2.0,
                                               large_itemsets=300))
    assert max(len(itemset) for itemset in drawn.itemsets) == 4


def test_a_draw_just_under_one_picks_the_last_entry_not_one_past_it():
    # thirteen weights of 0.1 sum, normalized, to 1 - 3e-16 in floats
    cumulative = quest._cumulative(np.full(13, 0.1))
    assert np.searchsorted(cumulative, np.nextafter(1.0, 0.0), side="left") == 12
