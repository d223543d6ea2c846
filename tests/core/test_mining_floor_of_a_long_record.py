"""At a support of one transaction, core/mining.py's budget counted size by size refuses a window
once the longest record's own itemsets pass it, found by arithmetic, before pyfim counts anything:
pyfim's count grows with the square of a record's length, and a review's file of one record of
200,000 items took a minute of CPU per command (sanitize's --report, audit publish, patterns sample)
before the refusal. The windows refused are still those counting every size refuses (the property
tests of test_mining_budget_by_size.py)."""

import math

import pytest

from setveil.core.mining import MiningTooLarge, frequent_itemsets
from setveil.core.window import Window

from .figure1 import run

LONG = [f"i{x}" for x in range(300)]
WINDOW = Window.from_transactions([LONG, LONG[:2], ["a", "b"]])


@pytest.mark.parametrize("max_size", [None, 2, 3])
def test_the_longest_records_pairs_past_the_budget_are_refused_uncounted(spectrum_sizes, max_size):
    # 300 + C(300, 2) = 45,150 itemsets of at most 2 items in the long record alone
    with pytest.raises(MiningTooLarge) as refused:
        frequent_itemsets(WINDOW, 1, max_size=max_size, budget=10_000, by_size=True)
    assert str(refused.value) == ("mining at a support of 1 transaction would list at least 45,150 itemsets, "
                                  "more than the budget of 10,000")
    assert refused.value.at_least and spectrum_sizes == []


def test_a_support_of_two_is_still_counted(spectrum_sizes):
    # the long record's subsets are not frequent on their own there: i0, i1 and the pair are
    with pytest.raises(MiningTooLarge, match="support of 2 transactions would list at least 3 itemsets, more than "
                                             "the budget of 2$"):
        frequent_itemsets(WINDOW, 2, budget=2, by_size=True)
    assert spectrum_sizes == [2]


def test_audit_publish_refuses_a_long_record_at_a_support_of_one_without_counting(tmp_path, spectrum_sizes):
    data = tmp_path / "long.dat"
    data.write_text(" ".join(f"i{x}" for x in range(10_000)) + "\na b\n")
    result = run("audit", "publish", data, "--sigma", "1e-9", "-o", tmp_path / "itemsets.txt")
    assert result.exit_code == 2 and result.output.count("\n") == 1 and spectrum_sizes == []
    floor = 10_000 + math.comb(10_000, 2)
    assert result.output == (f"setveil: error: parameter 'sigma': mining at a support of 1 transaction would list at "
                             f"least {floor:,} itemsets, more than the budget of 25,000,000: raise it or set "
                             "--max-size\n")
    assert not (tmp_path / "itemsets.txt").exists()
