"""Signals in the commands that run an asyncio loop (demo, replay, tail, and serve until Faust runs),
and SIGTERM in the commands that run to an end (demo, bench stream).

``asyncio.run`` turns SIGINT into a cancellation of its main task, and a library awaited inside
it may swallow that cancellation: the demo then ran on to its end and exited 0 (seen once in a
full test run, when Ctrl-C came just as the first batch was read). Here SIGINT raises
KeyboardInterrupt where the main thread is, as it does outside a loop, and ``asyncio.run`` still
cancels and awaits what is left of the loop's tasks on the way out.

A worker (``setveil serve``) stops on SIGTERM and SIGINT once Faust's worker handles them; before,
while it reads its settings and item files and creates its topics, :func:`stop_on_signals` makes
them raise :class:`Stopped`, which ``serve`` reports as a clean stop (nothing has been read).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any

#: the signals that stop a worker
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(KeyboardInterrupt):
    """A stop signal before the worker started; ``signal`` names it. A KeyboardInterrupt, which
    every handler of plugin code lets pass: as a SystemExit, a signal while the model was being
    configured was reported as an error of the model's plugin (exit 2)."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal = signal_name


class Terminated(KeyboardInterrupt):
    """SIGTERM in a command that runs to an end (demo, bench stream): it stops as on Ctrl-C,
    cleaning up on the way out, and exits 143 rather than 0 (QA: a benchmark stopped half-way
    exited 0 with half a table)."""


def terminate_on_sigterm() -> None:
    """SIGTERM raises :class:`Terminated` where the main thread is, from now on."""
    signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum, frame) -> None:
    raise Terminated


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coroutine)``, with Ctrl-C raising KeyboardInterrupt at once."""
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        return asyncio.run(coroutine)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def stop_on_signals() -> None:
    """SIGTERM and SIGINT raise :class:`Stopped` from now on (until Faust's worker takes them)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop)


def _stop(signum, frame) -> None:
    raise Stopped(signal.Signals(signum).name)


def run_stoppable(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coroutine)``, a stop signal cancelling it and raising :class:`Stopped` once it
    has ended (a second signal at once). Raised inside the loop, Stopped landed in whichever task
    ran, and asyncio reported that task's exception as never retrieved, with a traceback."""
    signals: list[int] = []
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        task = loop.create_task(coroutine)

        def cancel(signum, frame) -> None:
            if signals:
                _stop(signum, frame)
            signals.append(signum)
            task.cancel()
            loop.call_soon_threadsafe(lambda: None)  # wakes a select() waiting without a timeout

        previous = {signum: signal.signal(signum, cancel) for signum in STOP_SIGNALS}
        try:
            result = loop.run_until_complete(task)
        except asyncio.CancelledError:
            if not signals:
                raise
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    if signals:  # also when the coroutine swallowed the cancellation
        _stop(signals[0], None)
    return result
