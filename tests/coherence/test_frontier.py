"""The mole search's levels with and without their tidsets (FRONTIER_BUDGET), on windows whose
tidsets take several words: the same minimal moles as enumeration, and the same counts level by
level as with every tidset kept (Xu et al. §3.1, Fig. 4)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from setveil.core.schema import ItemSchema
from setveil.plugins.coherence import moles

from . import bruteforce
from .conftest import searched

SCHEMA = ItemSchema(private=frozenset({"s0", "s1", "s2"}))


@st.composite
def dense_windows(draw):
    """65 to 160 transactions (tidsets of 2 or 3 words) of up to 7 public items each held with
    one chance in 2 to 9 out of 10, so that itemsets of 3 to 5 items reach k, and a few private
    items."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    public, share = draw(st.integers(3, 7)), draw(st.floats(0.2, 0.9))
    return [[f"p{i}" for i in range(public) if rng.random() < share] + [f"s{i}" for i in range(3) if rng.random() < 0.2]
            for _ in range(draw(st.integers(65, 160)))]


def _search(rows, h, k, p):
    minimal, found = searched(rows, SCHEMA, h, k, p)
    return minimal, found.extendible, found.candidates


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=dense_windows(), h=st.sampled_from([0.3, 0.5, 0.75, 1.0]), k=st.integers(1, 30), p=st.integers(2, 6),
       frontier=st.integers(0, 64), chunk=st.sampled_from([8, 16, 24, 64 << 20]))
def test_levels_past_the_frontier_budget_find_the_enumerated_moles_and_the_same_counts(rows, h, k, p, frontier, chunk):
    # Review of de9889e: its property test draws the budget on windows of one word (30
    # transactions at most), where a level's tidsets are ANDed from one word per item; here they
    # take 2 or 3, a chunk is one to a few candidates, and a budget of ``frontier`` words drops the
    # larger levels and keeps the smaller ones after them
    assume(not bruteforce.is_mole(rows, list(range(len(rows))), SCHEMA.private, h, k))  # refused before (Theorem 1)
    kept = _search(rows, h, k, p)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moles, "FRONTIER_BUDGET", 8 * frontier)
        patch.setattr(moles, "CHUNK_BYTES", chunk)
        dropped = _search(rows, h, k, p)
    assert dropped == kept
    assert dropped[0] == bruteforce.minimal_moles(rows, SCHEMA, h, k, p)
