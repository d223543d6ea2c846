"""The three policies with unit IL, as a user who gives `--policy` and `-P il=unit` together meets them."""

from pathlib import Path

import numpy as np
import pytest

from setveil.core.schema import ItemSchema
from setveil.core.window import Window

from .conftest import coherence

DOC = Path(__file__).resolve().parents[2] / "docs" / "coherence.md"


@pytest.mark.parametrize("policy", ["mm-il", "mm", "il"])
def test_with_unit_il_every_policy_suppresses_in_the_score_tables_order(policy):
    # test_paper_example's table where the three criteria choose x y z, y x z and z x y with IL the
    # support: x is in 3 pairs held once, y in 4, z in 1. With IL 1, MM/IL is MM, and 1/IL ties
    # every candidate, so the table's order as built (MM, then label) decides for all three: y, x,
    # then w0, which ties with z, its partner, at MM 1 and IL 1 and comes first by label
    rows = [["x", f"u{i}"] for i in range(3)] + [["y", f"v{i}"] for i in range(4)] + [["z", "w0"]]
    rows += [["y"]] * 4 + [["z"]]
    rows += [[f"{p}{i}"] for p, n in (("u", 3), ("v", 4), ("w", 1)) for i in range(n) for _ in range(8)]
    configured = coherence(policy, h="1", il="unit", schema=ItemSchema(private=frozenset()))
    release = configured.model.anonymize(Window.from_transactions(rows), configured.policy, np.random.default_rng(0))
    assert release.details["suppressed"] == ["y", "x", "w0"]


def test_the_page_says_what_unit_il_makes_of_each_policy():
    # User walkthrough: the page's policy table gave il as "smallest IL(e)" and the il parameter
    # as IL(e) = 1 with unit, and said nothing of the two together, whose scores all tie
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "With `-P il=unit` every IL(e) is 1, so `mm-il` suppresses what `mm` does, and `il` scores every " \
           "candidate alike and takes them in the Score table's order as built" in text
