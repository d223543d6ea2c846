"""A child process, and every process it starts, ends with its parent.

The ρ model starts processes of its own (a pool for divide and conquer), so a child that only
exits with its parent would leave them computing on, and the kernel's parent-death signal reaches
one process alone. :func:`follow_parent` puts the child and everything it will start in a process
group of their own and kills that group once the parent is gone, however it went (SIGTERM from
an orchestrator, SIGKILL, a crash). A program that is not Python (the embedded broker) gets the
kernel's parent-death signal instead (:func:`killed_with_parent`).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import wait

_PR_SET_PDEATHSIG = 1
# loaded here: the forked child, between fork and exec, should take no lock a thread may hold
_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


def follow_parent() -> None:
    """Call first thing in a :mod:`multiprocessing` child."""
    os.setpgrp()
    threading.Thread(target=_end_with_parent, name="setveil-watchdog", daemon=True).start()


def end_with_parent() -> None:
    """Call first thing in a :mod:`multiprocessing` child that starts no process of its own (a
    pool's process): it ends when its parent does. It stays in its parent's process group, so that
    :func:`kill_follower` of a follower that started it ends it at once, even in a C call that
    holds the GIL, which would delay its own watch until the call returns."""
    threading.Thread(target=_end_with_parent, args=(False,), name="setveil-watchdog", daemon=True).start()


def _end_with_parent(group: bool = True) -> None:
    # It waits for the interpreter: a C call that holds the GIL delays it until the call returns.
    wait([multiprocessing.parent_process().sentinel])
    if group:
        os.killpg(0, signal.SIGKILL)
    else:
        # its group is its parent's, which may hold processes of no concern to it (the shell's)
        os.kill(os.getpid(), signal.SIGKILL)


def kill_follower(child: multiprocessing.Process) -> int | None:
    """Kill a child that called :func:`follow_parent`, and everything it started; its exit code."""
    # the group even when the child is gone: processes it started may outlive it
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)
    child.kill()  # a child still starting has no group of its own yet
    child.join()
    return child.exitcode


def killed_with_parent(signum: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` for :class:`subprocess.Popen` that has Linux send the program ``signum``
    when the thread that starts it ends, however it ends (None elsewhere). Start the program from
    a thread that lives as long as it should: the main thread."""
    if _prctl is None:
        return None
    parent = os.getpid()

    def set_up() -> None:
        _prctl(_PR_SET_PDEATHSIG, signum)
        if os.getppid() != parent:  # the parent went before the signal was set up
            os._exit(1)

    return set_up
