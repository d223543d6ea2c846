"""Processes the model starts end with the process that started them (core/orphans.py)."""

import contextlib
import functools
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from pathlib import Path

import numpy as np
import pytest

from setveil.core import orphans
from setveil.core.bench import RunDied, in_child
from setveil.core.orphans import end_with_parent, follow_parent, how_ended, kill_follower, start_killed_with_parent
from setveil.core.window import Window
from setveil.plugins.audit.deadline import call_within
from setveil.plugins.rho import Mine
from setveil.plugins.rho.dnc import job_for, run_jobs

from ..streams.test_processor import _gone

FORK = multiprocessing.get_context("fork")


def _hold_the_gil(pid_file: str) -> None:
    with open(pid_file, "w") as out:
        out.write(f"{os.getpid()}\n")
    # backtracking that never ends, in one C call that holds the GIL: the watchdog thread cannot run
    re.fullmatch(r"(a+)+$", "a" * 64 + "b")


def _window_child(pid_file: str) -> None:
    follow_parent()
    with ProcessPoolExecutor(max_workers=1, mp_context=FORK, initializer=end_with_parent) as pool:
        pool.submit(_hold_the_gil, pid_file).result()


@contextlib.contextmanager
def _started(target, pid_file: Path) -> Iterator[tuple[BaseProcess, list[int]]]:
    """``target`` started, which starts processes that write their pids to ``pid_file`` at some
    depth: the started process and those pids; all are killed afterwards."""
    started = FORK.Process(target=target, args=(str(pid_file),))
    started.start()
    pids: list[int] = []
    try:
        for _ in range(600):
            if pid_file.exists() and pid_file.read_text().endswith("\n"):
                pids = [int(pid) for pid in pid_file.read_text().split()]
                break
            started.join(0.05)
        assert pids, "the processes to watch did not start"
        yield started, pids
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        started.kill()
        started.join()


def test_a_pool_process_in_a_call_that_holds_the_gil_ends_when_its_window_child_is_killed(tmp_path):
    # Regression (review): pool processes in process groups of their own were out of reach of the
    # child's group kill (the time limit's), and their own watch waited for the C call to return.
    with _started(_window_child, tmp_path / "pool.pid") as (child, [pool_pid]):
        kill_follower(child)
        assert _gone([pool_pid], 5), "the pool process outlived the window child's kill"


def _follower_without_a_watchdog(pid_file: str) -> None:
    orphans._end_with_parent = lambda group: None  # as when its wake-up failed to allocate
    follow_parent()
    helper = subprocess.Popen(["sleep", "600"])  # what a model starts, in the follower's group
    with open(pid_file, "w") as out:
        out.write(f"{os.getpid()} {helper.pid}\n")
    while True:  # Python code, as the spin of a window process short of memory was
        pass


def _follower_without_its_thread(pid_file: str) -> None:
    follow_parent(thread=False)  # a benchmark's measured run (setveil.core.bench.in_child)
    assert threading.active_count() == 1
    helper = subprocess.Popen(["sleep", "600"])
    with open(pid_file, "w") as out:
        out.write(f"{os.getpid()} {helper.pid}\n")
    while True:
        pass


def _follower_starter(pid_file: str, follower=_follower_without_a_watchdog) -> None:
    child = FORK.Process(target=follower, args=(pid_file,))
    child.start()
    child.join()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("follower", [_follower_without_a_watchdog, _follower_without_its_thread])
def test_a_follower_whose_watchdog_cannot_act_ends_with_its_group_when_its_parent_is_killed(tmp_path, follower):
    # A window process short of memory (model.memory_limit) spun on, orphaned, after its worker
    # was killed: its watchdog thread failed to allocate as it woke. Linux's parent-death signal
    # now reaches it too, and its handler ends the group: SIGKILL there would have ended the
    # follower alone and left the helper its model started (CI, once). A follower started without
    # the thread, which keeps one thread, has the signal alone.
    with _started(functools.partial(_follower_starter, follower=follower), tmp_path / "follower.pid") as (
            starter, followers):
        starter.kill()
        starter.join()
        assert _gone(followers, 5), "the follower or its helper outlived the process that started it"


class _Stop(Exception):
    pass


#: the signal the fork hook below sends this process, while a test sets it
_signal_in_fork_hook: int | None = None


def _send_signal_to_self() -> None:
    if _signal_in_fork_hook is not None:
        os.kill(os.getpid(), _signal_in_fork_hook)


# a fork hook stays for the life of the interpreter: this one acts only inside the tests below
os.register_at_fork(after_in_parent=_send_signal_to_self)


@contextlib.contextmanager
def _signal_while_forking(signum: int):
    global _signal_in_fork_hook
    before = {process.pid for process in multiprocessing.active_children()}
    _signal_in_fork_hook = signum
    try:
        yield
    finally:
        _signal_in_fork_hook = None
    left = {process.pid for process in multiprocessing.active_children()} - before
    assert not left, "a process ran on with no one to stop it"


def _raise_stop(signum, frame):
    raise _Stop(signal.Signals(signum).name)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_stop_signal_while_a_program_starts_is_raised_and_the_program_killed(tmp_path):
    # Regression (CI): SIGTERM raised inside a fork hook, where the interpreter prints the
    # exception and drops it; `setveil bench stream` then ran on to its end
    token = str(tmp_path / "started")
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        with _signal_while_forking(signal.SIGTERM), pytest.raises(_Stop, match="SIGTERM"):
            start_killed_with_parent([sys.executable, "-c", "import time; time.sleep(60)", token])
    finally:
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


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_ctrl_c_while_a_solve_process_starts_stops_the_audit():
    # Ctrl-C inside a fork hook was dropped: the timed solve ran on, and the command to its end
    with _signal_while_forking(signal.SIGINT), pytest.raises(KeyboardInterrupt):
        call_within(lambda: time.sleep(60), 120)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_ctrl_c_while_the_divide_and_conquer_pool_starts_stops_the_suppression():
    window = Window.from_transactions([["a", "b", "s"], ["a", "s"], ["b", "c"], ["a", "b", "c", "s"]] * 5)
    sensitive = window.vocab.mask(["s"])
    halves = np.array_split(np.arange(len(window)), 2)
    jobs = [job_for(window, part, sensitive, Mine(), 0.5, 2, 1000, 1)[0] for part in halves]
    with _signal_while_forking(signal.SIGINT), pytest.raises(KeyboardInterrupt):
        run_jobs(jobs, 2)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_hangup_ignored_by_nohup_while_a_solve_process_starts_stays_ignored():
    # only a signal with a Python handler is held: one ignored (nohup) stays ignored, not handed on
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with _signal_while_forking(signal.SIGHUP):
            assert call_within(lambda: 7, 120) == 7
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.mark.parametrize(("code", "said"), [
    (0, "exit status 0"),
    (3, "exit status 3"),
    (None, "exit status unknown: the process was reaped elsewhere, as when SIGCHLD is ignored"),
    (-signal.SIGTERM, "killed by signal 15, SIGTERM"),
    (-signal.SIGKILL, "killed by signal 9, SIGKILL, which the kernel's OOM killer sends"),
    (-200, "killed by signal 200"),
])
def test_how_a_process_ended_is_said_one_way_from_its_exit_code(code, said):
    # the benchmarks, the service's window child, the embedded broker and the audit's solve each
    # said it their own way; an operator reading the OOM killer's SIGKILL should see it named
    assert how_ended(code) == said


def _interrupts_the_benchmark() -> dict:
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(60)
    return {}


def test_ctrl_c_while_a_benchmark_run_computes_ends_the_run():
    # Review: the run's process, left computing, was joined by multiprocessing's exit handler, so
    # that a Ctrl-C of `bench run` under rho on BMS-WebView-2 exited after the memory run's 26 s
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    before = {process.pid for process in multiprocessing.active_children()}
    try:
        with pytest.raises(KeyboardInterrupt):
            in_child(_interrupts_the_benchmark)
        left = [process for process in multiprocessing.active_children() if process.pid not in before]
        assert not left, "the run computed on after the benchmark was stopped"
    finally:
        signal.signal(signal.SIGINT, previous)
        for process in multiprocessing.active_children():
            if process.pid not in before:
                kill_follower(process)


def _compute_without_handling_signals(pid_file: str) -> None:
    with open(pid_file, "w") as out:
        out.write(f"{os.getpid()}\n")
    # one C call that runs no signal handler till it returns (re's matching runs them), about a minute
    sum(range(5 * 10**9))


def _dies_while_its_worker_computes(pid_file: str) -> dict:
    pool = ProcessPoolExecutor(max_workers=1, mp_context=FORK, initializer=end_with_parent)
    pool.submit(_compute_without_handling_signals, pid_file)
    while not (Path(pid_file).exists() and Path(pid_file).read_text().endswith("\n")):
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer ends the run's own process
    return {}


def test_a_benchmark_run_that_dies_ends_its_workers_with_it(tmp_path):
    # Review: a run killed while its pool worker was in a long C call left the worker computing
    # (its parent-death signal's handler waits for the call to return), into the grid's next run
    pid_file = tmp_path / "worker.pid"
    try:
        started = time.monotonic()
        with pytest.raises(RunDied, match="killed by signal 9"):
            in_child(_dies_while_its_worker_computes, str(pid_file))
        assert time.monotonic() - started < 20, "the benchmark waited for the dead run's worker"
        assert _gone([int(pid_file.read_text())], 5), "the run's worker outlived the run"
    finally:
        with contextlib.suppress(ProcessLookupError, FileNotFoundError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


class _GoneParent:
    def is_alive(self) -> bool:
        return False


def _follow_a_parent_gone_before_its_signal_was_set(send) -> None:
    # the parent already gone as the child reads its parent's pid: the parent-death signal, set
    # after, never comes, and a thread-less follower has no watchdog to notice
    multiprocessing.parent_process = _GoneParent
    follow_parent(thread=False)
    send.send("still running")


@pytest.mark.skipif(orphans._prctl is None, reason="Linux's parent-death signal")
def test_a_thread_less_follower_whose_parent_is_gone_as_it_starts_ends_at_once():
    receive, send = FORK.Pipe(duplex=False)
    child = FORK.Process(target=_follow_a_parent_gone_before_its_signal_was_set, args=(send,))
    child.start()
    send.close()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    with pytest.raises(EOFError):  # nothing sent after follow_parent
        receive.recv()
