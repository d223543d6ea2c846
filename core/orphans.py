"""A child process, and every process it starts, ends with its parent.

The ρ model starts processes of its own (a pool for divide and conquer), so a child that only
exits with its parent would leave them computing on, and the kernel's parent-death signal reaches
one process alone. :func:`follow_parent` puts the child and everything it will start in a process
group of their own and kills that group once the parent is gone, however it went (SIGTERM from
an orchestrator, SIGKILL, a crash). A program that is not Python (the embedded broker) gets the
kernel's parent-death signal instead (:func:`start_killed_with_parent`).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

_PR_SET_PDEATHSIG = 1
# loaded here: the forked child, between fork and exec, should take no lock a thread may hold
_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


def follow_parent(thread: bool = True) -> None:
    """Call first thing in a :mod:`multiprocessing` child.

    ``thread=False`` (a benchmark's measured run, :func:`setveil.core.bench.in_child`; a service's
    window process): on Linux the parent-death signal alone watches the parent, so that the child
    keeps a single thread and a process pool it starts forks from it, as in the command line,
    rather than through a forkserver (plugins/rho/dnc.py). Elsewhere the watchdog thread is all
    there is, and starts."""
    os.setpgrp()
    _watch_parent(group=True, thread=thread)


def end_with_parent() -> None:
    """Call first thing in a :mod:`multiprocessing` child that starts no process of its own (a
    pool's process): it ends when its parent does. It stays in its parent's process group, so that
    :func:`kill_follower` of a follower that started it ends it at once, even in a C call that
    holds the GIL, which would delay its own watch until the call returns."""
    _watch_parent(group=False)


#: what Linux sends a follower when the thread that started it ends (PR_SET_PDEATHSIG)
PARENT_GONE = signal.SIGUSR2


def _watch_parent(group: bool, thread: bool = True) -> None:
    """Two watches on the parent, each ending this process (and its group) when it is gone: a
    thread that waits on the parent's sentinel, and Linux's parent-death signal, whose handler
    runs in the main thread. A process out of memory (``model.memory_limit``) spun on, orphaned,
    because its watchdog thread failed to allocate as it woke; the handler needs next to no memory
    to act. The signal is not SIGKILL, which would end this process alone and leave what a model
    started (its helpers, in the group) running. Both wait while a C call holds the GIL."""
    if _prctl is not None and threading.current_thread() is threading.main_thread():
        signal.signal(PARENT_GONE, lambda signum, frame: _end(group))
        # the process that forked this one (a forkserver's children have the server), which the
        # multiprocessing parent need not be; one gone before now is the watchdog's to notice
        forked_by = os.getppid()
        _prctl(_PR_SET_PDEATHSIG, PARENT_GONE)
        if os.getppid() != forked_by:  # gone while the signal was set up
            _end(group)
        if not thread:
            # gone before ``forked_by`` was read: the watchdog's to notice, which is not started
            parent = multiprocessing.parent_process()
            if parent is not None and not parent.is_alive():
                _end(group)
            return
    threading.Thread(target=_end_with_parent, args=(group,), name="setveil-watchdog", daemon=True).start()


def _end_with_parent(group: bool) -> None:
    parent = multiprocessing.parent_process()
    assert parent is not None, "called in a child process only"
    wait([parent.sentinel])
    _end(group)


def _end(group: bool) -> None:
    if group:
        os.killpg(0, signal.SIGKILL)
    else:
        # its group is its parent's, which may hold processes of no concern to it (the shell's)
        os.kill(os.getpid(), signal.SIGKILL)


def start_follower(child: BaseProcess) -> None:
    """``child.start()`` for a child that calls :func:`follow_parent`, a stop signal held meanwhile
    (:func:`signals_held`); when its handler raises, the child is killed first."""
    try:
        with signals_held():
            child.start()
    except BaseException:
        if child.pid is not None:
            kill_follower(child)
        raise


def how_ended(code: int | None) -> str:
    """How a process ended, said one way wherever setveil reports it, from its exit code as
    ``multiprocessing`` and ``subprocess`` give it (a negative code: the signal that killed it).
    SIGKILL is the one the kernel's OOM killer sends, the likeliest reason a run dies unasked.
    None, of a process waited for, is a status someone else took: with SIGCHLD ignored (which a
    supervisor may set, and exec keeps) the kernel reaps every child, and waitpid finds none."""
    if code is None:
        return "exit status unknown: the process was reaped elsewhere, as when SIGCHLD is ignored"
    if code >= 0:
        return f"exit status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"killed by signal {-code}"
    oom = ", which the kernel's OOM killer sends" if -code == signal.SIGKILL else ""
    return f"killed by signal {-code}, {name}{oom}"


def kill_follower(child: BaseProcess) -> int | None:
    """Kill a child that called :func:`follow_parent`, and everything it started; its exit code."""
    assert child.pid is not None, "a follower is killed once started"
    # the group even when the child is gone: processes it started may outlive it
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)
    child.kill()  # a child still starting has no group of its own yet
    child.join()
    return child.exitcode


def start_killed_with_parent(command: Sequence[str], signum: int = signal.SIGKILL, **popen_args) -> subprocess.Popen:
    """``subprocess.Popen(command, **popen_args)``, the program sent ``signum`` by Linux when the
    thread that starts it ends, however it ends. Start it from a thread that lives as long as it
    should: the main thread.

    A stop signal that comes while the program is being started is handled once it has started
    (:func:`signals_held`); when its handler raises, the program is killed first: the caller never
    got it to stop."""
    process = None
    try:
        with signals_held():
            process = subprocess.Popen(command, preexec_fn=_killed_with_parent(signum), **popen_args)
    except BaseException:
        if process is not None:
            process.kill()
            process.wait()
        raise
    return process


def _killed_with_parent(signum: int) -> Callable[[], None] | None:
    if _prctl is None:
        return None
    parent = os.getpid()

    def set_up() -> None:
        _prctl(_PR_SET_PDEATHSIG, signum)
        if os.getppid() != parent:  # the parent went before the signal was set up
            os._exit(1)

    return set_up


#: the signals whose Python handlers may raise (KeyboardInterrupt, the commands' Stopped)
_HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Around a fork or an import in the main thread: a stop signal is recorded, and handled on
    the way out.

    A fork runs the interpreter's fork hooks (logging's lock release among them), and a signal
    handler that raises inside one has its exception printed and dropped: SIGTERM at that moment
    left ``setveil bench stream`` running to its end (CI, 1 run in many), and Ctrl-C would leave
    ``setveil anonymize`` running as it starts a process. An import drops it the same way when it
    is raised in an import lock's callback or an extension module's initialization."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous: dict[int, Callable[[int, FrameType | None], Any]] = {}
    for held in _HELD:
        handler = signal.getsignal(held)
        if callable(handler):
            previous[held] = handler
            signal.signal(held, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(received):
            previous[signum](signum, None)
