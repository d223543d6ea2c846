"""Peak memory of one call as tracemalloc sees it: what numpy and Python allocate, not what
memory outside Python's allocator holds (tests/resident.py covers that)."""

import tracemalloc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def traced_peak(call: Callable[[], T]) -> tuple[T, int]:
    """``call()``'s result and the most bytes traced while it ran, above what was traced before."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
