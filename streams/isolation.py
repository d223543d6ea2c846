"""Windows anonymized in a child process, under ``model.time_limit`` and ``model.memory_limit``
(docs/operations.md, "Delivery guarantees": Time limit, Memory limit).

A window thread cannot be interrupted, so a window that takes hours (hostile records, a model
that explodes on some data) would hold its worker, and every partition the worker owns, for as
long. With a time limit the worker hands each prepared window to one long-lived child process
and waits at most that long for the outcome. Past it, the child's process group is killed (the
ρ model's own worker processes with it), the window fails closed as ``timeout`` and the next
window gets a fresh child. A child that dies by itself (a crash in C, the kernel's OOM killer
where it picks the child alone) fails its window closed as ``error`` the same way. The first
child starts with the worker and each replacement right after the window that lost its
predecessor, so a start (imports, plugins) is never charged to a window's limit nor to the next
window's latency.

A memory limit is the child's own: the kernel refuses it (RLIMIT_DATA) any private memory past
what it maps as it takes a window and the limit, so a window that needs more fails with
MemoryError in the child, closed as ``error``, and the child is replaced. Left to a container's limit, an OOM kill takes the worker too
(Kubernetes sets ``memory.oom.group`` on cgroup v2), and the restarted worker meets the same window.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import pickle
import resource
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from setveil.core.engine import Pipeline, in_window_process, memory_note
from setveil.core.errors import PluginError, SetveilError
from setveil.core.orphans import follow_parent, how_ended, kill_follower, start_follower
from setveil.core.plugins import Configured, get_plugin_manager

from . import causes
from .processor import Outcome, Prepared, WindowProcessor
from .windowing import Cut

#: what the child says once it can take windows, as it takes one (before its outcome), and before
#: the outcome of a window that ran out of memory, after which it stops
READY, TAKEN, RETIRING = "ready", "taken", "retiring"
#: the exit status of a child that ran out of memory beyond the rejection of its window (EX_OSERR)
OUT_OF_MEMORY = 71
MiB = 1 << 20
#: how often a waiting worker checks that the child still lives (which also keeps each wait far
#: below the longest poll() takes, about 24 days)
LIVENESS_SECONDS = 0.2
#: how long a child that failed as it started has to print why and exit by itself
NOT_STARTED_EXIT_SECONDS = 5.0


def check_picklable(configured: Configured) -> None:
    """Refuse, at start-up, a model or policy the child process could not be sent."""
    try:
        pickle.dumps(configured)
    except Exception as exc:
        raise PluginError(
            f"model.time_limit anonymizes windows in a child process, which receives model {configured.model.name!r} "
            f"and policy {configured.policy.name!r} pickled, and they cannot be ({type(exc).__name__}): their classes "
            "must be importable module attributes, and what their instances hold picklable (no locks, open files "
            "or connections)"
        ) from None


class _NotStarted(SetveilError, RuntimeError):
    """A window process that ended before it said it was ready; the message says how. At the
    worker's start, its one line: what the process printed as it failed is above it."""


class _ChildDied(Exception):
    def __init__(self, took_the_window: bool):
        self.took_the_window = took_the_window
        super().__init__("the anonymizing process died")


class IsolatedProcessor:
    """:class:`~.processor.WindowProcessor`'s interface, running each window in a child process."""

    def __init__(self, configured: Configured, seed: int, merge_subjects: bool, source: str, verify: bool,
                 time_limit: float, memory_limit: int = 0):
        self.local = WindowProcessor(Pipeline(configured, get_plugin_manager(), verify=verify), seed,
                                     merge_subjects, source)
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self._args = (configured, seed, merge_subjects, source, verify, memory_limit)
        self._child: BaseProcess | None = None
        self._conn: Connection | None = None
        self._closed = False
        self._retiring = False
        self._ready()  # now, or the first window would wait for the child's start-up

    def process(self, topic: str, partition: int, cut: Cut) -> Outcome:
        prepared = self.local.prepare(topic, partition, cut)
        try:
            for attempt in range(2):
                try:
                    outcome = self._exchange(prepared)
                except _ChildDied as death:
                    code = self._stop()
                    if not death.took_the_window and attempt == 0:
                        continue  # it died before it took this window (killed while idle): a new one takes it
                    self._replace()
                    return self.local.rejected(prepared, self._death(code), causes.ERROR)
                except _NotStarted as exc:
                    # a replacement that cannot start (memory, a model that no longer loads) fails
                    # each window saying how it ended, where 'service error: RuntimeError' said nothing
                    return self.local.rejected(prepared, f"service error: {exc}", causes.ERROR)
                if outcome is not None:
                    if self._retiring:
                        self._replace()
                    return outcome
                break
        except BaseException:
            self._stop()  # never leave a child working on a window nobody waits for
            raise
        self._replace()
        return self.local.rejected(
            prepared, f"time limit: not anonymized and checked within model.time_limit={self.time_limit:g} s",
            causes.TIMEOUT)

    def _death(self, code: int | None) -> str:
        """The reason of a window whose child died, by how it died."""
        limit = limit_named(self.memory_limit)
        if code == OUT_OF_MEMORY:
            return f"service error: MemoryError ({memory_note(limit)}), in its rejection too"
        return f"service error: the anonymizing process died ({how_ended(code)}{f', under {limit}' if limit else ''})"

    def _exchange(self, prepared) -> Outcome | None:
        """The ready child's outcome of ``prepared``, or None once the time limit has passed;
        :class:`_ChildDied` when the child goes first."""
        conn, child = self._ready()
        took = self._retiring = False
        try:
            conn.send(prepared)
            deadline = time.monotonic() + self.time_limit
            while (left := deadline - time.monotonic()) > 0:
                if conn.poll(min(left, LIVENESS_SECONDS)):
                    answer = conn.recv()
                    if isinstance(answer, Outcome):
                        return answer
                    self._retiring = answer == RETIRING
                    took = True
                elif not child.is_alive():
                    # gone, though processes it started may hold its end of the pipe (and of its
                    # sentinel) open, so that no end-of-file ever comes
                    raise EOFError
        except (EOFError, OSError):
            raise _ChildDied(took) from None
        return None

    def failed(self, topic: str, partition: int, cut: Cut, reason: str, cause: str = causes.ERROR,
               closed: float | None = None) -> Outcome:
        return self.local.failed(topic, partition, cut, reason, cause, closed)

    def close(self) -> None:
        self._closed = True
        self._stop()

    def _replace(self) -> None:
        """A new child now, on the failed window's time, so that the next window does not wait for
        its start-up; one that cannot start is tried again, and fails, with the next window."""
        self._stop()
        if not self._closed:
            with contextlib.suppress(RuntimeError):
                self._ready()

    def _ready(self) -> tuple[Connection, BaseProcess]:
        """The pipe to a live child and the child, a new one when none is alive."""
        if self._child is None or not self._child.is_alive():
            self._stop()
            ours, theirs = multiprocessing.Pipe()
            child = multiprocessing.get_context("spawn").Process(
                target=_serve, args=(theirs, *self._args), name="setveil-window", daemon=False)
            # A stop signal while it starts (serve's, before Faust takes them) ends it too: left
            # running, it waited for the worker while the worker's exit waited for it (a child
            # that is no daemon is joined), and a signal that cut its pickle short gave its traceback.
            start_follower(child)
            theirs.close()
            self._child, self._conn = child, ours
            try:
                ours.recv()
            except EOFError:
                # its end of the pipe closes as it fails, before it has printed why and exited:
                # killed at once, it was said to be the OOM killer's SIGKILL, its error unprinted
                child.join(NOT_STARTED_EXIT_SECONDS)
                raise _NotStarted(f"the anonymizing process did not start ({how_ended(self._stop())})") from None
            except BaseException:
                self._stop()
                raise
        assert self._conn is not None  # set and cleared with the child
        return self._conn, self._child

    def _stop(self) -> int | None:
        """Kill the child and everything it started; its exit code, if it had one."""
        child, conn = self._child, self._conn
        self._child = self._conn = None
        if child is None:
            return None
        code = kill_follower(child)
        assert conn is not None  # set and cleared with the child
        conn.close()
        return code


def limit_named(memory_limit: int) -> str | None:
    """``model.memory_limit`` as a window's reason names it; None for no limit."""
    return f"model.memory_limit={memory_limit} MiB" if memory_limit else None


def limit_private_memory(extra: int) -> None:
    """Let this process map at most ``extra`` bytes of private writable memory beyond what it maps
    now (Linux counts every such mapping in RLIMIT_DATA: the heap, numpy's arrays, thread stacks).
    Called as each window is taken, so that what earlier windows left mapped (a heap the allocator
    keeps) is not the next one's loss (QA: the same window passed in a fresh child and failed in a
    used one). A process it starts inherits the limit, a fresh interpreter with at least as much
    room; a forked one calls this again as it starts (:func:`_serve`). The soft limit alone: the
    hard one stays, so that it can be raised again."""
    with open("/proc/self/status") as status:
        mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmData:"))
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = mapped + extra if hard == resource.RLIM_INFINITY else min(mapped + extra, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))


def _serve(conn: Connection, configured: Configured, seed: int, merge_subjects: bool, source: str,
           verify: bool, memory_limit: int) -> None:
    # Its own process group, so that a timeout kills the worker processes a model starts too. No
    # watchdog thread: a process of one thread forks its pool (plugins/rho/dnc.py), whose
    # semaphores have no names, where a forkserver's are named in /dev/shm until the process
    # that made them removes them, which a process killed at the limit never does.
    follow_parent(thread=False)
    if memory_limit:
        # a process forked here (the ρ model's pool) maps all this one does, so that under the
        # inherited limit it had what this one had left of it: the limit is its own again
        os.register_at_fork(after_in_child=functools.partial(limit_private_memory, memory_limit * MiB))
    limit = limit_named(memory_limit)
    in_window_process()  # a group of its own, which no Ctrl-C reaches: a stop here is plugin code's
    pipeline = Pipeline(configured, get_plugin_manager(), verify=verify, memory_limit=limit)
    processor = WindowProcessor(pipeline, seed, merge_subjects, source)
    conn.send(READY)
    try:
        while True:
            try:
                prepared = conn.recv()
            except EOFError:
                return
            conn.send(TAKEN)
            if memory_limit:
                limit_private_memory(memory_limit * MiB)
            outcome = _outcome(processor, prepared, memory_note(limit))
            if pipeline.ran_out_of_memory:
                # what a failed allocation leaves (a fragmented heap, a half-built cache) is not
                # worth the next window's risk: a fresh child takes it
                conn.send(RETIRING)
                conn.send(outcome)
                return
            conn.send(outcome)
    except MemoryError:
        # not even the window's rejection could be built: the worker says why, by this status
        # (exiting at once: a traceback, or the finalizers, would need memory too)
        os._exit(OUT_OF_MEMORY)


def _outcome(processor: WindowProcessor, prepared: Prepared, note: str) -> Outcome:
    try:
        return processor.run(prepared)
    except MemoryError:  # encoding the batch, say
        processor.pipeline.ran_out_of_memory = True
        return processor.rejected(prepared, f"service error: MemoryError ({note})", causes.ERROR)
    except BaseException as exc:  # a bug outside the pipeline still must not emit the window
        # a sys.exit() of plugin code outside it too (a model's loss_metric): ending the child, it
        # had multiprocessing print its message, which may quote the data, and its death was
        # taken for the OOM killer's; no stop signal reaches this process (in_window_process)
        return processor.rejected(prepared, f"service error: {type(exc).__name__}", causes.ERROR)
