"""The mole search lets go of the window's matrix, the items' private counts and the pairs' product
once the levels have what they need of them, where they were held through every level (retail at
δ=50%, h=0.4, k=5, p=3: 628 MiB peak resident, 563 without them)."""

import tracemalloc

import numpy as np

from setveil.core.window import Window
from setveil.plugins.coherence.moles import find_minimal_moles


def test_the_levels_are_searched_without_the_window_matrix_held():
    rng = np.random.default_rng(0)
    public_items = [f"p{i}" for i in range(12)]
    private_items = [f"s{i}" for i in range(400)]
    # many private occurrences and few public items: the matrix outweighs the levels' own arrays
    rows = [[public_items[i] for i in rng.choice(12, size=3, replace=False)]
            + [private_items[i] for i in rng.choice(400, size=20, replace=False)] for _ in range(20_000)]
    window = Window.from_transactions(rows)
    public = np.array([label.startswith("p") for label in window.vocab.labels])
    window.supports, window.matrix(np.int32)  # the window's own, not what is measured
    tracemalloc.start()
    try:
        search = find_minimal_moles(window, public, ~public, 0.9, 5, 4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert search.candidates == [12, 66, 220, 495] and search.count == 0
    # 40.6 bytes an occurrence (460,000 of them); 56.3 while they were held
    assert peak < 46 * window.n_occurrences
