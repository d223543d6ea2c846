"""The mole search's exact breach counts Sup(β ∪ {e}) (plugins/coherence/moles.py ``_breaches``),
by listing a candidate's transactions or by ANDing and counting its tidset, find a pair whose
private item's count passes 255: the other tests' windows held under 128 transactions, so a
count kept in a byte found the same moles there."""

import pytest

from setveil.core.schema import ItemSchema
from setveil.plugins.coherence import moles

from . import bruteforce
from .conftest import searched

SCHEMA = ItemSchema(private=frozenset({"s0"}))


def _window() -> list[list[str]]:
    """1,200 transactions: s0 in the first 330, p2 in the first 900, p3 in the first 600 and the last
    300, p0 in all. s0 is in 330 of p2's 900 and of p3's 900 (under h = 0.4 each) and in 330 of
    the 600 the pair holds (0.55, over h): the pair is the one minimal mole."""
    return [["p0"] + ["p2"] * (t < 900) + ["p3"] * (t < 600 or t >= 900) + ["s0"] * (t < 330) for t in range(1_200)]


@pytest.mark.parametrize("listing", [True, False], ids=["listed", "anded"])
@pytest.mark.parametrize("p", [2, 3])
def test_a_breach_counted_past_a_byte_makes_the_pair_a_mole(listing, p):
    rows = _window()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(moles, "_by_listing", lambda *args: listing)
        found, search = searched(rows, SCHEMA, 0.4, 2, p)
    assert found == {frozenset({"p2", "p3"})} == bruteforce.minimal_moles(rows, SCHEMA, 0.4, 2, p)
    assert search.extendible[1] == 2  # {p0, p2} and {p0, p3}
