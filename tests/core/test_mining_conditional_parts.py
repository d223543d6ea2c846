"""The parts :func:`conditional_itemset_arrays` mines from conditional databases are the frequent
itemsets pyfim lists at once: each itemset in exactly one part, with exactly the same support, on
any window (an item in every record, records left empty, supports above the window's size, any
largest size), and each part's itemsets share their first item."""

from hypothesis import given, settings, strategies as st

from setveil.core.mining import conditional_itemset_arrays, frequent_itemset_arrays
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefghij"), min_size=0, max_size=8, unique=True), min_size=0,
                max_size=25)


def listed(part):
    indptr, ids, supports = part
    return [(frozenset(ids[indptr[j]:indptr[j + 1]].tolist()), int(supports[j])) for j in range(len(supports))]


@settings(max_examples=150, deadline=None)
@given(ROWS, st.booleans(), st.integers(1, 8), st.sampled_from([None, 0, 1, 2, 3, 5]))
def test_the_parts_are_the_itemsets_listed_at_once(rows, everywhere, min_support, max_size):
    window = Window.from_transactions([row + ["z"] for row in rows] if everywhere else rows)
    parts = [listed(part) for part in conditional_itemset_arrays(window, min_support, max_size)]
    joined = [itemset for part in parts for itemset in part]
    assert len(set(joined)) == len(joined)
    assert set(joined) == set(listed(frequent_itemset_arrays(window, min_support, max_size=max_size)))
    for part in parts:
        assert len(frozenset.intersection(*(itemset for itemset, _ in part))) >= 1
