"""Processes the model starts end with the process that started them (core/orphans.py)."""

import contextlib
import multiprocessing
import os
import re
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from setveil.core.orphans import end_with_parent, follow_parent, kill_follower, start_killed_with_parent

from ..streams.test_processor import _gone

FORK = multiprocessing.get_context("fork")


def _hold_the_gil(pid_file: str) -> None:
    with open(pid_file, "w") as out:
        out.write(str(os.getpid()))
    # backtracking that never ends, in one C call that holds the GIL: the watchdog thread cannot run
    re.fullmatch(r"(a+)+$", "a" * 64 + "b")


def _window_child(pid_file: str) -> None:
    follow_parent()
    with ProcessPoolExecutor(max_workers=1, mp_context=FORK, initializer=end_with_parent) as pool:
        pool.submit(_hold_the_gil, pid_file).result()


def test_a_pool_process_in_a_call_that_holds_the_gil_ends_when_its_window_child_is_killed(tmp_path):
    # Regression (review): pool processes in process groups of their own were out of reach of the
    # child's group kill (the time limit's), and their own watch waited for the C call to return.
    pid_file = tmp_path / "pool.pid"
    child = FORK.Process(target=_window_child, args=(str(pid_file),))
    child.start()
    pool_pid = None
    try:
        for _ in range(600):
            if pid_file.exists() and pid_file.read_text():
                pool_pid = int(pid_file.read_text())
                break
            child.join(0.05)
        assert pool_pid is not None, "the pool process did not start"
        kill_follower(child)
        assert _gone([pool_pid], 5), "the pool process outlived the window child's kill"
    finally:
        if pool_pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pool_pid, signal.SIGKILL)
        child.kill()
        child.join()


class _Stop(Exception):
    pass


_signal_in_fork_hook = False


def _send_sigterm_to_self() -> None:
    if _signal_in_fork_hook:
        os.kill(os.getpid(), signal.SIGTERM)


# a fork hook stays for the life of the interpreter: this one acts only inside the test below
os.register_at_fork(after_in_parent=_send_sigterm_to_self)


def _raise_stop(signum, frame):
    raise _Stop(signal.Signals(signum).name)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_stop_signal_while_a_program_starts_is_raised_and_the_program_killed(tmp_path):
    # Regression (CI): SIGTERM raised inside a fork hook, where the interpreter prints the
    # exception and drops it; `setveil bench stream` then ran on to its end
    global _signal_in_fork_hook
    token = str(tmp_path / "started")
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        _signal_in_fork_hook = True
        with pytest.raises(_Stop, match="SIGTERM"):
            start_killed_with_parent([sys.executable, "-c", "import time; time.sleep(60)", token])
    finally:
        _signal_in_fork_hook = False
        signal.signal(signal.SIGTERM, previous)
    assert not _running_with(token), "the program ran on with no one to stop it"


def _running_with(argument: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if argument.encode() in cmdline.read_bytes().split(b"\0"):
                found.append(cmdline.parent.name)
        except OSError:
            continue
    return found
