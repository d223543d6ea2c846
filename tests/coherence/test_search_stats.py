"""The counts of the mole search a release reports (docs/coherence.md), keyed by itemset size."""

import numpy as np

from setveil.core.window import Window

from .conftest import FIGURE_1, coherence


def test_figure_1s_counts_are_keyed_by_the_number_of_items():
    # Example 5 (k=2, p=3, h=0.8): x, y and z are the size-1 moles; the minimal moles are the 7
    # pairs of M*, and no triple is one; 6 items and 8 pairs are extendible, and 4 triples
    configured = coherence(p="3")
    release = configured.model.anonymize(Window.from_transactions(FIGURE_1), configured.policy,
                                         np.random.default_rng(0))
    stats = release.stats
    assert (stats["size1_moles"], stats["minimal_moles"]) == (3, 7)
    assert stats["minimal_moles_by_size"] == {"2": 7, "3": 0}
    assert stats["extendible_by_size"] == {"1": 6, "2": 8, "3": 4}
