"""The eq. 8 costs docs/operations.md gives for windows of retail and BMS-WebView-2 ("Model
parameters", t_max) are those of the windows the file cuts in order."""

import statistics
from pathlib import Path

import numpy as np
import pytest

from setveil.core.formats import read_window
from setveil.plugins.rho.dnc import cost

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def costs(window, size: int) -> list[float]:
    """Eq. 8 of each whole window of ``size`` transactions, in file order."""
    lengths = np.diff(window.indptr)
    found = []
    for start in range(0, len(window) - size + 1, size):
        items = window.indices[window.indptr[start]:window.indptr[start + size]]
        found.append(cost(size, int(lengths[start:start + size].sum()), len(np.unique(items))))
    return found


@pytest.mark.slow
def test_the_window_costs_the_page_gives(datasets):
    # a docs audit: the page gave these figures with no word of how they were had
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    retail = read_window(datasets / "retail.dat")
    small, large = costs(retail, 1_000), costs(retail, 5_000)
    bms = costs(read_window(datasets / "BMS-WebView-2.dat"), 20_000)
    assert (f"retail's {len(small)} windows of 1,000 cost {min(small):,.0f} to {max(small):,.0f} "
            f"(median {statistics.median(small):,.0f}; {small[0]:,.0f} the first), "
            f"{sum(c > 500 for c in small)} of them above the default 500, its {len(large)} windows of 5,000 "
            f"{min(large):,.0f} to {max(large):,.0f}, all above it, BMS-WebView-2's windows of 20,000 "
            f"{min(bms):,.0f} to {max(bms):,.0f}, none (eq. 8 of each whole window of the file cut in order") in text
    assert min(large) > 500 and max(bms) <= 500
