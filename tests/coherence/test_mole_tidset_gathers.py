"""The mole search's chunks of tidsets (Xu et al. §3.1, Fig. 4: a candidate's tidset is the AND of
its parents' or of its items'): made into their own array from rows gathered a GATHERS-th of the
chunk at a time, and counted the same way, so that no copy of the chunk's size is held beside it.
The moles and counts are the same at any GATHERS."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from setveil.core.bitset import popcount
from setveil.core.schema import ItemSchema
from setveil.plugins.coherence import moles

from ..tracing import traced_peak
from . import bruteforce
from .conftest import searched
from .test_frontier import dense_windows

SCHEMA = ItemSchema(private=frozenset({"s0", "s1", "s2"}))
ROWS, WIDTH = 2_000, 512  # 8 MiB of bitsets, a chunk of 1,024 rows 4 MiB


def _bits():
    return np.random.default_rng(0).integers(0, 2**63, size=(ROWS, WIDTH), dtype=np.int64).view(np.uint64)


@pytest.mark.parametrize("parts", [2, 3])
def test_a_chunk_of_tidsets_holds_its_own_array_and_a_part_of_gathered_rows(parts):
    bits = _bits()
    ids = [np.random.default_rng(part).integers(0, ROWS, size=1_024) for part in range(parts)]
    expected = bits[ids[0]]
    for other in ids[1:]:
        expected = expected & bits[other]
    chunk = np.arange(1_024)
    tidsets, peak = traced_peak(lambda: moles._Tidsets(bits, ids).of(chunk))
    assert np.array_equal(tidsets, expected)
    size = expected.nbytes
    assert peak < size + size // moles.GATHERS + (64 << 10)  # it was three chunks' size
    out = np.empty_like(expected)
    _, peak = traced_peak(lambda: moles._Tidsets(bits, ids).of(chunk, out=out))
    assert np.array_equal(out, expected)
    assert peak < size // moles.GATHERS + (64 << 10)


def test_a_chunk_is_counted_a_part_at_a_time():
    bits = _bits()[:1_024]
    counts, peak = traced_peak(lambda: moles._popcounts(bits))
    assert np.array_equal(counts, popcount(bits))
    assert peak < bits.nbytes // moles.GATHERS + (64 << 10)  # it was the chunk's size
    assert moles._popcounts(bits[:0]).shape == (0,)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=dense_windows(), h=st.sampled_from([0.3, 0.5, 1.0]), k=st.integers(1, 30), p=st.integers(2, 5),
       gathers=st.integers(1, 9), chunk=st.sampled_from([16, 64, 64 << 20]), frontier=st.sampled_from([0, 4 << 30]))
def test_the_moles_and_counts_are_the_same_whatever_the_gathers(rows, h, k, p, gathers, chunk, frontier):
    assume(not bruteforce.is_mole(rows, list(range(len(rows))), SCHEMA.private, h, k))  # refused before (Theorem 1)
    found, search = searched(rows, SCHEMA, h, k, p)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moles, "GATHERS", gathers)
        patch.setattr(moles, "CHUNK_BYTES", chunk)
        patch.setattr(moles, "FRONTIER_BUDGET", frontier)
        again, other = searched(rows, SCHEMA, h, k, p)
    assert again == found == bruteforce.minimal_moles(rows, SCHEMA, h, k, p)
    assert [m.tolist() for m in other.moles] == [m.tolist() for m in search.moles]
    assert (other.extendible, other.candidates) == (search.extendible, search.candidates)
