"""The conformance kit's time bound (setveil/testing/deadline.py) leaves SIGALRM as it found it:
its timer disarmed and the handler restored, whether the bounded probe ends normally, by an
exception or out of time, and a timer already running (pytest-timeout's) left running."""

import signal
import time

import pytest

from setveil.testing.deadline import OutOfTime, time_bound


def _left_alone(handler) -> None:
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0), "the time bound left its timer armed"
    assert signal.getsignal(signal.SIGALRM) is handler, "the time bound left its SIGALRM handler in place"


def test_a_probe_that_ends_in_time_leaves_no_timer_armed():
    handler = signal.getsignal(signal.SIGALRM)
    with time_bound(30):
        pass
    _left_alone(handler)


def test_a_probe_that_raises_leaves_no_timer_armed():
    handler = signal.getsignal(signal.SIGALRM)
    with pytest.raises(ValueError), time_bound(30):
        raise ValueError("the model failed")
    _left_alone(handler)


def test_a_probe_out_of_time_is_stopped_and_leaves_no_timer_armed():
    handler = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(OutOfTime), time_bound(0.05):
        for _ in range(300):
            time.sleep(0.01)
    assert time.monotonic() - started < 5
    _left_alone(handler)


def test_a_timer_already_running_bounds_the_probe_and_is_left_running():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        with time_bound(0.05):
            time.sleep(0.2)
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30, "the time bound disarmed a timer it did not arm"
        assert fired == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
