"""Property tests on random data and random hierarchies, against brute-force oracles: every
release is k-anonymous (Partition) or k^m-anonymous and global (AA) and a valid generalization;
the checkers agree with the oracles on arbitrary generalizations; unions of releases stay safe."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.errors import Infeasible
from setveil.core.generalization import generalization_violations
from setveil.core.hierarchy import Hierarchy
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.verify import release_violations
from setveil.core.window import Window
from setveil.plugins.partition import apriori

from .bruteforce import (
    fewest_consistent,
    hierarchies,
    is_generalization,
    is_k_anonymous,
    is_km_anonymous,
    leaf_sets,
    transactions,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def configure(model, h, **params):
    return get_registry().configure(model, None, {k: str(v) for k, v in params.items()}, Context(hierarchy=h))


def anonymize(configured, rows):
    window = Window.from_transactions(rows)
    try:
        return window, configured.model.anonymize(window, configured.policy, np.random.default_rng(0)).window
    except Infeasible:
        return window, None


@SETTINGS
@given(h=hierarchies(), rows=transactions(), k=st.integers(1, 5))
def test_partition_releases_are_k_anonymous_generalizations(h, rows, k):
    check_partition_release(h, rows, k)


def check_partition_release(h, rows, k):
    """Partition's release of ``rows`` under ``h`` is a k-anonymous generalization that its
    checker passes, or the window fails closed for too few (empty) transactions."""
    configured = configure("kanonymity", h, k=k)
    window, release = anonymize(configured, rows)
    empty = sum(1 for row in rows if not row)
    if release is None:
        assert 0 < len(rows) - empty < k or 0 < empty < k
        return
    released = [set(row) for row in release]
    assert is_k_anonymous(released, k)
    assert is_generalization(rows, released, leaf_sets(h))
    assert not list(release_violations(configured.model, window, release, configured.context))


@SETTINGS
@given(h=hierarchies(), rows=transactions(max_length=5), k=st.integers(1, 4), m=st.integers(1, 3))
def test_aa_releases_are_km_anonymous_global_generalizations(h, rows, k, m):
    configured = configure("km-anonymity", h, k=k, m=m)
    window, release = anonymize(configured, rows)
    if release is None:
        assert 0 < sum(1 for row in rows if row) < k
        return
    released = [set(row) for row in release]
    assert is_km_anonymous(released, k, m)
    leaves = leaf_sets(h)
    assert is_generalization(rows, released, leaves)
    mapped = {}
    for before, after in zip(rows, released):
        for item in before:
            (label,) = [label for label in after if item in leaves[label]]
            assert mapped.setdefault(item, label) == label, "AA recodes globally"
    assert not list(release_violations(configured.model, window, release, configured.context))



@settings(SETTINGS, max_examples=300)
@given(h=hierarchies(), rows=transactions(max_transactions=60, max_length=6), k=st.integers(2, 6),
       m=st.integers(2, 4))
def test_aa_releases_the_same_scanning_and_trying_one_at_a_time(h, rows, k, m):
    """AA scans a round's failing itemsets SCAN at a time, costs an itemset's generalizations
    GRID_BLOCK at a time and tries them BATCH at a time; only windows with thousands of failing
    itemsets, or itemsets deep in tall hierarchies, fill any of them, so no other test reached
    their second chunk (mutants that skipped itemsets of a scanned chunk, or tried only the first
    batch, passed every test). One at a time must release what one chunk does."""
    configured = configure("km-anonymity", h, k=k, m=m)
    whole = anonymize(configured, rows)[1]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apriori, "SCAN", 1)
        patch.setattr(apriori, "BATCH", 1)
        patch.setattr(apriori, "GRID_BLOCK", 1)
        one_by_one = anonymize(configured, rows)[1]
    assert (whole is None) == (one_by_one is None)
    if whole is not None:
        assert list(whole) == list(one_by_one)


@st.composite
def generalizations(draw):
    """Original rows and an arbitrary (possibly invalid) release: each occurrence goes to a random
    ancestor-or-self, and now and then a label is added or dropped."""
    h = draw(hierarchies())
    rows = draw(transactions(max_transactions=12, max_length=4))
    parent = {child: par for child, par in h.edges()}
    released = []
    for row in rows:
        out = set()
        for item in row:
            for _ in range(draw(st.integers(0, h.height))):
                item = parent.get(item, item)
            out.add(item)
        if draw(st.integers(0, 9)) == 0:
            out.add(draw(st.sampled_from(h.labels)))
        if out and draw(st.integers(0, 9)) == 0:
            out.discard(draw(st.sampled_from(sorted(out))))
        released.append(sorted(out))
    return h, rows, released


@SETTINGS
@given(case=generalizations(), k=st.integers(1, 4), m=st.integers(1, 3))
def test_checkers_agree_with_brute_force(case, k, m):
    h, rows, released = case
    original = Window.from_transactions(rows)
    release = Window.from_transactions(released, vocab=original.vocab.copy())
    valid = is_generalization(rows, [set(r) for r in released], leaf_sets(h))
    k_ok = is_k_anonymous([set(r) for r in released], k)
    km_ok = is_km_anonymous([set(r) for r in released], k, m)
    kanonymity, km = configure("kanonymity", h, k=k).model, configure("km-anonymity", h, k=k, m=m).model
    # the core checks the generalization (for every generalizing model), the model its property
    assert (not list(generalization_violations(original, release, h))) == valid
    assert (not any(v.rule == "small-class" for v in kanonymity.violations(original, release))) == k_ok
    assert (not any(v.rule == "small-support" for v in km.violations(original, release))) == km_ok
    for model, ok in ((kanonymity, k_ok), (km, km_ok)):
        assert (not list(release_violations(model, original, release, model.context))) == (valid and ok)


@SETTINGS
@given(case=generalizations())
def test_the_generalization_check_counts_and_places_what_walking_each_item_up_finds(case):
    h, rows, released = case
    ancestors = {}
    for node, label in enumerate(h.labels):
        above = {label}
        while h.parent[node] >= 0:
            node = int(h.parent[node])
            above.add(h.labels[node])
        ancestors[label] = above
    covers = [(t, sum(label in ancestors[item] for label in released[t])) for t, row in enumerate(rows) for item in row]
    foreign = sorted((t, h.index[label], label) for t, out in enumerate(released) for label in out
                     if not any(label in ancestors[item] for item in rows[t]))
    expected = []
    for rule, found in (("uncovered-item", [t for t, c in covers if c == 0]),
                        ("overlapping-labels", [t for t, c in covers if c > 1])):
        if found:
            expected.append((rule, len(found), min(found), ()))
    if foreign:
        expected.append(("foreign-label", len(foreign), foreign[0][0], (foreign[0][2],)))
    original = Window.from_transactions(rows)
    release = Window.from_transactions(released, vocab=original.vocab.copy())
    found = [(v.rule, int(v.summary.split()[0]), v.transaction, v.itemset)
             for v in generalization_violations(original, release, h)]
    assert found == expected


@SETTINGS
@given(h=hierarchies(), first=transactions(), second=transactions(), k=st.integers(2, 4))
def test_union_of_k_anonymous_windows_is_k_anonymous(h, first, second, k):
    configured = configure("kanonymity", h, k=k)
    a_in, a_out = anonymize(configured, first)
    b_in, b_out = anonymize(configured, second)
    if a_out is None or b_out is None:
        return
    union = [set(row) for row in a_out] + [set(row) for row in b_out]
    assert is_k_anonymous(union, k)
    vocab = a_in.vocab.copy()
    original = Window.concat([a_in, b_in], vocab=vocab)
    released = Window.concat([a_out, b_out], vocab=vocab.copy())
    assert not list(release_violations(configured.model, original, released, configured.context))


@SETTINGS
@given(h=hierarchies(), first=transactions(), second=transactions(), k=st.integers(2, 4), m=st.integers(1, 3))
def test_union_of_km_anonymous_windows_is_km_anonymous(h, first, second, k, m):
    configured = configure("km-anonymity", h, k=k, m=m)
    _, a_out = anonymize(configured, first)
    _, b_out = anonymize(configured, second)
    if a_out is None or b_out is None:
        return
    assert is_km_anonymous([set(row) for row in a_out] + [set(row) for row in b_out], k, m)


def _release_of(configured, rows):
    window = Window.from_transactions(rows)
    return [list(row) for row in configured.model.anonymize(window, configured.policy, np.random.default_rng(0)).window]


def test_union_of_windows_with_different_cuts_leaves_every_attacker_k_transactions():
    """Two windows, one hierarchy, two cuts: the first keeps 2 and 3, the second releases both as
    g1. An attacker who knows 0 and 2 of a person matches {0, 2} in the first and {0, g1} in the
    second (four transactions); the fewest, two, are left to one who knows 1 and 2, which only
    {1, g1} of the second matches: never fewer than k."""
    h = Hierarchy.from_edges([("0", "g0", 0), ("1", "g0", 0), ("2", "g1", 0), ("3", "g1", 0),
                              ("g0", "g2", 0), ("g1", "g2", 0)])
    configured = configure("km-anonymity", h, k=2, m=2)
    first, second = [["0", "2"], ["0", "2"], ["1", "3"], ["1", "3"]], [["0", "2"], ["1", "2"], ["0", "3"], ["1", "3"]]
    a_out, b_out = _release_of(configured, first), _release_of(configured, second)
    assert a_out == first
    assert b_out == [["0", "g1"], ["1", "g1"], ["0", "g1"], ["1", "g1"]]
    leaves = leaf_sets(h)
    assert fewest_consistent([["0", "2"]], a_out + b_out, leaves, 2) == 4
    assert fewest_consistent(first + second, a_out + b_out, leaves, 2) == 2


@settings(SETTINGS, derandomize=True)
@given(h=hierarchies(), first=transactions(max_length=4), second=transactions(max_length=4),
       k=st.integers(2, 4), m=st.integers(1, 3))
def test_union_of_km_anonymous_windows_is_safe_against_an_attacker_of_leaves(h, first, second, k, m):
    """Terrovitis et al.'s attacker knows items, not labels, and each window may cut the hierarchy
    elsewhere: at least k released transactions of the union match any m items of a person."""
    configured = configure("km-anonymity", h, k=k, m=m)
    _, a_out = anonymize(configured, first)
    _, b_out = anonymize(configured, second)
    if a_out is None or b_out is None:
        return
    released = [list(row) for row in a_out] + [list(row) for row in b_out]
    fewest = fewest_consistent(first + second, released, leaf_sets(h), m)
    assert fewest is None or fewest >= k
