"""The mining budget counted a few sizes at a time (``by_size``, as sanitize's report asks it)
refuses the windows counting every size at once refuses, and no other: early, ``at least`` a count
past the budget and no more than the whole, or at the end with the whole count; a window within it
is mined as without."""

from hypothesis import given, settings, strategies as st
import pytest

from setveil.core.mining import MiningTooLarge, frequent_itemsets
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefghijkl"), min_size=0, max_size=10, unique=True), min_size=1,
                max_size=25)


def outcome(window, support, max_size, min_size, budget, by_size):
    try:
        return frequent_itemsets(window, support, max_size=max_size, min_size=min_size, budget=budget,
                                 by_size=by_size)
    except MiningTooLarge as refused:
        return refused


@settings(max_examples=300, deadline=None)
@given(ROWS, st.integers(1, 4), st.sampled_from([None, 1, 2, 3, 5, 8]), st.integers(1, 3), st.integers(0, 3000))
def test_the_windows_refused_by_size_are_those_refused_counting_every_size(rows, support, max_size, min_size, budget):
    window = Window.from_transactions(rows)
    whole = outcome(window, support, max_size, min_size, None, False)
    by_size = outcome(window, support, max_size, min_size, budget, True)
    if isinstance(by_size, MiningTooLarge):
        assert len(whole) > budget
        if by_size.at_least:
            assert budget < by_size.count <= len(whole)
        else:
            assert by_size.count == len(whole)
    else:
        assert len(whole) <= budget and by_size == whole


def test_a_window_of_one_long_record_is_refused_at_the_first_sizes_past_the_budget():
    # 30 items in every one of 20 records: those of 1 to 8 items are 8,656,936, within the budget;
    # 1 to 16 pass it, where every size would count 2^30 - 1
    window = Window.from_transactions([[f"i{x}" for x in range(30)]] * 20)
    with pytest.raises(MiningTooLarge) as refused:
        frequent_itemsets(window, 2, budget=25_000_000, by_size=True)
    assert refused.value.at_least and refused.value.count == 759_852_346
