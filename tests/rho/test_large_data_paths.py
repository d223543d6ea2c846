"""Paths of the ρ checker that only large data takes, which the suite's small tables never reach:
- itemset keys past 63 bits: with more than 4,096 item ids a qid of four items and its
  consequent no longer fit one int64, and the keys become the rows' big-endian bytes (retail has
  16,470 items). Both encodings must round-trip, sort rows in the same order, and give the
  checker the same answer;
- candidates extended a slice of about 2 million at a time, whose distinct keys are merged
  slice by slice: the answer must not depend on the slice size."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window
from setveil.plugins.rho import checker
from setveil.plugins.rho.itemsets import decode_keys, itemset_keys, lookup

from .test_properties import ALPHABET, RHOS, SENSITIVE, tables

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PADDING = 5000


@st.composite
def itemset_rows(draw):
    """Rows of ``size`` ascending distinct ids below ``n_items``, with repeats."""
    n_items = draw(st.sampled_from([2, 40, 4096, 4097, 40_000, 1 << 20]))
    size = draw(st.integers(1, min(5, n_items)))
    row = st.lists(st.integers(0, n_items - 1), min_size=size, max_size=size, unique=True).map(sorted)
    rows = draw(st.lists(row, min_size=2, max_size=30))
    return np.array(rows, dtype=np.int64), n_items


@SETTINGS
@given(case=itemset_rows())
def test_keys_round_trip_sort_as_the_rows_do_and_are_looked_up(case):
    rows, n_items = case
    keys = itemset_keys(rows, n_items)
    assert (decode_keys(keys, rows.shape[1], n_items) == rows).all()
    by_key = rows[np.argsort(keys, kind="stable")]
    by_row = rows[np.lexsort(rows.T[::-1])]
    assert (by_key == by_row).all()
    listed = [tuple(row) for row in rows.tolist()]
    distinct = np.unique(keys)
    assert len(distinct) == len(set(listed))
    assert (distinct[lookup(distinct, keys)] == keys).all()
    assert (lookup(np.unique(keys[1:]), keys[:1])[0] == -1) == (listed[0] not in set(listed[1:]))
    assert lookup(distinct[:0], keys).tolist() == [-1] * len(keys)  # no key is in an empty table


@pytest.mark.parametrize("n_items, size", [(1 << 21, 3), (40_000, 4)])
def test_keys_at_the_edge_of_63_bits_sort_as_the_rows_do(n_items, size):
    """63 bits of ids are one int64, 64 the rows' bytes. The random rows above draw a 64-bit
    itemset (4 ids below 40,000) too rarely to notice a key that sets the sign bit: the rows
    of the upper ids would then sort before the others (mutation testing)."""
    rows = np.array([[n_items - size + i for i in range(size)], list(range(size))])
    keys = itemset_keys(rows, n_items)
    assert (decode_keys(keys, size, n_items) == rows).all()
    assert np.argsort(keys, kind="stable").tolist() == [1, 0]
    assert lookup(np.sort(keys), keys).tolist() == [1, 0]


def padded(rows):
    """The same transactions over a vocabulary whose first 5,000 labels no record holds, so every
    real item has an id above 4,096."""
    vocab = Vocabulary(f"unused{i}" for i in range(PADDING))
    return Window.from_transactions(rows, vocab=vocab)


def found(window, rho, qid_size):
    """Every unsafe rule the checker reports (the limit is above what a table can hold)."""
    limit = len(window) << len(ALPHABET)
    return {(frozenset(v.itemset), v.target)
            for v in checker.rho_violations(window, window, SENSITIVE, float(rho), qid_size, limit=limit)}


@SETTINGS
@given(rows=tables(), rho=RHOS, qid_size=st.sampled_from([1, 2, 3, 4, "all"]))
def test_the_checker_finds_the_same_rules_whatever_the_width_of_the_ids(rows, rho, qid_size):
    wide = padded(rows)
    assert len(wide.vocab) == PADDING + len({item for row in rows for item in row})
    assert found(wide, rho, qid_size) == found(Window.from_transactions(rows), rho, qid_size)


@SETTINGS
@given(rows=tables(), rho=RHOS, qid_size=st.sampled_from([2, 3, 4, "all"]), slice_size=st.integers(1, 8))
def test_the_checker_finds_the_same_rules_whatever_the_slice_size(rows, rho, qid_size, slice_size):
    window = Window.from_transactions(rows)
    whole = found(window, rho, qid_size)
    with mock.patch.object(checker, "SLICE", slice_size):
        assert found(window, rho, qid_size) == whole
