"""The check of a release holds a level's covers once: the covers of candidates of 3 items and
more are kept for the free ones alone as they are counted, a level whose qids are all free is
checked on its own covers, not a copy, and the slices of the rule count are cut with no owner
per cover row (on connect's first 10,000 records each of these held the last level's covers
again, the check's peak at 1.2 GB)."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.window import Window
from setveil.plugins.rho import checker
from setveil.plugins.rho.itemsets import itemset_keys

RECORDS = st.lists(st.lists(st.integers(0, 7), min_size=2, max_size=7, unique=True).map(sorted),
                   min_size=3, max_size=25)


def release_of(rows, sensitive):
    window = Window.from_transactions([[str(x) for x in row] for row in rows])
    mask = np.isin(np.array([int(window.vocab.label(i)) for i in range(len(window.vocab))]), sensitive)
    return window, checker._Release(window, mask)


def exact_covers(window, itemsets):
    held = [set(window.row(r).tolist()) for r in range(len(window))]
    return [[r for r, row in enumerate(held) if set(s) <= row] for s in itemsets.tolist()]


@settings(max_examples=60, deadline=None)
@given(rows=RECORDS, slice_size=st.sampled_from([1, 5, 1 << 17]), data=st.data())
def test_covers_gives_exact_supports_and_the_covers_of_the_free_candidates(rows, slice_size, data):
    window, release = release_of(rows, [6, 7])
    width = release.width
    # every pair of the window with its exact cover as the parents, a triple of each record as candidates
    pairs = np.unique(np.array([[a, b] for r in range(len(window)) for a in window.row(r) for b in window.row(r)
                                if a < b], dtype=np.int64).reshape(-1, 2), axis=0)
    if len(pairs) == 0:
        return
    pair_covers = exact_covers(window, pairs)
    cover_ptr = np.cumsum([0] + [len(c) for c in pair_covers])
    cover_rows = np.array([r for c in pair_covers for r in c], dtype=np.int64)
    keys = itemset_keys(pairs, width)
    triples = np.unique(np.array([[a, b, c] for r in range(len(window)) for a in window.row(r)
                                  for b in window.row(r) for c in window.row(r) if a < b < c],
                                 dtype=np.int64).reshape(-1, 3), axis=0)
    if len(triples) == 0:
        return
    triples = triples[data.draw(st.lists(st.integers(0, len(triples) - 1), min_size=1, unique=True).map(sorted))]
    sub_index = np.column_stack([np.searchsorted(keys, itemset_keys(np.delete(triples, drop, axis=1), width))
                                 for drop in range(3)])
    sub_sup = np.diff(cover_ptr)[sub_index]
    with mock.patch.object(checker, "SLICE", slice_size):
        sup, members = checker._covers(release, triples, sub_sup, sub_index, cover_ptr, checker._Rows([cover_rows]))
    exact = exact_covers(window, triples)
    assert sup.tolist() == [len(c) for c in exact]
    free = sup < sub_sup.min(axis=1)
    assert np.concatenate(members.parts).tolist() == [r for c, keep in zip(exact, free) if keep for r in c]


def test_a_level_of_free_qids_is_checked_on_its_own_covers():
    ptr, rows = np.array([0, 2, 3]), checker._Rows([np.array([4, 7, 1])])
    same = checker._sub_covers(ptr, rows, np.array([True, True]))
    assert same[0] is ptr and same[1] is rows
    part = checker._sub_covers(ptr, rows, np.array([False, True]))
    assert part[0].tolist() == [0, 1] and part[1].parts[0].tolist() == [1]


@settings(max_examples=40, deadline=None)
@given(rows=RECORDS, rho=st.sampled_from([0.2, 0.5]))
def test_the_rules_found_are_the_same_whatever_the_slices(rows, rho):
    # qids with empty covers first and between others, where the cut of the slices reads back
    window, release = release_of(rows, [6, 7])
    sets = np.array([[i] for i in range(release.width)] * 2, dtype=np.int64)
    covers = [[] if q % 3 == 0 else [r for r in range(len(window)) if q % release.width in window.row(r)]
              for q in range(len(sets))]
    cover_ptr = np.cumsum([0] + [len(c) for c in covers])
    cover_rows = np.array([r for c in covers for r in c], dtype=np.int64)
    sup = np.diff(cover_ptr)
    found = {}
    for slice_size in (1, 2, 1 << 17):
        with mock.patch.object(checker, "SLICE", slice_size):
            found[slice_size] = [(v.itemset, v.target, v.summary) for v in
                                 checker._level_violations(release, sets, sup, cover_ptr, checker._Rows([cover_rows]),
                                                           rho, window.vocab.label)]
    assert found[1] == found[2] == found[1 << 17]
