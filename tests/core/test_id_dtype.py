"""core.arrays.id_dtype and as_ids: ids 0 .. count - 1 are held as int32 exactly while the largest,
count - 1, fits in int32, and as int64 from one more on (ρ's suppressor and check hold their record
ids, qid ids and positions this way, and the coherence search its bounds)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from setveil.core.arrays import INT32_IDS, as_ids, id_dtype


def test_the_threshold_is_the_count_of_int32_ids():
    assert INT32_IDS == 2**31
    assert id_dtype(INT32_IDS) == np.int32 and np.iinfo(np.int32).max == INT32_IDS - 1
    assert id_dtype(INT32_IDS + 1) == np.int64


@given(st.integers(0, 2**40))
def test_the_largest_id_of_a_count_survives_its_dtype(count):
    largest = np.array([max(count - 1, 0)], dtype=np.int64)
    assert as_ids(largest, count).tolist() == largest.tolist()


def test_ids_already_of_their_dtype_are_not_copied():
    ids = np.arange(5, dtype=np.int32)
    assert as_ids(ids, 5) is ids
    assert as_ids(ids, INT32_IDS + 1).dtype == np.int64
