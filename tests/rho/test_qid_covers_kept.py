"""A buffer counts the supports of every candidate of 3 items and more, but keeps the covers of
the free ones alone: no other is checked or extended, and on dense data (connect's first 10,000
records) holding every candidate's cover, with its owner, before dropping the others set the
suppressor's peak memory."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.plugins.rho.qids import QidBuffer

from .test_algorithm import table_of


class RecordingBuffer(QidBuffer):
    """A QidBuffer that keeps what each call of _count was given and gave back."""

    def __init__(self, *args):
        super().__init__(*args)
        self.calls = []

    def _count(self, prev, parent, missing, below):
        answer = super()._count(prev, parent, missing, below)
        candidates = np.column_stack([prev.sets[parent], missing])
        self.calls.append((candidates, below.copy(), answer))
        return answer


def check_counts(rows, buffer):
    for candidates, below, (sup, ptr, cover) in buffer.calls:
        exact = [[r for r, row in enumerate(rows) if set(c) <= set(row)] for c in candidates.tolist()]
        assert sup.tolist() == [len(rows_of) for rows_of in exact]
        kept = [rows_of if len(rows_of) < bound else [] for rows_of, bound in zip(exact, below.tolist())]
        assert [cover[ptr[i] : ptr[i + 1]].tolist() for i in range(len(candidates))] == kept
        assert len(cover) == sum(map(len, kept))


def fill(rows, n_items, sensitive, b_max, size):
    table = table_of(rows, n_items, sensitive)
    buffer = RecordingBuffer(table, np.array([r for r, row in enumerate(rows) if set(sensitive) & set(row)
                                              and len(row) >= 3], dtype=np.int64), b_max)
    level = buffer.singletons()
    while level is not None and level.size < size:
        level = buffer.extend(level, last=level.size == size - 1)
    return buffer


def test_a_candidate_as_frequent_as_a_subset_gets_its_support_and_no_cover():
    # 0 and 1 always come with 2, so {0, 1, 2} has the support of {0, 1}: not free
    rows = [[0, 1, 2, 9], [0, 1, 2, 9], [0, 2, 9], [1, 2, 9], [0, 2, 3], [1, 2, 3], [2, 3, 9], [0, 3, 9], [1, 3, 9]]
    buffer = fill(rows, 10, [9], 1_000_000, 3)
    (candidates, below, (sup, ptr, cover)), = buffer.calls
    at = candidates.tolist().index([0, 1, 2])
    assert sup[at] == below[at] == 2 and ptr[at] == ptr[at + 1]
    check_counts(rows, buffer)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 7), min_size=3, max_size=7, unique=True).map(sorted), min_size=3,
                     max_size=25),
       b_max=st.sampled_from([1, 4, 1_000_000]))
def test_counted_supports_are_exact_and_the_kept_covers_are_the_free_ones(rows, b_max):
    check_counts(rows, fill(rows, 8, [6, 7], b_max, 5))
