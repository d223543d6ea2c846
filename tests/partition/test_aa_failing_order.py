"""AA's failing itemsets come in lexicographic order of their nodes (preorder), with narrow keys
and with wide (void) keys, whose bytes do not sort as numbers: so a stable sort by support alone
gives a round the order of support, then preorder, which a lexsort over every column gave."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition import apriori
from setveil.plugins.partition.apriori import GlobalCut, apriori_anonymize
from setveil.plugins.partition.recoding import LeafWindow

from .balanced import rows_under_a_hierarchy


def _wide(rows: np.ndarray, n_nodes: int) -> np.ndarray:
    return np.ascontiguousarray(rows, dtype=np.int64).view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


@st.composite
def windows(draw):
    rows, hierarchy = draw(rows_under_a_hierarchy(max_items=40, max_length=7, max_rows=60))
    return rows, hierarchy, draw(st.integers(2, 6)), draw(st.integers(1, 4))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows(), st.booleans())
def test_failing_itemsets_are_ascending_and_a_stable_sort_by_support_is_the_lexsort(drawn, wide):
    rows, hierarchy, k, size = drawn
    with pytest.MonkeyPatch.context() as patch:
        if wide:
            patch.setattr(apriori, "_pack", _wide)
        cut = GlobalCut(LeafWindow.of(Window.from_transactions(rows), hierarchy), hierarchy)
        itemsets, supports, _ = cut.failing_itemsets(size, k)
    assert itemsets.tolist() == sorted(itemsets.tolist())
    lexsorted = np.lexsort([itemsets[:, c] for c in range(size - 1, -1, -1)] + [supports])
    assert np.array_equal(np.argsort(supports, kind="stable"), lexsorted)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows())
def test_aa_releases_the_same_with_wide_keys(drawn):
    rows, hierarchy, k, m = drawn
    if sum(1 for row in rows if row) < k:
        return
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    narrow = apriori_anonymize(leaves, hierarchy, k, m)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apriori, "_pack", _wide)
        wide = apriori_anonymize(leaves, hierarchy, k, m)
    assert narrow.nodes.tolist() == wide.nodes.tolist()
    assert {key: value for key, value in narrow.stats.items() if key != "aa_seconds"} == \
        {key: value for key, value in wide.stats.items() if key != "aa_seconds"}


def test_wide_keys_of_nodes_past_a_byte_come_ascending_as_numbers():
    # 300 items under a binary hierarchy: nodes 0..598, so a node id's low byte alone does not
    # order it, and little-endian bytes sort (1, 256) before (2, 3)
    labels = [f"i{x:03d}" for x in range(300)]
    rows = [[labels[x], labels[(7 * x + 3) % 300], labels[(13 * x + 5) % 300]] for x in range(300)]
    hierarchy = Hierarchy.balanced(labels, 2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(apriori, "_pack", _wide)
        cut = GlobalCut(LeafWindow.of(Window.from_transactions(rows), hierarchy), hierarchy)
        itemsets, supports, _ = cut.failing_itemsets(2, 2)
    assert int(itemsets.max()) >= 256
    assert itemsets.tolist() == sorted(itemsets.tolist())
