"""The mole search packs the tidsets of the private items its breach counts read, and no others:
counted by listing each candidate's transactions, none; by popcounts, those whose bound let them
through. All of them were packed up front (27 MiB at the search's peak on retail at δ=20%, h=0.4,
k=20, p=4, which reads none)."""

import pytest

from setveil.core.schema import ItemSchema
from setveil.plugins.coherence import moles

from . import bruteforce
from .conftest import searched

# s0 and s1 are counted (test_breach_counts.py's window); s2..s21 are each held once, beside p4
# only, so no bound lets them through (h=0.5, k=2: a count must pass 1)
RARE = [f"s{i}" for i in range(2, 22)]
SCHEMA = ItemSchema(private=frozenset({"s0", "s1", *RARE}))
ROWS = [["p0", "p1", "s0"], ["p0", "p1", "s0"], ["p0", "p1"], ["p0"], ["p0"], ["p1"], ["p1"],
        ["p2", "p3", "s1"], ["p2", "p3", "s1"], ["p2", "p3"], ["p2", "p3"], ["p2", "s1"], ["p3", "s1"],
        ["p2"], ["p3"]] + [["p4", "p2", item] for item in RARE]


@pytest.mark.parametrize(("listing", "private_packed"), [(True, 0), (False, 2)])
def test_only_the_private_items_counted_are_packed(monkeypatch, listing, private_packed):
    packed = []
    pack = moles.pack_tidlists

    def recorded(indptr, rows, n_transactions):
        packed.append(len(indptr) - 1)
        return pack(indptr, rows, n_transactions)

    monkeypatch.setattr(moles, "pack_tidlists", recorded)
    monkeypatch.setattr(moles, "_by_listing", lambda *args: listing)
    found, _ = searched(ROWS, SCHEMA, 0.5, 2, 2)
    assert found == bruteforce.minimal_moles(ROWS, SCHEMA, 0.5, 2, 2) == {frozenset({"p0", "p1"})}
    # the public items' tidsets (p0..p4, extendible), then those of the private items whose bound
    # may pass h of a pair's support: s0 (p0p1) and s1 (p2p3), never s2..s21 (bounds of 1)
    assert packed[0] == 5
    assert sum(packed[1:]) == private_packed
