"""The rule metrics' budget at a support of one transaction: a window of long records is refused
at once when the longest record's own subsets pass it, found by arithmetic, where counting every
size first took minutes to hours (50 of BMS-WebView-2's sessions joined into records of 53-491
items: 4,976,232,694,704 rules counted in over 8 minutes, for a window rho anonymized in 2 s); the
windows refused and the whole counts given are those of counting every size at once."""

import json
import math

from hypothesis import given, settings, strategies as st
import pytest

from setveil.core.mining import ITEMSET_BUDGET, MiningTooLarge, itemset_spectrum
from setveil.core.window import Window
from setveil.plugins.rho.metrics import _rows, _rules_bounded, association_rules

from ..core.figure1 import run


def whole_count(rows, threshold, max_size):
    """The rules' bound as counting every size at once gives it."""
    return int(sum(size * count for size, count in itemset_spectrum(rows, threshold, max_size, 2).items()))


def disjoint_records(records, length):
    return Window.from_transactions([[f"i{row}-{x}" for x in range(length)] for row in range(records)])


def test_long_records_are_refused_when_the_longest_records_subsets_pass_the_budget():
    # 12 records of 60 items at a support of 1: the longest record's own subsets of 2 to 5 items
    # are 2*C(60,2) + 3*C(60,3) + 4*C(60,4) + 5*C(60,5) rules, past the budget before any counting
    floor = sum(size * math.comb(60, size) for size in range(2, 6))
    assert floor == 29_364_300
    with pytest.raises(MiningTooLarge) as refused:
        association_rules(disjoint_records(12, 60), 0.0005, 0.7, 5)
    assert str(refused.value) == ("mining at a support of 1 transaction would list at least 29,364,300 rules, "
                                  "more than the budget of 25,000,000")
    assert refused.value.at_least and refused.value.count == floor


def test_a_window_past_the_budget_at_its_last_size_alone_gives_the_whole_count():
    # 8 records of 40 items: every size but the last within the budget, the last's floor too
    rows, threshold = _rows(disjoint_records(8, 40), 0.0005)
    with pytest.raises(MiningTooLarge) as refused:
        _rules_bounded(rows, threshold, 5, ITEMSET_BUDGET)
    assert str(refused.value) == ("mining at a support of 1 transaction would list up to 29,494,400 rules, "
                                  "more than the budget of 25,000,000")
    assert not refused.value.at_least and refused.value.count == whole_count(rows, threshold, 5)


def test_anonymize_reports_the_rules_of_long_records_skipped_at_the_size_that_passed(tmp_path):
    # three records of 200 items: one record's pairs and triples within the budget, its 4-item
    # subsets past it, so the window is refused without counting any
    long, sensitive, report = tmp_path / "long.dat", tmp_path / "alone.txt", tmp_path / "report.json"
    long.write_text("".join(" ".join(f"i{row}-{x}" for x in range(200)) + "\n" for row in range(3)) + "s\n")
    sensitive.write_text("s\n")
    result = run("anonymize", long, "-o", tmp_path / "out.dat", "--model", "rho", "-P", "rho=0.5",
                 "--sensitive", sensitive, "--report", report, "--no-verify")
    assert result.exit_code == 0, result.output
    floor = 2 * math.comb(200, 2) + 3 * math.comb(200, 3) + 4 * math.comb(200, 4)
    assert floor == 262_719_800
    assert json.loads(report.read_text())["metrics"]["skipped"] == {"rules": (
        "mining at a support of 1 transaction would list at least 262,719,800 rules, more than the budget of "
        "25,000,000: raise rule_support, lower rule_max_size or set rule_metrics=false")}


records = st.lists(st.lists(st.integers(0, 15), min_size=0, max_size=11, unique=True), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(records, st.sampled_from([None, 2, 3, 4, 5]), st.integers(1, 3), st.integers(0, 6000))
def test_the_windows_refused_are_those_the_whole_count_refuses(rows, max_size, threshold, budget):
    rows = [sorted(row) for row in rows] + [[]]
    whole = whole_count(rows, threshold, max_size)
    try:
        _rules_bounded(rows, threshold, max_size, budget)
    except MiningTooLarge as refused:
        assert whole > budget
        if refused.at_least:
            assert threshold == 1 and budget < refused.count <= whole
        else:
            assert refused.count == whole
    else:
        assert whole <= budget
