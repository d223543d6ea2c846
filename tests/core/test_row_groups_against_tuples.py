""":func:`setveil.core.arrays.row_groups` against grouping each row's tuple of entries in a dict:
int32 and int64 indices, empty rows, one row, long rows, and rows holding the same entries in
another order, which are other rows (a Window's rows are ascending, so equal sets are equal rows)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.arrays import row_groups


def by_tuples(rows: list[list[int]]) -> list[int]:
    groups: dict[tuple[int, ...], int] = {}
    return [groups.setdefault(tuple(row), len(groups)) for row in rows]


def csr(rows: list[list[int]], dtype) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.concatenate(([0], np.cumsum([len(row) for row in rows]))).astype(np.int64)
    return indptr, np.array([entry for row in rows for entry in row], dtype=dtype)


@settings(max_examples=600, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 2**31 - 1) | st.integers(0, 3), max_size=9), max_size=40),
       wide=st.booleans(), shuffled=st.randoms(use_true_random=False))
def test_row_groups_is_grouping_by_tuples(rows, wide, shuffled):
    # some rows again with their entries in another order, and some again as they are
    rows = rows + [shuffled.sample(row, len(row)) for row in rows[:5]] + rows[:3]
    indptr, indices = csr(rows, np.int64 if wide else np.int32)
    groups = row_groups(indptr, indices)
    assert groups.tolist() == by_tuples(rows)
    assert groups.dtype.kind == "i" and groups.shape == (len(rows),)


def test_rows_of_other_lengths_sharing_a_prefix_and_a_large_id_in_int64_are_other_groups():
    rows = [[], [1], [1, 2], [], [1, 2, 3], [1, 2], [2**40], [2**40 + 1], [2**40], [2, 1]]
    indptr, indices = csr(rows, np.int64)
    assert row_groups(indptr, indices).tolist() == [0, 1, 2, 0, 3, 2, 4, 5, 4, 6]
    assert row_groups(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)).tolist() == []
    assert row_groups(np.array([0, 0], dtype=np.int64), np.zeros(0, dtype=np.int32)).tolist() == [0]
