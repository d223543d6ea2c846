"""core/mining.py counts no size whose itemsets of the frequent items could not pass the budget were
they all frequent: the items asked for only (``items``), and, counting size by size, a size whose
bound is the budget exactly (it is not past it). Each such count refuses nothing; a mutation review
found that these counts were not pinned, as the outcome is the same with them."""

import numpy as np
import pytest

from setveil.core.mining import MiningTooLarge, frequent_itemsets
from setveil.core.window import Window

# a-f have support 2 or more, x-z 1
WINDOW = Window.from_transactions([list("abcdef"), list("abcdef"), list("abcxyz")])


@pytest.mark.parametrize("by_size", [False, True])
def test_only_the_items_asked_for_bound_the_count(spectrum_sizes, by_size):
    # 3 items asked for: 3 + 3 + 1 = 7 itemsets of at most 3 of them at the most, where the 6
    # frequent items of the window make 41
    items = np.array([label in "abc" for label in WINDOW.vocab.labels])
    assert len(frequent_itemsets(WINDOW, 2, max_size=3, items=items, budget=7, by_size=by_size)) == 7
    assert spectrum_sizes == []


def test_a_size_whose_bound_is_the_budget_is_not_counted(spectrum_sizes):
    # the 6 frequent items make 6 itemsets of 1 item, the budget: size 1 is not counted; 21 of at
    # most 2 are counted and refused
    with pytest.raises(MiningTooLarge, match="would list at least 21 itemsets, more than the budget of 6$"):
        frequent_itemsets(WINDOW, 2, max_size=3, budget=6, by_size=True)
    assert spectrum_sizes == [2]
