"""Divide and conquer (Jia et al. §3.3, Algorithm 3 DNCSPLITDATA, eq. 8, Lemma 1).

A table is split in two while its estimated cost

    Cost(T) = |T| · 2^(N/|T|) / |D(T)|        (N item occurrences, D(T) its item domain)

exceeds ``t_max``. "Split T equally" assigns a random half of the records to each part (the
paper writes "half of the items"; halving records keeps each part's item distribution close
to T's, which is the stated purpose). A part of one record is never split. The parts are
suppressed independently, in worker processes when there are several, and concatenated:
by Lemma 1 a qid safe in every part is safe in their union, so the whole is safe.

Parts run in a process pool of ``workers`` processes (see :func:`_context` for how they start).
Each pool process ends with the process that runs the pool, however that one goes (a worker
stopped in the middle of a window exits without waiting for it), and an interruption (Ctrl-C)
kills the pool's processes instead of waiting for the parts they compute.
Every part gets its seed from the caller's generator before any work starts, so the release
does not depend on how many workers ran it. A policy with ``global_suppression`` is never
split: the model gives it no ``t_max``, so it runs on the whole window as one part. Global
suppression is a property of the whole window (an item type kept everywhere or removed
everywhere), and removing in every part the types any part removed took 81% of retail's
occurrences (docs/rho.md).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np

from setveil.core.arrays import concat_ranges, sorted_unique
from setveil.core.errors import WorkerDied
from setveil.core.orphans import end_with_parent, signals_held
from setveil.core.window import Window

from .policies import RhoPolicy
from .suppressor import PartialSuppressor
from .table import Table


def cost(transactions: float, occurrences: float, domain: float) -> float:
    """Cost(T) of eq. 8 (infinite when 2^(N/|T|) overflows a float)."""
    if transactions == 0 or domain == 0:
        return 0.0
    exponent = occurrences / transactions
    if exponent >= 1000:
        return math.inf
    return transactions * 2.0**exponent / domain


def split(window: Window, t_max: float | None, rng: np.random.Generator) -> list[np.ndarray]:
    """DNCSPLITDATA: the record positions of each part, each part ascending, in a fixed order."""
    everything = np.arange(len(window), dtype=np.int64)
    if t_max is None:
        return [everything]
    lengths = window.lengths
    parts: list[np.ndarray] = []
    stack = [everything]
    while stack:
        part = stack.pop()
        occurrences = int(lengths[part].sum())
        domain = len(sorted_unique(window.indices[concat_ranges(window.indptr[part], window.indptr[part + 1])]))
        if len(part) < 2 or cost(len(part), occurrences, domain) <= t_max:
            parts.append(part)
            continue
        shuffled = rng.permutation(part)
        half = len(part) // 2
        # pushed second half first so the first half is split (and numbered) first
        stack.append(np.sort(shuffled[half:]))
        stack.append(np.sort(shuffled[:half]))
    return parts


@dataclass
class PartJob:
    """One part, with everything a worker process needs (picklable)."""

    indptr: np.ndarray
    indices: np.ndarray
    n_items: int
    sensitive: np.ndarray
    policy: RhoPolicy
    rho: float
    qid_size: int
    b_max: int
    seed: int


@dataclass
class PartResult:
    alive: np.ndarray
    suppressed_types: np.ndarray
    stats: dict


def suppress_part(job: PartJob) -> PartResult:
    """PARTIALSUPPRESSOR on one part (runs in a worker process)."""
    table = Table(job.indptr, job.indices, job.n_items, job.sensitive)
    suppressor = PartialSuppressor(table, job.policy, job.rho, job.qid_size, job.b_max, np.random.default_rng(job.seed))
    stats = suppressor.run()
    return PartResult(table.alive, np.array(sorted(set(suppressor.suppressed_types)), dtype=np.int64), stats)


def job_for(window: Window, positions: np.ndarray, sensitive: np.ndarray, policy, rho, qid_size, b_max, seed):
    """The job of one part, its items renumbered densely; returns the job and its item ids."""
    part = window.take(positions)
    items, local = np.unique(part.indices, return_inverse=True)
    job = PartJob(part.indptr, local.astype(np.int64), len(items), sensitive[items], policy, rho, qid_size, b_max, seed)
    return job, items


def run_jobs(jobs: list[PartJob], workers: int) -> list[PartResult]:
    """Suppress the parts, in up to ``workers`` processes when there is more than one part."""
    workers = min(workers, len(jobs))
    if workers <= 1:
        return [suppress_part(job) for job in jobs]
    # Without end_with_parent a pool process, waiting on queues it holds both ends of, outlived a
    # stopped worker and kept its forkserver and resource tracker alive (QA: 2 of 2 SIGTERMs). It
    # keeps the window child's process group, which the child's time limit kills at once.
    context = _context()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=end_with_parent)
    # the pool adds its processes to this dict, and drops its own reference at shutdown; their
    # exit statuses are read once shutdown has joined them
    started = pool._processes
    try:
        try:
            with signals_held():  # the pool's processes start here
                results = pool.map(suppress_part, jobs)
            return list(results)
        except BaseException:
            # nothing waits for the other parts, and leaving the pool would wait for those under way
            # (Python 3.11's pool has no public kill; 3.14's kill_workers() is this)
            for process in list(started.values()):
                process.kill()
            raise
        finally:
            pool.shutdown(cancel_futures=True)
    except BrokenProcessPool:  # named by its class alone, it told an operator nothing
        raise WorkerDied(_death(context.get_start_method(), [p.exitcode for p in started.values()])) from None
    except (ConnectionError, EOFError):
        # the forkserver ended before it started a pool process: from Python 3.14 it imports the main
        # script itself, and the pool's start ended in a ConnectionResetError traceback
        if context.get_start_method() != "forkserver":
            raise
        raise WorkerDied(FORKSERVER_ENDED) from None


FORKSERVER_ENDED = (
    "the forkserver that starts the divide-and-conquer worker processes ended before it started one: it imports "
    "the main script again (from Python 3.14; before, each worker does), and a script that runs the model without "
    "an `if __name__ == \"__main__\":` guard runs it there again and fails (its error is on standard error; "
    "docs/rho.md, workers)")


def _death(method: str, statuses: list[int | None]) -> str:
    """Why a pool process died, from the pool's start method and its processes' exit statuses.

    The kernel's OOM killer ends a process by SIGKILL, a negative status, as do the kills above.
    A process that exits with a status of its own (1) before its part is done failed as it
    started: under forkserver or spawn each pool process imports the caller's script again, and
    one with no ``if __name__ == "__main__":`` guard runs its work there, which fails as it tries
    to start a pool of its own (library walkthrough: this was reported as the OOM killer). Fork
    imports nothing, so there a status of its own is left to the first message."""
    exited = sorted({status for status in statuses if status is not None and status > 0})
    if method != "fork" and exited:
        return (f"a divide-and-conquer worker process exited with status {exited[0]} before doing its part: under "
                f"the {method} start method each worker imports the main script again, and a script that runs the "
                "model without an `if __name__ == \"__main__\":` guard runs it there again and fails (its error is "
                "on standard error; docs/rho.md, workers)")
    return "a divide-and-conquer worker process died abruptly (the kernel's OOM killer, say)"


def _context():
    """``fork`` when this process runs a single thread (fast, and the caller's script is not
    re-imported); ``forkserver`` otherwise, since forking a threaded process (the streaming
    service) can copy a held lock; ``spawn`` where neither exists."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
