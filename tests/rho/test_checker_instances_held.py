"""The check holds a level's instances (record, qid) as int32 where the release's records and
the level's qids fit, and drops each slice of the instances' keys and records once the next
level's instances are read from it, where they were int64 and held whole beside the next level's
(connect's first 10,000 records: the check's peak, as the triples' instances were made). The
violations are the same either way."""

from unittest import mock

import numpy as np

from setveil.core import arrays
from setveil.core.window import Window
from setveil.plugins.rho import checker

ROWS = [[0, 1, 2, 3, 6], [0, 1, 2, 3, 7], [0, 1, 2, 6, 7], [1, 2, 3, 6], [0, 2, 3, 7], [0, 1, 3, 6, 7]] * 2


def checked(rows, int32_records, slice_size=1 << 17):
    """The violations of ``rows`` as a release of itself, the dtypes of each level's instances
    and the instance slices left once each level was made."""
    window = Window.from_transactions([[str(x) for x in row] for row in rows])
    dtypes, left = [], []
    extensions, candidates = checker._extensions, checker._candidates

    def spy_extensions(data, sets, inst_rows, inst_qid, pairs):
        dtypes.append((inst_rows.dtype, inst_qid.dtype))
        return extensions(data, sets, inst_rows, inst_qid, pairs)

    def spy_candidates(*args, **kwargs):
        found = candidates(*args, **kwargs)
        if found is not None:
            left.append(found)
        return found

    with mock.patch.object(arrays, "INT32_IDS", int32_records), mock.patch.object(checker, "SLICE", slice_size), \
            mock.patch.object(checker, "_extensions", spy_extensions), \
            mock.patch.object(checker, "_candidates", spy_candidates):
        found = [(v.rule, v.summary, v.itemset, v.target)
                 for v in checker.rho_violations(window, window, frozenset({"6", "7"}), 0.3, 4, limit=10**6)]
    return found, dtypes, [(len(keys), len(rows)) for _, keys, rows in left]


def test_instances_are_int32_where_records_and_qids_fit_and_int64_past_them():
    narrow, narrow_dtypes, _ = checked(ROWS, arrays.INT32_IDS)
    wide, wide_dtypes, _ = checked(ROWS, 1)
    assert narrow == wide and narrow
    assert len(narrow_dtypes) == len(wide_dtypes) == 3
    assert set(narrow_dtypes) == {(np.dtype(np.int32), np.dtype(np.int32))}
    assert set(wide_dtypes) == {(np.dtype(np.int64), np.dtype(np.int64))}


def test_each_slice_of_instances_is_dropped_once_the_next_level_is_read_from_it():
    whole, _, _ = checked(ROWS, arrays.INT32_IDS)
    sliced, _, left = checked(ROWS, arrays.INT32_IDS, slice_size=2)
    assert sliced == whole
    # every slice of the instances of the levels of 2 and 3 items was read and dropped; the last keeps none
    assert left == [(0, 0), (0, 0), (0, 0)]
