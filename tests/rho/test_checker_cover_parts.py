"""The check holds a level's covers as the parts they were counted in, not joined (joining held
the triples' covers of connect's first 10,000 records twice, the check's peak), and their record
ids as int32 where the release has at most ``core.arrays.INT32_IDS`` records. The violations are
the same, in the same order, with either dtype and any number of parts, and they are those of the literal
reference."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import arrays
from setveil.core.arrays import concat_ranges
from setveil.core.window import Window
from setveil.plugins.rho import checker

from .rho_reference import unsafe_rules

RECORDS = st.lists(st.lists(st.integers(0, 7), min_size=1, max_size=7, unique=True).map(sorted),
                   min_size=1, max_size=25)
SENSITIVE = frozenset({"6", "7"})


def violations(rows, rho, qid_size, slice_size, int32_records):
    """Every violation of ``rows`` as a release of itself, and the dtypes of the covers checked."""
    window = Window.from_transactions([[str(x) for x in row] for row in rows])
    dtypes = set()
    level_violations = checker._level_violations

    def spy(data, sets, sup, cover_ptr, cover_rows, *rest):
        dtypes.update(part.dtype for part in cover_rows.parts if len(part))
        return level_violations(data, sets, sup, cover_ptr, cover_rows, *rest)

    with mock.patch.object(checker, "SLICE", slice_size), mock.patch.object(arrays, "INT32_IDS", int32_records), \
            mock.patch.object(checker, "_level_violations", spy):
        found = [(v.rule, v.summary, v.itemset, v.target)
                 for v in checker.rho_violations(window, window, SENSITIVE, rho, qid_size, limit=10**6)]
    return found, dtypes


@settings(max_examples=80, deadline=None)
@given(rows=RECORDS, rho=st.sampled_from([0.3, 0.5, 0.7]), qid_size=st.sampled_from([2, 3, 4]),
       slice_size=st.sampled_from([1, 3, 1 << 17]))
def test_int32_and_int64_covers_in_any_parts_give_the_reference_violations(rows, rho, qid_size, slice_size):
    wide, wide_dtypes = violations(rows, rho, qid_size, 1 << 17, 0)
    narrow, narrow_dtypes = violations(rows, rho, qid_size, slice_size, len(rows))
    assert narrow == wide
    assert wide_dtypes <= {np.dtype(np.int64)} and narrow_dtypes <= {np.dtype(np.int32)}
    # each rule listed is unsafe, and each unsafe rule has one listed over a qid within it
    reference = unsafe_rules([[str(x) for x in row] for row in rows], SENSITIVE, rho, qid_size)
    listed = {(frozenset(itemset), target) for _, _, itemset, target in narrow}
    assert listed <= reference
    assert all(any(e == target and q <= qid for q, target in listed) for qid, e in reference)


def test_covers_hold_int32_record_ids_up_to_the_threshold_and_int64_past_it():
    rows = [[0, 1, 2, 3, 6], [0, 1, 2, 3, 7], [0, 1, 2, 6, 7], [1, 2, 3, 6], [0, 2, 3, 7]] * 2
    narrow, narrow_dtypes = violations(rows, 0.3, 4, 1 << 17, len(rows))
    wide, wide_dtypes = violations(rows, 0.3, 4, 1 << 17, len(rows) - 1)
    assert narrow == wide and narrow
    assert narrow_dtypes == {np.dtype(np.int32)} and wide_dtypes == {np.dtype(np.int64)}


def test_a_level_counted_in_many_slices_is_held_in_parts():
    rng = np.random.default_rng(5)
    rows = [sorted(rng.choice(6, size=4, replace=False).tolist() + [6, 7]) for _ in range(12)]
    parts = []
    next_level = checker._next_level

    def spy(*args, **kwargs):
        step = next_level(*args, **kwargs)
        if step is not None:
            parts.append(len(step[4].parts))
        return step

    with mock.patch.object(checker, "_next_level", spy):
        sliced, _ = violations(rows, 0.3, 4, 4, 1 << 31)
    whole, _ = violations(rows, 0.3, 4, 1 << 17, 1 << 31)
    assert sliced == whole and whole
    assert max(parts) > 1


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.lists(st.integers(0, 4), max_size=5), min_size=1, max_size=6), data=st.data(),
       slice_size=st.sampled_from([1, 4, 1 << 17]))
def test_rows_in_parts_read_as_the_joined_rows(sizes, data, slice_size):
    # covers of the given sizes, one list of covers per part, every row a distinct number
    parts, covers, start = [], [], 0
    for part in sizes:
        parts.append(np.arange(start, start + sum(part), dtype=np.int32))
        for size in part:
            covers.append((start, start + size))
            start += size
    joined = np.arange(start, dtype=np.int32)
    with mock.patch.object(checker, "SLICE", slice_size):
        held = checker._Rows(parts)
    assert len(held) == start and np.array_equal(np.concatenate(held.parts), joined)
    chosen = data.draw(st.lists(st.sampled_from(covers), max_size=8)) if covers else []
    starts = np.array([a for a, _ in chosen], dtype=np.int64)
    stops = np.array([b for _, b in chosen], dtype=np.int64)
    assert np.array_equal(held.take(starts, stops), joined[concat_ranges(starts, stops)])
    lo = data.draw(st.integers(0, start))
    hi = data.draw(st.integers(lo, start))
    assert np.array_equal(held.span(lo, hi), joined[lo:hi])
    ptr = np.array([0] + [b for _, b in covers], dtype=np.int64)
    weight = np.arange(1, start + 1, dtype=np.int64) ** 2
    expected = [int(weight[a:b].sum()) for a, b in covers]
    assert held.loads(weight, ptr).tolist() == expected
