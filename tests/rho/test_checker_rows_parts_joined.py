"""The check's _Rows joins the parts shorter than SLICE as they come, so that a level counted in
many small slices (the free candidates' covers of each slice) has few parts, each of at least
SLICE rows but the last, and a part of SLICE rows or more is held as it came, not copied; where
joining no part, or a part only past SLICE rows, passed every test (mutation pass over 2ee2cc1)."""

from unittest import mock

import numpy as np

from setveil.plugins.rho import checker


def test_parts_shorter_than_slice_are_joined_until_they_reach_it():
    lengths = [1, 1, 1, 1, 1, 2, 0, 3, 2]
    given = np.split(np.arange(sum(lengths), dtype=np.int32), np.cumsum(lengths)[:-1])
    with mock.patch.object(checker, "SLICE", 4):
        held = checker._Rows(given)
    assert [len(part) for part in held.parts] == [4, 6, 2]
    assert np.array_equal(np.concatenate(held.parts), np.arange(sum(lengths)))
    assert held.bounds.tolist() == [0, 4, 10, 12]


def test_a_part_of_slice_rows_or_more_is_held_as_it_came():
    large = np.arange(5, dtype=np.int32)
    with mock.patch.object(checker, "SLICE", 4):
        held = checker._Rows([large, np.arange(5, 6, dtype=np.int32)])
    assert held.parts[0] is large and [len(part) for part in held.parts] == [5, 1]
