"""A time bound on a probe of the conformance kit, so that a model that never finishes on a value
its declared range admits fails that test with a message instead of hanging the suite."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


class OutOfTime(BaseException):
    """Raised into the probe when its time is up: a BaseException, so that a model's own
    ``except Exception`` does not swallow it."""


@contextlib.contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    """Raise :class:`OutOfTime` in the body after ``seconds`` (SIGALRM's timer, so only in the main
    thread of a POSIX process, and only when control is back in Python: a model stuck in one long C
    call is stopped when that call returns). Elsewhere the body runs unbounded, and so it does
    under a timer already running (pytest-timeout's signal method, say), which then bounds it."""
    if (not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise OutOfTime

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
