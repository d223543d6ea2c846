"""Mining a window for ``items`` alone counts by the records' sizes in those items: the itemsets,
supports and refusal (its words, "at least" or "up to", and its count) are those of the window of
the records cut down to the chosen items, however many other items the records hold."""

import pytest
from hypothesis import given, settings, strategies as st

from setveil.core.mining import MiningTooLarge, frequent_itemset_arrays
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=9, unique=True), min_size=1, max_size=12)


def outcome(window, min_support, **given_):
    try:
        indptr, ids, supports = frequent_itemset_arrays(window, min_support, **given_)
    except MiningTooLarge as refused:
        return str(refused)
    labels = window.vocab.labels
    return {frozenset(labels[i] for i in ids[indptr[j]:indptr[j + 1]]): int(supports[j]) for j in range(len(supports))}


@settings(max_examples=300, deadline=None)
@given(ROWS, st.sets(st.sampled_from("abcdefghij"), min_size=1), st.integers(1, 3), st.sampled_from([None, 2, 3, 6]),
       st.integers(0, 60), st.booleans())
def test_chosen_items_mine_as_the_records_cut_down_to_them(rows, chosen, min_support, max_size, budget, unordered):
    window = Window.from_transactions(rows)
    cut = Window.from_transactions([[label for label in row if label in chosen] for row in rows])
    given_ = dict(max_size=max_size, budget=budget, by_size=True, unordered=unordered)
    assert outcome(window, min_support, items=window.vocab.mask(sorted(chosen & set(window.vocab.labels))),
                   **given_) == outcome(cut, min_support, **given_)


def test_a_refusal_counted_in_the_chosen_items_says_up_to():
    # each record holds three chosen items among five others: counted by size up to 3 items, the
    # whole count (7 itemsets past a budget of 6) is a count "up to", not "at least"
    rows = [["a", "b", "c", "v", "w", "x", "y", "z"]] * 2
    window = Window.from_transactions(rows)
    with pytest.raises(MiningTooLarge) as refused:
        frequent_itemset_arrays(window, 2, items=window.vocab.mask(["a", "b", "c"]), budget=6, by_size=True)
    assert not refused.value.at_least and refused.value.count == 7
