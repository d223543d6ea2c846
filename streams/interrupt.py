"""Signals in the commands that run an asyncio loop (demo, replay, tail, and serve until Faust runs),
and SIGTERM in the commands that run to an end (demo, bench stream).

``asyncio.run`` turns SIGINT into a cancellation of its main task, and a library awaited inside
it may swallow that cancellation: the demo then ran on to its end and exited 0 (seen once in a
full test run, when Ctrl-C came just as the first batch was read). Here SIGINT raises
KeyboardInterrupt where the main thread is, as it does outside a loop, and ``asyncio.run`` still
cancels and awaits what is left of the loop's tasks on the way out.

A worker (``setveil serve``) stops on SIGTERM and SIGINT once Faust's worker handles them; before,
while it reads its settings and item files and creates its topics, :func:`stop_on_signals` makes
them raise :class:`Stopped`, which ``serve`` reports as a clean stop (nothing has been read). The
demo and the stream benchmark take SIGTERM the same way.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any

#: the signals that stop a worker
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(KeyboardInterrupt):
    """A stop signal, raised where the main thread is as Ctrl-C raises KeyboardInterrupt: in
    ``serve`` before the worker started, and by SIGTERM in the commands that run to an end (demo,
    bench stream), which clean up on the way out and exit with ``status`` (QA: SIGTERM ended a
    benchmark half-way with status 0). A KeyboardInterrupt, which every handler of plugin code
    lets pass: as a SystemExit, a signal while the model was being configured was reported as an
    error of the model's plugin (exit 2)."""

    def __init__(self, signum: int):
        self.signal = signal.Signals(signum).name
        self.status = 128 + signum  # the shell's status of a process the signal ended
        super().__init__(self.signal)


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coroutine)``, with Ctrl-C raising KeyboardInterrupt at once."""
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        return asyncio.run(coroutine)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def stop_on_signals(signums: tuple[int, ...] = STOP_SIGNALS) -> None:
    """``signums`` raise :class:`Stopped` from now on (in ``serve``, until Faust's worker takes them)."""
    for signum in signums:
        signal.signal(signum, _stop)


def _stop(signum, frame) -> None:
    raise Stopped(signum)


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
