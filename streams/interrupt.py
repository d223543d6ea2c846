"""Signals in the commands that run an asyncio loop (demo, replay, tail, bench stream, and serve
until Faust runs), and SIGTERM in the commands that run to an end (demo, bench stream) or until
stopped (dev-broker).

Inside a loop (:func:`run_stoppable`), a stop signal only asks the loop to cancel the command's
coroutine. A handler that raised wherever the main thread was, as Ctrl-C does by default, could
land inside asyncio, after a future took its result and before its callbacks were scheduled: the
task waiting on it was never woken, and the demo hung for good after one SIGTERM (QA, 1 run in
12), or printed a task's exception as never retrieved. The cancellation may be swallowed by a
library awaited inside (Python 3.11's ``wait_for`` does when its inner future completes at the
same moment: the demo then ran on to its end and exited 0), so :class:`Stopped` is raised in the
loop :data:`STOP_GRACE_SECONDS` later if the coroutine has not ended by then.

A worker (``setveil serve``) stops on SIGTERM and SIGINT once Faust's worker handles them; before,
while it reads its settings and item files and creates its topics, :func:`stop_on_signals` makes
them raise :class:`Stopped`, which ``serve`` reports as a clean stop (nothing has been read). The
demo, the stream benchmark and dev-broker take SIGTERM the same way outside their loops.
"""

from __future__ import annotations

import signal
from collections.abc import Coroutine
from typing import Any

#: the signals that stop a worker
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

#: how long a coroutine has to end once a stop signal cancelled it
STOP_GRACE_SECONDS = 5.0


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


def stop_on_signals(signums: tuple[int, ...] = STOP_SIGNALS) -> None:
    """``signums`` raise :class:`Stopped` from now on (in ``serve``, until Faust's worker takes them)."""
    for signum in signums:
        signal.signal(signum, _stop)


def _stop(signum, frame) -> None:
    raise Stopped(signum)


def run_stoppable(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coroutine)``, a stop signal cancelling it and raising :class:`Stopped` once it
    has ended, or in the loop :data:`STOP_GRACE_SECONDS` later (a second signal at once). Raised
    inside the loop's tasks, Stopped landed in whichever task ran, and asyncio reported that
    task's exception as never retrieved, with a traceback."""
    import asyncio  # here, not on the module's import: every setveil command loads this module

    signals: list[int] = []
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        task = loop.create_task(coroutine)

        def give_up() -> None:
            if not task.done():
                _stop(signals[0], None)

        def cancel() -> None:
            task.cancel()
            loop.call_later(STOP_GRACE_SECONDS, give_up)

        def on_signal(signum, frame) -> None:
            if signals:
                _stop(signum, frame)
            signals.append(signum)
            loop.call_soon_threadsafe(cancel)

        previous = {signum: signal.signal(signum, on_signal) for signum in STOP_SIGNALS}
        try:
            result = loop.run_until_complete(task)
        except asyncio.CancelledError:
            if not signals:
                raise
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    if signals:  # also when the coroutine swallowed the cancellation and ended
        _stop(signals[0], None)
    return result
