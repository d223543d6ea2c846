"""At a support of one transaction, the budget counted size by size refuses on the longest record's
own itemsets of the sizes about to be counted, never of sizes past ``max_size`` or below
``min_size``: a window whose itemsets of at most ``max_size`` items are exactly the budget is
mined, and one itemset more is refused, each as counting every size at once decides. Records of
one item each make the frequent items too many for their own bound to skip those sizes."""

import math

import pytest

from setveil.core.mining import MiningTooLarge, frequent_itemset_arrays
from setveil.core.window import Window

RECORD = [f"i{n}" for n in range(12)]
SINGLES = [[f"s{n}"] for n in range(200)]
WINDOW = Window.from_transactions([RECORD] + SINGLES)
WITHIN = sum(math.comb(len(RECORD), size) for size in range(1, 4)) + len(SINGLES)


@pytest.mark.parametrize("by_size", [False, True])
def test_itemsets_of_at_most_max_size_exactly_the_budget_are_mined(by_size):
    indptr, _, _ = frequent_itemset_arrays(WINDOW, 1, max_size=3, budget=WITHIN, by_size=by_size)
    assert len(indptr) - 1 == WITHIN


@pytest.mark.parametrize("by_size", [False, True])
def test_one_itemset_past_the_budget_is_refused(by_size):
    with pytest.raises(MiningTooLarge):
        frequent_itemset_arrays(WINDOW, 1, max_size=3, budget=WITHIN - 1, by_size=by_size)


def test_the_floor_counts_no_itemset_below_min_size():
    # a record of 3 items holds 3 pairs and 1 triple: 4 within a budget of 4, with 3 singletons more
    # past it had the floor counted them
    window = Window.from_transactions([["a", "b", "c"]] + SINGLES)
    indptr, _, _ = frequent_itemset_arrays(window, 1, max_size=3, min_size=2, budget=4, by_size=True)
    assert len(indptr) - 1 == 4
