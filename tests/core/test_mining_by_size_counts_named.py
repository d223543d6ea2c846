"""What core/mining.py's budget says of a window past it, counted size by size (``by_size``): the
first count is of the itemsets of 1 item, and one past the budget there says 'at least' that many;
the count of the sizes asked for in full says 'up to', never 'at least', even when the sizes
doubled reach them exactly. A budget bounds the listing of every frequent itemset (target ``s``)
only: closed ones are listed whatever it is. A mutation review found these unpinned."""

import pytest

from setveil.core.mining import MiningTooLarge, frequent_itemsets
from setveil.core.window import Window

# 5 items of support 2: 5 itemsets of 1 item, 15 of at most 2, 31 in all
WINDOW = Window.from_transactions([list("abcde"), list("abcde")])


def refusal(budget, max_size):
    with pytest.raises(MiningTooLarge) as refused:
        frequent_itemsets(WINDOW, 2, max_size=max_size, budget=budget, by_size=True)
    return str(refused.value)


def test_items_past_the_budget_are_refused_at_the_count_of_one_item():
    assert refusal(3, 3).endswith("would list at least 5 itemsets, more than the budget of 3")


def test_the_sizes_asked_for_counted_in_full_say_up_to():
    assert refusal(10, 2).endswith("would list up to 15 itemsets, more than the budget of 10")
    assert refusal(10, None).endswith("would list at least 15 itemsets, more than the budget of 10")


def test_closed_itemsets_are_listed_past_any_budget():
    assert frequent_itemsets(WINDOW, 2, target="c", budget=0) == {frozenset(range(5)): 2}
