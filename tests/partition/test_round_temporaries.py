"""What a round of Partition allocates beside its occurrences: the children masks take a bit per
occurrence in the narrowest word holding the highest child rank (a byte under a fan-out of 8), runs
of a transaction's occurrences are found by comparing ids, and a transaction's gain is summed in
integers, where each took copies of every occurrence as uint64, int64 and float64. Past glibc's
largest mmap threshold (32 MiB, 4 million occurrences of int64) every such copy is memory the
kernel maps and zeroes anew: T10I4D100K ten times over spent 8.7 s of its 31 s in the kernel. Each
helper is checked against the straightforward computation it replaces."""


import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.plugins.partition.partition import _child_masks, _run_starts, _transaction_gains

from ..tracing import traced_peak

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def runs(draw):
    """Ascending row numbers (a row may have none), a child rank for each up to a word's edge, and
    a gain for each."""
    n_rows = draw(st.integers(1, 30))
    top = draw(st.sampled_from([0, 1, 4, 7, 8, 15, 16, 31, 32, 63]))
    pairs = draw(st.lists(st.tuples(st.integers(0, n_rows - 1), st.integers(0, top)), min_size=1, max_size=80))
    pairs.sort(key=lambda pair: pair[0])
    rows = np.array([row for row, _ in pairs], dtype=np.int32)
    ranks = np.array([rank for _, rank in pairs], dtype=np.int32)
    gains = np.array(draw(st.lists(st.integers(0, 2**31 - 1), min_size=len(rows), max_size=len(rows))), dtype=np.int32)
    return n_rows, rows, ranks, gains


@SETTINGS
@given(case=runs(), given_starts=st.booleans())
def test_one_word_masks_are_each_rows_bits_ored_as_uint64(case, given_starts):
    n_rows, rows, ranks, _ = case
    expected = np.zeros((n_rows, 1), dtype=np.uint64)
    for row, rank in zip(rows.tolist(), ranks.tolist()):
        expected[row, 0] |= np.uint64(1) << np.uint64(rank)
    masks = _child_masks(rows, ranks, n_rows, _run_starts(rows) if given_starts else None)
    assert masks.dtype == np.uint64
    assert masks.tolist() == expected.tolist()


@SETTINGS
@given(case=runs())
def test_run_starts_are_where_the_rows_change(case):
    _, rows, _, _ = case
    assert _run_starts(rows).tolist() == np.flatnonzero(np.diff(rows.astype(np.int64), prepend=-1)).tolist()


@SETTINGS
@given(case=runs())
def test_transaction_gains_are_bincounts_weighted_sums(case):
    n_rows, rows, _, gains = case
    sums = _transaction_gains(rows, _run_starts(rows), gains, n_rows)
    assert sums.dtype == np.float64
    # every sum of at most 80 gains below 2**31 is exact in a double, as bincount's were
    assert sums.tolist() == np.bincount(rows, weights=gains, minlength=n_rows).tolist()


def test_a_transaction_with_no_occurrence_sums_to_zero():
    rows = np.array([], dtype=np.int32)
    assert _transaction_gains(rows, _run_starts(rows), rows, 3).tolist() == [0.0, 0.0, 0.0]


def test_one_word_masks_under_a_fan_out_of_5_take_a_byte_an_occurrence():
    rng = np.random.default_rng(0)
    rows = np.sort(rng.integers(0, 100_000, size=1_000_000)).astype(np.int32)
    ranks = rng.integers(0, 5, size=len(rows)).astype(np.int32)
    starts = _run_starts(rows)
    masks, peak = traced_peak(lambda: _child_masks(rows, ranks, 100_000, starts))
    # the masks (8 bytes a row, 0.8 an occurrence here), a byte a bit and the runs' starts: 1.9
    # bytes an occurrence; a uint64 bit, np.diff's copies of the rows and its own starts took 24.8
    assert peak < 2.5 * len(rows)
    bits = np.uint64(1) << ranks.astype(np.uint64)
    assert np.array_equal(masks[rows[starts], 0], np.bitwise_or.reduceat(bits, starts))


def test_transaction_gains_sum_small_gains_without_a_wider_copy_of_them():
    rng = np.random.default_rng(0)
    rows = np.sort(rng.integers(0, 100_000, size=1_000_000)).astype(np.int32)
    gains = rng.integers(0, 1_000, size=len(rows)).astype(np.int32)
    starts = _run_starts(rows)
    sums, peak = traced_peak(lambda: _transaction_gains(rows, starts, gains, 100_000))
    assert sums.tolist() == np.bincount(rows, weights=gains, minlength=100_000).tolist()
    # the sums and the runs' lengths, about 2.4 bytes an occurrence here; the gains cast to int64
    # first took 8 more
    assert peak < 4 * len(rows)
