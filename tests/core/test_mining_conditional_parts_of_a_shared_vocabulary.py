"""A window cut from a longer input shares its vocabulary, which names items the window does not
hold: mined a part at a time from conditional databases, its itemsets are still those listed at
once, at every support down to 0 (no part for an item of no transaction)."""

import pytest

from setveil.core.mining import conditional_itemset_arrays, frequent_itemset_arrays
from setveil.core.window import Window

WHOLE = Window.from_transactions([["a", "b"], ["a", "c"], ["d"], ["e", "f"]])
WINDOW = Window.from_transactions([["a", "b"], ["a", "c"], ["a", "b"]], vocab=WHOLE.vocab.copy())


def listed(parts):
    return [(frozenset(ids[indptr[j]:indptr[j + 1]].tolist()), int(supports[j]))
            for indptr, ids, supports in parts for j in range(len(supports))]


@pytest.mark.parametrize("min_support", [0, 1, 2, 3])
@pytest.mark.parametrize("max_size", [None, 1, 2])
def test_the_parts_of_a_window_sharing_a_vocabulary_are_the_itemsets_listed_at_once(min_support, max_size):
    assert len(WINDOW.vocab) > int((WINDOW.supports > 0).sum())
    joined = listed(conditional_itemset_arrays(WINDOW, min_support, max_size))
    assert len(set(joined)) == len(joined)
    assert set(joined) == set(listed([frequent_itemset_arrays(WINDOW, min_support, max_size=max_size)]))
