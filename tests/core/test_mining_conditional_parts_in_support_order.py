"""The parts :func:`conditional_itemset_arrays` yields come in the order its docstring gives, the
frequent items by support, fewest first, then by id: part r is the item of rank r alone and with
what its conditional database lists, which holds only the items after it in that order (a mutation
pass over 3bd000dd: the items ordered by id alone passed every mining and rule test not marked
slow, the parts' union being the same itemsets)."""

from hypothesis import given, settings, strategies as st

from setveil.core.mining import conditional_itemset_arrays
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefgh"), min_size=0, max_size=6, unique=True), min_size=1,
                max_size=25)


@settings(max_examples=100, deadline=None)
@given(ROWS, st.integers(1, 4), st.sampled_from([None, 2, 3]))
def test_each_part_is_the_next_item_by_support_with_the_items_after_it(rows, min_support, max_size):
    window = Window.from_transactions(rows)
    supports = window.supports.tolist()
    order = sorted((item for item, support in enumerate(supports) if support >= min_support),
                   key=lambda item: (supports[item], item))
    parts = list(conditional_itemset_arrays(window, min_support, max_size))
    assert len(parts) == len(order)
    for rank, (indptr, ids, held) in enumerate(parts):
        assert ids[0] == order[rank] and held[0] == supports[order[rank]]
        assert set(ids.tolist()) <= set(order[rank:])
