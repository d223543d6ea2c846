"""Processes the model starts end with the process that started them (core/orphans.py)."""

import contextlib
import multiprocessing
import os
import re
import signal
from concurrent.futures import ProcessPoolExecutor

from setveil.core.orphans import end_with_parent, follow_parent, kill_follower

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
