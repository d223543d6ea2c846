"""The report's ``suppressed_items`` is what docs/coherence.md says: the public items suppressed,
the size-1 moles included, an item suppressed in several windows counted once per window. The
release shows it: suppression is global in a window, so each item suppressed is an item type the
window holds and its release lacks. Until this file no test read it of a window that suppressed
anything (one asserted 0 for an empty window)."""

import numpy as np
import pytest

from setveil.core.errors import Infeasible
from setveil.core.schema import ItemSchema
from setveil.testing import random_window

from ..report_keys import anonymized_report
from .conftest import FIGURE_1, PRIVATE, coherence

MODEL = ["--model", "coherence", "-P", "h=0.8", "-P", "k=2", "-P", "p=2"]
SCHEMA = ItemSchema(private=frozenset(f"s{i}" for i in range(5)))


def lacked(window, release) -> set[str]:
    """The item types ``window`` holds and ``release`` does not."""
    return {label for row in window for label in row} - {label for row in release for label in row}


def test_figure_1_suppresses_x_y_z_then_d_and_b(figure1):
    configured = coherence()
    release = configured.model.anonymize(figure1, configured.policy, np.random.default_rng(0))
    assert release.stats["suppressed_items"] == 5
    assert lacked(figure1, release.window) == {"x", "y", "z", "d", "b"}


# Zipf-like baskets of 30 public and 5 private items: windows of 60-300 transactions whose releases
# suppress from none to most of their public items, by each policy and information loss
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("policy, il", [("mm-il", "support"), ("mm", "unit"), ("il", "support")])
def test_suppressed_items_counts_the_item_types_the_release_lacks(seed, policy, il):
    rng = np.random.default_rng(seed)
    window = random_window(rng, int(rng.integers(60, 300)), mean_length=float(rng.uniform(2, 6)))
    h, k, p = ("0.5", "0.7", "0.9")[seed % 3], str(2 + seed % 5), str(1 + seed % 3)
    configured = coherence(policy, h, k, p, il, schema=SCHEMA)
    try:
        release = configured.model.anonymize(window, configured.policy, np.random.default_rng(seed))
    except Infeasible:
        pytest.skip("a private item above h in the whole window (Theorem 1)")
    gone = lacked(window, release.window)
    assert release.stats["suppressed_items"] == len(gone)
    assert set(release.details["size1_moles"]) | set(release.details["suppressed"]) == gone
    assert release.stats["size1_moles"] == len(release.details["size1_moles"])


def test_an_item_suppressed_in_two_windows_counts_twice(tmp_path):
    data, sensitive = tmp_path / "figure1.dat", tmp_path / "private.txt"
    data.write_text("".join(" ".join(row) + "\n" for row in FIGURE_1 * 2))
    sensitive.write_text("".join(f"{item}\n" for item in sorted(PRIVATE)))
    body = anonymized_report(tmp_path, data, *MODEL, "--sensitive", sensitive, "--window", 5)
    assert [window["stats"]["suppressed_items"] for window in body["per_window"]] == [5, 5]
    assert body["stats"]["suppressed_items"] == 10
