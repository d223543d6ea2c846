"""AA's counts of i-itemsets merged from blocks of sorted distinct packed keys (apriori._merge): the
distinct keys ascending with their counts summed, narrow (int64) and wide (void) keys alike, in at
most about two and a half times the keys' size, where np.unique's inverse held seven (retail at
k=10, m=4, f=5 peaked there)."""

import tracemalloc
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.plugins.partition import apriori


def _blocks(draw, wide):
    blocks, counts = [], []
    for _ in range(draw(st.integers(1, 5))):
        if wide:
            rows = np.array(draw(st.lists(st.tuples(*[st.integers(0, 5)] * 3), max_size=20)), dtype=np.int64)
            keys = np.unique(np.ascontiguousarray(rows.reshape(-1, 3)).view(np.dtype((np.void, 24))).ravel())
        else:
            keys = np.unique(np.array(draw(st.lists(st.integers(0, 2**62), max_size=20)), dtype=np.int64))
        blocks.append(keys)
        counts.append(np.array(draw(st.lists(st.integers(1, 10**6), min_size=len(keys), max_size=len(keys))),
                               dtype=np.int64))
    return blocks, counts


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), wide=st.booleans())
def test_merged_keys_are_the_distinct_keys_ascending_with_their_counts_summed(data, wide):
    blocks, counts = _blocks(data.draw, wide)
    expected = Counter()
    for keys, count in zip(blocks, counts):
        for key, n in zip(keys.tolist(), count.tolist()):
            expected[key] += n
    unique, total = apriori._merge(blocks, counts)
    assert unique.dtype == blocks[0].dtype and total.dtype == np.int64
    assert unique.tolist() == sorted(expected)
    assert total.tolist() == [expected[key] for key in sorted(expected)]


def test_a_merge_holds_two_and_a_half_times_the_keys_size():
    rng = np.random.default_rng(0)
    blocks = [np.unique(rng.integers(0, 1 << 40, size=250_000)) for _ in range(4)]
    counts = [rng.integers(1, 100, size=len(keys)) for keys in blocks]
    size = sum(keys.nbytes for keys in blocks)
    tracemalloc.start()
    try:
        unique, total = apriori._merge(blocks, counts)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the keys joined and sorted beside their distinct ones (2.1 sizes), then the distinct keys, their
    # counts and a block's places and counts (2.5 here, a block a quarter of the keys); it was 7.1
    assert peak < 2.6 * size
    assert np.array_equal(unique, np.unique(np.concatenate(blocks)))
    assert total.sum() == sum(int(count.sum()) for count in counts)
