"""Random transaction windows for property tests (hypothesis strategies and a seeded sampler).

Labels ``p0, p1, ...`` are ordinary items and ``s0, s1, ...`` sensitive ones, so a suite can
derive an item schema from the labels alone.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from setveil.core.window import Window

PRIVATE_PREFIX = "s"


@st.composite
def windows(
    draw: st.DrawFn, max_transactions: int = 40, public_items: int = 10, private_items: int = 3, max_length: int = 6
) -> Window:
    """A :class:`Window` of up to ``max_transactions`` transactions over a small alphabet, with no
    tids (as a FIMI file's) or with text tids (as every window of the service has, where a record
    without one gets ``partition:offset``)."""
    alphabet = [f"p{i}" for i in range(public_items)] + [f"{PRIVATE_PREFIX}{i}" for i in range(private_items)]
    n = draw(st.integers(min_value=0, max_value=max_transactions))
    rows = draw(
        st.lists(
            st.lists(st.sampled_from(alphabet), max_size=max_length, unique=True),
            min_size=n,
            max_size=n,
        )
    )
    # QA attacking the kit: a model that read its tids as numbers passed, and failed every window
    # of the service and of a JSONL file
    tids = [f"0:{offset}" for offset in range(n)] if draw(st.booleans(), label="tids") else None
    return Window.from_transactions(rows, tids=tids)


def random_window(
    rng: np.random.Generator, n: int, public_items: int = 30, private_items: int = 5, mean_length: float = 4.0
) -> Window:
    """A seeded random window with Zipf-like item popularity, as real baskets have."""
    alphabet = np.array([f"p{i}" for i in range(public_items)] + [f"{PRIVATE_PREFIX}{i}" for i in range(private_items)])
    weights = 1.0 / np.arange(1, len(alphabet) + 1)
    weights = weights[rng.permutation(len(alphabet))]
    weights /= weights.sum()
    rows = []
    for _ in range(n):
        length = min(len(alphabet), int(rng.poisson(mean_length)))
        rows.append(list(rng.choice(alphabet, size=length, replace=False, p=weights)))
    return Window.from_transactions(rows)
