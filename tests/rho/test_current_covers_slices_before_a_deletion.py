"""_current_covers filters the parents' covers a slice at a time and copies nothing until a slice
holds a row a deletion reached; the slices before it, whole, are then taken as they are. The
covers it returns are each parent's cover as of now whatever the slice size, where dropping those
whole slices, or keeping the first of them alone, passed every test unless hypothesis drew a
deletion reaching a later slice only (mutation pass over 4e7905d)."""

import numpy as np
import pytest

from setveil.plugins.rho.qids import QidBuffer
from setveil.plugins.rho.table import Table

ROWS = [[0, 1, 2, 8], [0, 1, 2, 9], [0, 1, 3, 8], [0, 2, 3, 9], [1, 2, 3, 8], [0, 1, 2, 3, 9], [4, 5, 9],
        [0, 1, 2, 9], [1, 2, 3, 9]]


def table_of(rows, n_items=10, sensitive=(8, 9)):
    indptr = np.cumsum([0] + [len(r) for r in rows])
    return Table(indptr, np.array([i for r in rows for i in r], dtype=np.int64), n_items,
                 np.isin(np.arange(n_items), sensitive))


@pytest.mark.parametrize("b_max", [1, 2, 3, 4, 1_000_000])
def test_the_covers_as_of_now_whatever_the_slices_before_the_first_deletion(b_max):
    table = table_of(ROWS)
    buffer = QidBuffer(table, np.flatnonzero(table.nsens >= 1), b_max)
    triples = buffer.extend(buffer.extend(buffer.singletons()))
    used = np.arange(len(triples.sets), dtype=np.int64)
    before = [triples.cover(q).tolist() for q in used.tolist()]
    # item 3 leaves the last record holding it: the triples of 3 are reached, those without it not
    table.delete_one(3, 8)
    expected = [table.holding(triples.sets[q], triples.cover(q)).tolist() for q in used.tolist()]
    reached = [now != then for now, then in zip(expected, before)]
    # at least two whole covers come before the first one reached, so the path runs at b_max 1
    assert reached.index(True) >= 2
    cover_ptr, cover_rows = buffer._current_covers(triples, used)
    assert [cover_rows[cover_ptr[i] : cover_ptr[i + 1]].tolist() for i in range(len(used))] == expected
