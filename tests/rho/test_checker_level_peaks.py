"""Three sets of arrays of about the same size set the check's peak on connect's first 10,000
records, so each is made smaller: the pairs' covers are sorted by pair alone (records come in
ascending order, each holding a pair once), not by a lexsort holding two int64 keys and the
owners; a level's slices of covers are joined into parts as they come, not held in a list until
the level is counted; and each instance's extensions are an end and a count, int32 where the
release's occurrences fit, not three int64 arrays."""

import weakref
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import arrays
from setveil.core.window import Window
from setveil.plugins.rho import checker
from setveil.plugins.rho.itemsets import itemset_keys

RECORDS = st.lists(st.lists(st.integers(0, 7), min_size=0, max_size=7, unique=True).map(sorted),
                   min_size=1, max_size=25)


def release_of(rows):
    window = Window.from_transactions([[str(x) for x in row] for row in rows])
    sensitive = np.array([window.vocab.label(i) in {"6", "7"} for i in range(len(window.vocab))], dtype=bool)
    return window, checker._Release(window, sensitive)


@settings(max_examples=100, deadline=None)
@given(rows=RECORDS, slice_size=st.sampled_from([1, 3, 1 << 17]), data=st.data())
def test_pair_covers_are_the_exact_supports_and_covers_in_record_order(rows, slice_size, data):
    window, release = release_of(rows)
    held = [set(window.row(r).tolist()) for r in range(len(window))]
    every = sorted({(a, b) for row in held for a in row for b in row if a < b})
    if not every:
        return
    pairs = np.array(data.draw(st.lists(st.sampled_from(every), min_size=1, unique=True).map(sorted)), dtype=np.int64)
    keys = itemset_keys(pairs, release.width)
    order = np.argsort(keys)
    pairs, keys = pairs[order], keys[order]
    with mock.patch.object(checker, "SLICE", slice_size):
        sup, members = checker._pair_covers(release, keys)
    covers = [[r for r, row in enumerate(held) if a in row and b in row] for a, b in pairs.tolist()]
    assert sup.dtype == np.int64 and sup.tolist() == [len(c) for c in covers]
    assert members.dtype == release.row_dtype and members.tolist() == [r for c in covers for r in c]


def test_slices_of_covers_are_not_held_once_joined_into_a_part():
    rng = np.random.default_rng(3)
    rows = [sorted(rng.choice(6, size=4, replace=False).tolist() + [6, 7]) for _ in range(40)]
    slices = checker._covers_slices
    made, alive_at = [], []

    def spy(*args):
        for step in slices(*args):
            alive_at.append([i for i, ref in enumerate(made) if ref() is not None])
            made.append(weakref.ref(step[3]))
            yield step
        alive_at.append([i for i, ref in enumerate(made) if ref() is not None])

    kept = []
    covers = checker._covers

    def spy_covers(*args):
        sup, members = covers(*args)
        kept.append((len(made), {id(part) for part in members.parts}, [ref() for ref in made]))
        return sup, members

    window = Window.from_transactions([[str(x) for x in row] for row in rows])
    with mock.patch.object(checker, "SLICE", 8), mock.patch.object(checker, "_covers_slices", spy), \
            mock.patch.object(checker, "_covers", spy_covers):
        list(checker.rho_violations(window, window, frozenset({"6", "7"}), 0.3, 4, limit=10**6))
    assert len(made) > 10
    # slices still held beside the parts: those not yet joined (under SLICE rows) and the parts themselves
    parts = {i for count, ids, objects in kept for i in range(count)
             if objects[i] is not None and id(objects[i]) in ids}
    for alive in alive_at:
        pending = [i for i in alive if i not in parts]
        assert len(pending) <= 8


@settings(max_examples=60, deadline=None)
@given(rows=RECORDS, data=st.data())
def test_extension_spans_are_the_items_after_the_last_as_int32_where_they_fit(rows, data):
    window, release = release_of(rows)
    instances = [(r, i) for r in range(len(window)) for i in window.row(r).tolist()]
    if not instances:
        return
    chosen = data.draw(st.lists(st.sampled_from(instances), min_size=1))
    sets = np.arange(release.width, dtype=np.int64)[:, None]
    inst_rows = np.array([r for r, _ in chosen], dtype=release.row_dtype)
    inst_qid = np.array([i for _, i in chosen], dtype=np.int32)
    # an end may be the count of occurrences itself: int32 only where that count fits too
    ends_fit = ((arrays.INT32_IDS, np.int32), (len(release.keys) + 1, np.int32), (len(release.keys), np.int64))
    for threshold, dtype in ends_fit:
        with mock.patch.object(arrays, "INT32_IDS", threshold):
            stops, counts = checker._extension_spans(release, sets, inst_rows, inst_qid)
        assert stops.dtype == counts.dtype == dtype
        ends = window.indptr[inst_rows + 1]
        assert stops.tolist() == ends.tolist()
        expected = [sum(1 for j in window.row(r).tolist() if j > i) for r, i in chosen]
        assert counts.tolist() == expected
