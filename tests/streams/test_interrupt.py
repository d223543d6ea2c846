"""Stop signals in the commands that run an asyncio loop (streams/interrupt.py)."""

import asyncio
import signal
import time

import pytest

from setveil.streams import interrupt


async def _stops_at_its_next_await(done: list[str]) -> None:
    signal.raise_signal(signal.SIGTERM)
    done.append("ran on to its next await")  # the handler did not raise in the middle of this code
    try:
        await asyncio.sleep(60)
    finally:
        await asyncio.sleep(0.01)
        done.append("cleaned up")


def test_a_stop_signal_cancels_the_coroutine_at_its_next_await_and_raises_once_it_has_ended():
    # Regression (QA): raised wherever the main thread was, the stop landed inside asyncio once,
    # between a future's result and the scheduling of its callbacks, and the demo hung for good
    done: list[str] = []
    started = time.monotonic()
    with pytest.raises(interrupt.Stopped) as stopped:
        interrupt.run_stoppable(_stops_at_its_next_await(done))
    assert stopped.value.signal == "SIGTERM" and stopped.value.status == 143
    assert done == ["ran on to its next await", "cleaned up"]
    assert time.monotonic() - started < interrupt.STOP_GRACE_SECONDS


async def _swallows_a_cancellation() -> None:
    signal.raise_signal(signal.SIGINT)
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        pass  # as Python 3.11's wait_for does when its inner future completes at the same moment
    await asyncio.sleep(60)


def test_a_coroutine_that_swallows_the_cancellation_is_stopped_after_the_grace_period(monkeypatch):
    monkeypatch.setattr(interrupt, "STOP_GRACE_SECONDS", 0.2)
    started = time.monotonic()
    with pytest.raises(interrupt.Stopped) as stopped:
        interrupt.run_stoppable(_swallows_a_cancellation())
    assert stopped.value.signal == "SIGINT" and stopped.value.status == 130
    assert time.monotonic() - started < 10


async def _signalled_twice(done: list[str]) -> None:
    signal.raise_signal(signal.SIGTERM)
    signal.raise_signal(signal.SIGINT)
    done.append("ran on")


def test_a_second_signal_raises_at_once():
    done: list[str] = []
    with pytest.raises(interrupt.Stopped, match="SIGINT"):
        interrupt.run_stoppable(_signalled_twice(done))
    assert done == []


def test_the_previous_handlers_are_back_afterwards():
    async def returns() -> int:
        return 7

    before = {signum: signal.getsignal(signum) for signum in interrupt.STOP_SIGNALS}
    assert interrupt.run_stoppable(returns()) == 7
    assert {signum: signal.getsignal(signum) for signum in interrupt.STOP_SIGNALS} == before


def test_before_the_worker_runs_a_stop_signal_raises_stopped_with_the_shells_status():
    # what `serve` reports as a clean stop while it reads its settings and item files
    before = {signum: signal.getsignal(signum) for signum in interrupt.STOP_SIGNALS}
    try:
        interrupt.stop_on_signals()
        for signum, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
            with pytest.raises(interrupt.Stopped) as stopped:
                signal.raise_signal(signum)
            assert stopped.value.status == status
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
