"""Identical transactions are grouped with numpy (:func:`setveil.core.arrays.row_groups`): the
k-anonymity check's classes and the coherence check's groups of transactions by their public items.
Whatever the rows, the groups, their numbering and the checks' findings are those of keying each
row's bytes one by one in Python, as the checks did."""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.arrays import row_groups
from setveil.core.window import Window
from setveil.plugins.coherence.checker import _Groups
from setveil.plugins.partition.checker import kanonymity_violations

ITEMS = list("abcdef")
windows = st.lists(st.lists(st.sampled_from(ITEMS), unique=True, max_size=4), max_size=30).map(
    lambda rows: Window.from_transactions(rows, vocab=None))


def one_by_one(indptr, indices):
    keys: dict[bytes, int] = {}
    return [keys.setdefault(indices[a:b].tobytes(), len(keys)) for a, b in zip(indptr.tolist(), indptr[1:].tolist())]


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 3), max_size=3), max_size=40))
def test_groups_are_numbered_by_their_first_rows(rows):
    # rows in any order, repeats included: the bytes of the same ids in another order differ
    indptr = np.concatenate(([0], np.cumsum([len(row) for row in rows], dtype=np.int64)))
    indices = np.array([item for row in rows for item in row], dtype=np.int32)
    assert row_groups(indptr, indices).tolist() == one_by_one(indptr, indices)


def old_kanonymity(release, k, limit=10):
    rows = [release.row(i).tobytes() for i in range(len(release))]
    sizes = Counter(rows)
    small = [i for i, row in enumerate(rows) if sizes[row] < k]
    reported, found = set(), []
    for position in small:
        if rows[position] not in reported:
            reported.add(rows[position])
            found.append((position, sizes[rows[position]], len(small)))
            if len(reported) >= limit:
                break
    return found


@settings(max_examples=200, deadline=None)
@given(release=windows, k=st.integers(1, 6), limit=st.integers(1, 4))
def test_the_k_anonymity_check_finds_what_keying_each_row_found(release, k, limit):
    found = list(kanonymity_violations(release, k, limit))
    expected = old_kanonymity(release, k, limit)
    assert [v.transaction for v in found] == [position for position, _, _ in expected]
    assert [v.summary for v in found] == [
        f"a class of {size} identical released transaction{'s' if size != 1 else ''} is smaller than k={k} "
        f"({small} transaction{'s are' if small != 1 else ' is'} in such classes)" for _, size, small in expected]


@settings(max_examples=200, deadline=None)
@given(release=windows, public=st.lists(st.booleans(), min_size=len(ITEMS), max_size=len(ITEMS)))
def test_the_coherence_groups_are_those_of_each_rows_public_items(release, public):
    mask = np.array(public[:len(release.vocab)], dtype=bool)
    ind, ptr = release.indices, release.indptr.tolist()
    keys: dict[bytes, int] = {}
    group_of = [keys.setdefault(ind[a:b][mask[ind[a:b]]].tobytes(), len(keys)) for a, b in zip(ptr, ptr[1:])]
    expected = np.zeros((len(keys), len(release.vocab)), dtype=np.int64)
    for position, group in enumerate(group_of):
        expected[group, release.row(position)] += 1
    assert _Groups(release, mask).counts.toarray().tolist() == expected.tolist()
