"""Hierarchies under a long chain of one-child nodes, as a hierarchy file can make them, and the
count of Python and C calls a step takes over them: what bounds a step's work by the chain's
length, where a timed test would not."""

import sys

import numpy as np


def chain_over(n: int, leaves: list[str]) -> tuple[list[str], np.ndarray]:
    """Labels and parents in preorder: the chain n0 (the root) … n{n-1}, and ``leaves`` under its
    last node."""
    labels = [f"n{i}" for i in range(n)] + leaves
    return labels, np.concatenate([np.arange(-1, n - 1), [n - 1] * len(leaves)])


def calls_made(step):
    """``step()``'s result and the Python and C calls it made."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        result = step()
    finally:
        sys.setprofile(None)
    return result, calls
