"""The check counts the last level (of 3 items or more) a slice of covers at a time and checks
each slice's qids before it counts the next: the level's covers serve its own rules alone, and
holding them whole, joined from their slices, set the check's peak on dense data (connect's
first 10,000 records: 23.5 million cover rows, held twice). The violations are the same, in the
same order, whatever the chunks and slices."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.window import Window
from setveil.plugins.rho import checker

RECORDS = st.lists(st.lists(st.integers(0, 7), min_size=2, max_size=7, unique=True).map(sorted),
                   min_size=3, max_size=25)


def violations(rows, rho, qid_size, chunk, slice_size):
    """Every violation of ``rows`` as a release of itself (6 and 7 sensitive), and the number of
    qids of each call that counted the rules of a level, by qid size."""
    window = Window.from_transactions([[str(x) for x in row] for row in rows])
    checked: dict[int, list[int]] = {}
    level_violations = checker._level_violations

    def spy(data, sets, *rest):
        checked.setdefault(sets.shape[1], []).append(len(sets))
        return level_violations(data, sets, *rest)

    with mock.patch.object(checker, "CHUNK", chunk), mock.patch.object(checker, "SLICE", slice_size), \
            mock.patch.object(checker, "_level_violations", spy):
        found = [(v.rule, v.summary, v.itemset, v.target)
                 for v in checker.rho_violations(window, window, frozenset({"6", "7"}), rho, qid_size, limit=10**6)]
    return found, checked


@settings(max_examples=80, deadline=None)
@given(rows=RECORDS, rho=st.sampled_from([0.3, 0.5, 0.7]), qid_size=st.sampled_from([3, 4]),
       chunk=st.sampled_from([1, 2, 5, 1 << 14]))
def test_the_last_level_is_checked_a_slice_at_a_time_with_the_same_violations(rows, rho, qid_size, chunk):
    whole, _ = violations(rows, rho, qid_size, 1 << 14, 1 << 17)
    sliced, checked = violations(rows, rho, qid_size, chunk, 1)
    assert sliced == whole
    # a slice of one record takes one candidate (a parent's cover holds 2 records or more): no
    # call saw more of the last level than that
    assert all(count <= 1 for count in checked.get(qid_size, []))


def test_a_last_level_of_many_slices_is_never_checked_whole():
    # 12 records of 4 of the items 0-5, each with 6 and 7: their triples of 0-5 fill many slices
    rng = np.random.default_rng(5)
    rows = [sorted(rng.choice(6, size=4, replace=False).tolist() + [6, 7]) for _ in range(12)]
    whole, checked_whole = violations(rows, 0.3, 3, 1 << 14, 1 << 17)
    sliced, checked = violations(rows, 0.3, 3, 1 << 14, 4)
    assert sliced == whole and whole
    assert sum(checked[3]) == sum(checked_whole[3]) > 2 and len(checked[3]) > 2
    assert checked_whole[3] == [sum(checked[3])]
