"""Ctrl-C in the commands that run an asyncio loop (demo, replay, tail).

``asyncio.run`` turns SIGINT into a cancellation of its main task, and a library awaited inside
it may swallow that cancellation: the demo then ran on to its end and exited 0 (seen once in a
full test run, when Ctrl-C came just as the first batch was read). Here SIGINT raises
KeyboardInterrupt where the main thread is, as it does outside a loop, and ``asyncio.run`` still
cancels and awaits what is left of the loop's tasks on the way out.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coroutine)``, with Ctrl-C raising KeyboardInterrupt at once."""
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        return asyncio.run(coroutine)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
