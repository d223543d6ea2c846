"""The counts of the mole search that docs/coherence.md gives for its budget are the ones the
search weighs on the data it names (retail and T10I4D100K at the README's service setting)."""

import re
from pathlib import Path

import pytest

import setveil.plugins.coherence.moles as moles
from setveil.core.formats import read_window
from setveil.core.itemsplit import coherence_split

DOC = Path(__file__).resolve().parents[2] / "docs" / "coherence.md"


def weighed(window, monkeypatch) -> tuple[dict[int, int], list[int]]:
    """What the budget weighed at each size (the pairs' bound at 2, the joins above), and the
    candidates of each level once their subsets are checked, at δ=50%, h=0.4, k=5, p=3."""
    split = coherence_split(window, 0.5, seed=1, h=0.4)
    counts: dict[int, int] = {}
    check = moles.within_budget

    def counting(count, budget, k, what):
        counts[int(re.search(r"of size (\d+)", what).group(1))] = count
        return check(count, budget, k, what)

    monkeypatch.setattr(moles, "within_budget", counting)
    search = moles.find_minimal_moles(window, window.vocab.mask(sorted(split.public)),
                                      window.vocab.mask(sorted(split.private)), 0.4, 5, 3)
    return counts, search.candidates


@pytest.mark.slow
def test_the_budgets_counts_the_page_gives(datasets, monkeypatch):
    # a docs audit: the page gave retail's pairs a bound of 7,164,335, the pairs of every item of each
    # transaction where the budget weighs those of its extendible items, and T10I4D100K's
    # triples as candidates where retail's were the joins listed
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    counts, candidates = weighed(read_window(datasets / "retail.dat"), monkeypatch)
    assert (f"The whole of retail needs {candidates[1]:,} pairs at p=3 (a bound of {counts[2]:,}, "
            f"the pairs of each transaction's extendible items;") in text
    assert f"and lists {counts[3]:,} triples ({candidates[2]:,} once their subsets are checked)" in text
    counts, candidates = weighed(read_window(datasets / "T10I4D100K.dat"), monkeypatch)
    assert f"T10I4D100K {counts[3]:,} ({candidates[2]:,})" in text

