"""The mining budget is not counted where the frequent items' itemsets of the sizes asked could
not pass it were they all frequent: such a count refuses nothing. The windows refused, what the
refusal says and the itemsets of a window within the budget are those of counting every time."""

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest

from setveil.core import mining
from setveil.core.mining import MiningTooLarge, frequent_itemsets
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefghijkl"), min_size=0, max_size=10, unique=True), min_size=1,
                max_size=25)


def outcome(window, support, max_size, min_size, items, budget, by_size):
    try:
        return frequent_itemsets(window, support, max_size=max_size, min_size=min_size, items=items, budget=budget,
                                 by_size=by_size)
    except MiningTooLarge as refused:
        return str(refused)


@settings(max_examples=300, deadline=None)
@given(ROWS, st.integers(1, 4), st.sampled_from([None, 1, 2, 3, 5, 8]), st.integers(1, 3), st.integers(0, 3000),
       st.booleans(), st.integers(0, 2**12 - 1))
def test_the_outcome_is_that_of_counting_every_time(rows, support, max_size, min_size, budget, by_size,
                                                     mask):
    window = Window.from_transactions(rows)
    items = None if mask == 0 else np.array([mask >> i & 1 for i in range(len(window.vocab))], dtype=bool)
    bounded = outcome(window, support, max_size, min_size, items, budget, by_size)
    with pytest.MonkeyPatch.context() as unbounded:
        counted_within = mining._counted_within
        unbounded.setattr(mining, "_counted_within",
                          lambda *args, **given: counted_within(*args[:6], **given))  # no frequent items' count
        assert bounded == outcome(window, support, max_size, min_size, items, budget, by_size)


@pytest.mark.parametrize("by_size", [False, True])
def test_the_count_is_skipped_only_where_it_could_refuse_nothing(spectrum_sizes, by_size):
    # 6 items of support 2 or more: 6 + 15 + 20 = 41 itemsets of at most 3 of them at the most
    window = Window.from_transactions([list("abcdef"), list("abcdef"), list("abcxyz")])
    assert len(frequent_itemsets(window, 2, max_size=3, budget=41, by_size=by_size)) == 41
    assert spectrum_sizes == []
    with pytest.raises(MiningTooLarge, match="would list up to 41 itemsets, more than the budget of 40$"):
        frequent_itemsets(window, 2, max_size=3, budget=40, by_size=by_size)
    assert spectrum_sizes[-1] == 3
