"""The checker counts cohorts a block of itemsets at a time and screens them: against the plain
per-itemset loop (every frequent itemset, its cohort counted by scanning the transactions), its
violations are the same, in the same order, whatever the block size."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence import checker

from . import bruteforce

SCHEMA = ItemSchema(private=frozenset({"s0", "s1", "s2"}), public=frozenset(f"p{i}" for i in range(8)))
ALPHABET = [f"p{i}" for i in range(8)] + ["n0", "n1", "s0", "s1", "s2"]

rows_strategy = st.lists(st.lists(st.sampled_from(ALPHABET), max_size=8, unique=True), min_size=1, max_size=40)
params_strategy = st.tuples(
    st.sampled_from([0.3, 0.3333333333333333, 0.5, 0.7, 1.0]), st.integers(min_value=1, max_value=4), st.integers(min_value=1, max_value=4)
)


def every_itemset(release, frequent, public, private, share, k, p):
    """The reference for :func:`checker._suspects`: no screen, no blocks, cohorts by scanning."""
    rows = [release.row(position) for position in range(len(release))]
    for itemset, count in frequent.items():
        counts = np.zeros(len(public), dtype=np.int64)
        for row in rows:
            if itemset <= set(row.tolist()):
                counts[row] += 1
        yield sorted(itemset), count, counts


def violations(window, release, h, k, p):
    return list(checker.coherence_violations(window, release, SCHEMA, h, k, p))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=rows_strategy,
    params=params_strategy,
    drop=st.sets(st.sampled_from(ALPHABET)),
    cut=st.sets(st.integers(min_value=0, max_value=39)),
    block=st.sampled_from([1, 2, 3, None]),
)
def test_blockwise_checker_matches_the_per_itemset_loop(rows, params, drop, cut, block):
    h, k, p = params
    # items dropped everywhere, and p0 (public) dropped from some transactions only: small cohorts
    released = [[i for i in r if i not in drop and (i != "p0" or n not in cut)] for n, r in enumerate(rows)]
    window = Window.from_transactions(rows)
    release = Window.from_transactions(released, vocab=window.vocab)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker, "_suspects", every_itemset)
        expected = violations(window, release, h, k, p)
    with pytest.MonkeyPatch.context() as patch:
        if block is not None:  # several blocks, with itemsets of different sizes at their edges
            patch.setattr(checker._Groups, "block_size", lambda self, p: block)
        found = violations(window, release, h, k, p)
    assert found == expected
    coherent = not [v for v in found if v.rule != "non-public-removed"]
    assert coherent == bruteforce.is_coherent(released, SCHEMA, h, k, p)


def test_violations_in_every_block_are_reported_in_the_miners_order():
    # 8 public items in every transaction but p0..p3 only in some: every itemset of size <= 2
    # holding one of p0..p3 has a small cohort below k, spread over many blocks of 2
    rows = [[f"p{i}" for i in range(8) if i >= 4 or n % 5 == i] + ["s0"] * (n % 2) for n in range(20)]
    window = Window.from_transactions(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker, "_suspects", every_itemset)
        expected = violations(window, window, 0.7, 5, 3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker._Groups, "block_size", lambda self, p: 2)
        found = violations(window, window, 0.7, 5, 3)
    assert len(expected) > 4 and found == expected
