"""The covers of a buffer's qids of 2 items and more hold their record ids as int32 where the
table's record count fits (half the bytes: the level of 3 items set the suppressor's peak on
connect's first 10,000 records once the last level of global held no cover), and as int64 where
it does not. The runs are the same either way, and a policy is still given int64 record ids."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import arrays
from setveil.plugins.rho.policies import Dist, Global, Mine
from setveil.plugins.rho.qids import QidBuffer
from setveil.plugins.rho.suppressor import PartialSuppressor

from .test_algorithm import table_of as table_over

ROWS = st.lists(st.lists(st.integers(0, 9), min_size=2, max_size=8, unique=True).map(sorted), min_size=3, max_size=30)
POLICIES = {"mine": Mine, "dist": Dist, "global": Global}


def table_of(rows, n_items=10, sensitive=(8, 9)):
    """The ROWS' table: 10 items, 8 and 9 sensitive, unless told."""
    return table_over(rows, n_items, sensitive)


class Recording(QidBuffer):
    """A QidBuffer that notes the dtype of every level's covers, by size."""

    dtypes: list = []

    def extend(self, prev, last=False, share=None):
        level = super().extend(prev, last, share)
        if level is not None:
            self.dtypes.append((level.size, level.cover_rows.dtype))
        return level


def run(rows, policy, rho, b_max, qid_size, int64):
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr("setveil.plugins.rho.suppressor.QidBuffer", Recording)
        monkeypatch.setattr(Recording, "dtypes", [])
        if int64:
            monkeypatch.setattr(arrays, "INT32_IDS", len(rows) - 1)
        table = table_of(rows)
        suppressor = PartialSuppressor(table, POLICIES[policy](), rho, qid_size, b_max, np.random.default_rng(0))
        stats = suppressor.run()
        dtypes = Recording.dtypes
    stats.pop("seconds")
    return (table.alive.tolist(), suppressor.suppressed_types, stats), dtypes


@settings(max_examples=80, deadline=None)
@given(rows=ROWS, policy=st.sampled_from(sorted(POLICIES)), rho=st.sampled_from([0.3, 0.5, 0.7]),
       b_max=st.sampled_from([1, 3, 1_000_000]), qid_size=st.integers(2, 4))
def test_covers_of_int32_record_ids_decide_as_int64_ones(rows, policy, rho, b_max, qid_size):
    narrow, narrow_dtypes = run(rows, policy, rho, b_max, qid_size, int64=False)
    wide, wide_dtypes = run(rows, policy, rho, b_max, qid_size, int64=True)
    assert narrow == wide
    assert all(dtype == np.int32 for _, dtype in narrow_dtypes)
    assert all(dtype == np.int64 for _, dtype in wide_dtypes)


def test_a_level_of_int32_record_ids_is_counted_from_both_kinds_of_cover():
    # a later buffer remembering supports counts some triples from their parents' int32 covers
    # and others from the tables' tidlists: the level holds one dtype
    rng = np.random.default_rng(7)
    rows = [sorted(rng.choice(10, size=int(rng.integers(5, 9)), replace=False).tolist()) for _ in range(80)]
    table = table_of(rows)
    known: dict = {}
    eligible = np.flatnonzero(table.nsens >= 1)
    for lo in range(0, len(eligible), 10):
        buffer = QidBuffer(table, eligible[lo : lo + 10], 2, known)
        level = buffer.singletons()
        for size in (2, 3):
            level = buffer.extend(level)
            assert level.cover_rows.dtype == np.int32
            for q in range(len(level.sets)):
                if level.counted[q]:
                    assert level.cover(q).tolist() == table.holding(level.sets[q], np.arange(table.n)).tolist()


class NotingPolicy(Mine):
    records_dtypes: set = set()

    def pick_records(self, records, count, state):
        self.records_dtypes.add(records.dtype)
        return super().pick_records(records, count, state)


def test_a_policy_is_given_int64_record_ids():
    # dense records over 6 items with 4 and 5 sensitive: qids held by several records are sanitized
    rng = np.random.default_rng(2)
    rows = [sorted(rng.choice(6, size=4, replace=False).tolist()) for _ in range(40)]
    policy = NotingPolicy()
    PartialSuppressor(table_of(rows, 6, (4, 5)), policy, 0.3, 3, 1_000_000, np.random.default_rng(0)).run()
    assert policy.records_dtypes == {np.dtype(np.int64)}
