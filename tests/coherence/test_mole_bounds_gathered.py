"""The mole search's per-private-item bounds (Xu et al. §3.1: Sup(β ∪ e) is at most its parents'):
int32 where the window's counts fit, and gathered for a chunk's breach counts at most
BOUND_ENTRIES at a time (with one candidate's parents' rows at least). The minimal moles, counts
and bounds are the same at any setting, and are Definition 1's."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from setveil.core import arrays
from setveil.core.schema import ItemSchema
from setveil.plugins.coherence import moles

from . import bruteforce
from .conftest import searched

SCHEMA = ItemSchema(private=frozenset({"s0", "s1", "s2", "s3"}))


@st.composite
def windows(draw):
    """20 to 90 transactions of up to 7 public items, each held with one chance in 2 to 9 out of
    10, and private items held often enough that their bounds pass h·k."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    public, share = draw(st.integers(3, 7)), draw(st.floats(0.2, 0.9))
    private = draw(st.floats(0.1, 0.5))
    return [[f"p{i}" for i in range(public) if rng.random() < share]
            + [f"s{i}" for i in range(4) if rng.random() < private] for _ in range(draw(st.integers(20, 90)))]


class _Gathered:
    """What each breach count was given: its candidates and the parents' bounds' entries and dtype."""

    def __init__(self, patch):
        self.calls = []
        breaches = moles._breaches

        def spy(tidsets, which, support, upper1, upper2, *rest):
            self.calls.append((len(which), upper1.nnz + upper2.nnz, upper1.data.dtype, upper1.indices.dtype))
            return breaches(tidsets, which, support, upper1, upper2, *rest)

        patch.setattr(moles, "_breaches", spy)


def _search(rows, h, k, p):
    found, search = searched(rows, SCHEMA, h, k, p)
    return found, [level.tolist() for level in search.moles], search.extendible, search.candidates


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=windows(), h=st.sampled_from([0.3, 0.5, 0.75]), k=st.integers(1, 12), p=st.integers(2, 5),
       entries=st.integers(1, 40), int32_counts=st.booleans(), chunk=st.sampled_from([8, 64 << 20]))
def test_bounds_gathered_in_parts_and_as_int32_find_the_same_moles(rows, h, k, p, entries, int32_counts, chunk):
    assume(not bruteforce.is_mole(rows, list(range(len(rows))), SCHEMA.private, h, k))  # refused before (Theorem 1)
    whole = _search(rows, h, k, p)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moles, "BOUND_ENTRIES", entries)
        patch.setattr(moles, "CHUNK_BYTES", chunk)
        if not int32_counts:
            patch.setattr(arrays, "INT32_IDS", len(rows))  # counts 0 .. len(rows) no longer fit
        gathered = _Gathered(patch)
        parts = _search(rows, h, k, p)
    assert parts == whole
    assert parts[0] == bruteforce.minimal_moles(rows, SCHEMA, h, k, p)
    for candidates, held, data, indices in gathered.calls:
        assert candidates == 1 or held <= entries + 2 * len(SCHEMA.private)
        assert data == (np.int32 if int32_counts else np.int64)
        assert indices == np.int32


def test_a_chunk_of_pairs_gathers_its_parents_bounds_a_part_at_a_time():
    # 60 transactions each holding the public items p0..p5 and one private item of four in turn: every
    # pair and triple is extendible, and each itemset's bounds hold the 4 private items (15 > h·k), 8
    # for a candidate's parents
    rows = [[f"p{i}" for i in range(6)] + [f"s{t % 4}"] for t in range(60)]
    whole = _search(rows, 0.5, 2, 3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moles, "BOUND_ENTRIES", 16)
        gathered = _Gathered(patch)
        parts = _search(rows, 0.5, 2, 3)
    assert parts == whole
    assert whole[2:] == ([6, 15, 20], [6, 15, 20])
    # the 15 pairs, then the 20 triples, in parts of 2 candidates (16 entries) and what is left
    assert [candidates for candidates, *_ in gathered.calls] == [2] * 7 + [1] + [2] * 10
    assert all(held <= 16 for _, held, *_ in gathered.calls)
