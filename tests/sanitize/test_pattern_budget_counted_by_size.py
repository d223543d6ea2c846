"""The report's pattern metrics are refused as soon as the original's frequent itemsets of at most
1, 2, 4, 8 ... items, counted in turn, pass the mining budget, where every size was counted first, which took time
with what it counted (50 records of 53-491 items: 434,727,586,880,295,075,840 itemsets at a
support of 5, 55 s of CPU for a sanitization of 0.01 s); a window within the budget is mined as
before."""

import math

import pytest

from setveil.core.mining import MiningTooLarge
from setveil.core.window import Window
from setveil.plugins.sanitize.metrics import PatternMetrics


def test_itemsets_past_the_budget_are_refused_at_the_first_sizes_that_pass_it():
    # 20 records of the same 30 items: every subset is frequent at sigma 0.1 (a support of 2); those of 1 to 8
    # items number 8,656,936, within the budget, and those of 1 to 16 take them past it (every size to 30
    # would count 2^30 - 1)
    window = Window.from_transactions([[f"i{x}" for x in range(30)]] * 20)
    assert sum(math.comb(30, size) for size in range(1, 9)) == 8_656_936
    assert sum(math.comb(30, size) for size in range(1, 17)) == 759_852_346
    with pytest.raises(MiningTooLarge) as refused:
        PatternMetrics(window, 0.1)
    assert str(refused.value) == ("mining at a support of 2 transactions would list at least 759,852,346 itemsets, "
                                  "more than the budget of 25,000,000")


def test_a_window_within_the_budget_is_mined_whole():
    # 20 records of the same 20 items: 2^20 - 1 itemsets, all of them counted and mined
    window = Window.from_transactions([[f"i{x}" for x in range(20)]] * 20)
    assert PatternMetrics(window, 0.1).frequent == 2**20 - 1
