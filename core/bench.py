"""``setveil bench run`` and ``setveil bench windows``: speed, memory and loss on your own data.

``run`` times one configuration end to end (read, anonymize, check) over several runs and
measures memory in one more run, in a forked process (:func:`in_child`): its peak resident
memory, worker processes included, what the run added to it, and the memory of its whole
process tree, each page counted once, sampled (:func:`tree_mib`).
``windows`` cuts the data into windows of each given size, as the service does, and reports
throughput, the latency percentiles of the released windows, information loss and the rejected
windows with their own median latency: the trade-off an operator tunes with the window settings.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

import click
import numpy as np

from .cli import (configure, cut_windows, finite_loss, model_options, pin_hierarchy, read_paths,
                  refuse_too_few_transactions, smallest_window)
from .clitypes import SEED, IntRange, check_bench_files, int_list, json_option
from .engine import Pipeline, window_rng
from .errors import ParameterError, SetveilError, WindowRejected, WorkerDied, pickled_whole
from .formats import FORMATS, read_window
from .orphans import follow_parent, how_ended, kill_follower, start_follower
from .output import write_json
from .plugins import get_plugin_manager, model_call
from .window import Window


def machine() -> str:
    """The machine a benchmark ran on, with its load average (1, 5, 15 min) as the run started."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{platform.machine()}, {os.cpu_count()} cores, load average {load}, Python {platform.python_version()}"


class RunDied(SetveilError):
    """A benchmark run's process died, killed by a signal (the kernel's OOM killer sends SIGKILL)
    or gone without a word: not a result of the model's, which a grid records as a row of its
    own before it goes on."""


class RunCrashed(SetveilError):
    """A benchmark run raised an error that is not setveil's own (a bug, in setveil or in a
    plugin; a SystemExit or KeyboardInterrupt of the run's own too): named by its class alone, as
    its message may quote the data. Unlike a model's refusal
    (:class:`~setveil.core.errors.Infeasible`, ``MiningTooLarge``), no result."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(f"the run crashed: it raised {kind}, an error setveil does not raise on purpose (its "
                         "message is left out, as it may quote the data)")


def in_child(function: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """``function(*args)``, a dict, run in a forked child, with the run's memory added to it:

    - ``peak_mib``: the peak resident memory (RSS) of the child, or of a process it started and
      waited for (a ρ pool's workers), whichever is largest. It includes what the child shares
      with the parent that forked it (the data read, the model configured, the interpreter), not
      what the parent had freed (:func:`_start_afresh`). Workers running at once are not added
      up: a forked worker's RSS counts the pages it shares with the child, which a sum would
      count again.
    - ``run_mib``: that peak less the child's RSS as the run starts (Linux), what the run added.
    - ``tree_mib``: the memory of the child and every process it started, together, each page
      counted once (:func:`tree_mib`), the figure to size a container for the run with: its
      largest value in samples taken while the child runs (:func:`_tree_peak`), so a peak
      shorter than their interval may be missed; none where Linux's smaps_rollup is missing or
      may not be read.

    What allocates outside Python's allocator (scipy's and pyfim's C code, HiGHS) is counted, as
    tracemalloc does not count it, nor anything in another process. The child keeps a single
    thread (:func:`follow_parent` without its watchdog thread), so that a pool it starts forks
    from it as in the command line, and its workers, once joined, count in its
    ``RUSAGE_CHILDREN``; through a forkserver they would count in the server's, which lives on.

    An error of setveil's own in the child is raised here as it was raised there, its class,
    message, exit status and attributes kept (:func:`_carried`; its message and exit status alone
    where this process cannot unpickle it, :func:`_received`), so that a benchmark catches a
    model's refusal as it would in its own process; any other error is a :class:`RunCrashed`
    naming its class, and so are a SystemExit and a KeyboardInterrupt that ``function`` raises,
    with nothing printed (the user's Ctrl-C reaches this process alone, the child having a
    process group of its own: the run is killed, and the KeyboardInterrupt raised here). A child
    that dies is a :class:`RunDied` naming how, and so is a worker of its pool that dies where
    ``function`` calls the model itself (bench rho): a :class:`~setveil.core.errors.WorkerDied`
    that reaches it. Through a pipeline (bench run) the death fails its window closed, as in the
    service, and is the window's error."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    go = context.Event()

    def target() -> None:
        follow_parent(thread=False)  # a benchmark stopped by SIGTERM must not leave a run (and its pool) computing
        _start_afresh()
        send.send(("started",))
        go.wait()
        try:
            start = resident_mib()
            result = function(*args)
            own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            result["peak_mib"] = max(own, workers) / 1024  # KiB on Linux
            result["run_mib"] = None if start is None else result["peak_mib"] - start
        except WorkerDied:
            # the kernel's OOM killer kills the largest process, a split run's worker as often as the
            # run's own: a death too, where it was the run's error, which stopped bench rho's grid
            send.send(("died", "a worker process of the run died abruptly (the kernel's OOM killer, say)"))
            return
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too, which multiprocessing would print
            send.send(("error", *_carried(exc)))
            return
        send.send(("result", result))

    child = context.Process(target=target)
    start_follower(child)
    assert child.pid is not None, "started"
    try:
        send.close()  # else, the child gone, recv() would wait for this end for ever
        receive.recv()  # "started": a sample before it would count the free heap the run gives back
        tree = _tree_peak(receive, child, go)
        if not receive.poll():
            raise EOFError
        answer = receive.recv()
    except EOFError:
        # its workers with it: one in a long C call runs no handler of its parent-death signal till
        # the call returns
        raise RunDied(f"the run's process died ({how_ended(kill_follower(child))})") from None
    except BaseException:
        # a stop (Ctrl-C) while the run computes: left to it, the run would be joined by
        # multiprocessing's exit handler, and the command end only with the run
        kill_follower(child)
        raise
    finally:
        receive.close()
    child.join()
    if answer[0] == "died":
        raise RunDied(answer[1])
    if answer[0] == "error":
        raise _received(*answer[1:])
    return {**answer[1], "tree_mib": tree}


def _carried(exc: BaseException) -> tuple[bytes | None, str, int]:
    """What the run sends the benchmark's process for its error ``exc``: the error pickled, none
    where it cannot be, and its message and exit status, which :func:`_received` raises where the
    pickle does not come back. The error is setveil's own, its class kept with what of its
    attributes can cross a pipe (a WindowRejected's cause may be of a class pickle cannot name, a
    plugin's local one); any other, or one whose message cannot be made (a plugin's ``__str__``
    that raises), a :class:`RunCrashed`."""
    error = exc if isinstance(exc, SetveilError) else RunCrashed(type(exc).__name__)
    try:
        message = str(error)
    except Exception:  # what the class's own __str__ raises, of any class
        error = RunCrashed(type(exc).__name__)
        message = str(error)
    rebuild, (cls, args, state) = pickled_whole(error)
    kept = rebuild(cls, args, {name: value for name, value in state.items() if _crosses(value)})
    try:
        pickled = pickle.dumps(kept)
    except Exception:  # pickle raises what the class's own reduction raises, of any class
        pickled = None
    return pickled, message, error.exit_code


def _received(pickled: bytes | None, message: str, exit_code: int) -> SetveilError:
    """The run's error as :func:`_carried` sent it, or with its message and exit status alone where
    it was not pickled or this process cannot unpickle it: its class, or an attribute's, of a
    module the run made or imported from where only it could, or one whose reconstruction raises."""
    if pickled is not None:
        with contextlib.suppress(Exception):  # what the class lookup or the object's own reconstruction raises
            return pickle.loads(pickled)
    return _plain(message, exit_code)


def _plain(message: str, exit_code: int) -> SetveilError:
    """A SetveilError of ``message`` and ``exit_code``: a run's error whose class cannot cross."""
    plain = SetveilError(message)
    plain.exit_code = exit_code
    return plain


def _crosses(value: object) -> bool:
    """Whether ``value`` comes back from pickle as it goes, as through in_child's pipe."""
    try:
        pickle.loads(pickle.dumps(value))
    except Exception:  # pickle raises what the object's own reduction raises, of any class
        return False
    return True


#: glibc's malloc_trim, which gives the pages of the heap's free chunks back to the system
_malloc_trim = getattr(ctypes.CDLL(None), "malloc_trim", None) if sys.platform.startswith("linux") else None
#: writing 5 here resets the process's peak resident memory to its resident memory now (Linux 4.0)
CLEAR_REFS = "/proc/self/clear_refs"


def _start_afresh() -> None:
    """Give back the pages a forked run inherited only as free heap, what the benchmark's process
    freed and its malloc kept (a grid's earlier settings, bench rho's rule mining), and start the
    run's peak from there: else the run starts with them resident and reuses them, its peak the
    benchmark's and what it adds next to nothing (bench partition's grid: AA on BMS-WebView-1,
    k=5, m=3, f=6, 114.8 MiB peak of which the run added 5.3, where alone it adds 47). The
    benchmark's own process is left as it was, so that its timed runs run as before."""
    if _malloc_trim is not None:
        _malloc_trim(0)
    with contextlib.suppress(OSError):  # Linux before 4.0, other systems: the peak counts them
        with open(CLEAR_REFS, "w") as handle:
            handle.write("5")


def resident_mib() -> float | None:
    """This process's resident memory now (Linux), which a forked child shares with its parent."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        return None


#: seconds between two samples of a run's process tree (:func:`in_child`'s ``tree_mib``), at least
TREE_SAMPLE_SECONDS = 0.05
#: the share of a core the samples may take: a sample walks the page tables of every process of
#: the tree, 8-13 ms for a ρ run's four processes (BMS-WebView-2, 2 workers: 1.5 GiB together),
#: where every 50 ms took 16% of a core; that run's peak lasts about 0.14 s, which samples this
#: far apart (about 0.25 s) may miss: they gave 1,258-1,470 MiB, every 50 ms 1,490-1,496
TREE_SAMPLE_SHARE = 0.05
#: a process's memory summed over its mappings, with each one's proportional set size (Linux 4.14)
ROLLUP = "/proc/{}/smaps_rollup"


def _tree_peak(receive: Connection, child: BaseProcess, go: EventType) -> float | None:
    """The largest :func:`tree_mib` of ``child`` sampled until the run has answered or ended
    (:func:`_settled`), None where it cannot be sampled: every :data:`TREE_SAMPLE_SECONDS`, or
    less often where a sample took more than :data:`TREE_SAMPLE_SHARE` of that, so that sampling
    does not slow the run it measures. Sampled from the benchmark's process, as a thread in the
    run's would make its pool fork through a forkserver. The run waits for ``go``, set once the
    first sample is taken, so that the memory it starts with counts however quick it is."""
    assert child.pid is not None, "started"
    peak = None
    while True:
        started = time.perf_counter()
        mib = tree_mib(child.pid)
        if mib is not None:
            peak = mib if peak is None else max(peak, mib)
        go.set()
        if _settled(receive, child, max(TREE_SAMPLE_SECONDS, (time.perf_counter() - started) / TREE_SAMPLE_SHARE)):
            return peak


def _settled(receive: Connection, child: BaseProcess, seconds: float) -> bool:
    """Whether the run has answered, or ended, within ``seconds``. Its end is its exit status: the
    workers it started hold its end of the pipe, and of its sentinel, open (review: a run killed
    while a worker computed in C was waited for until the worker's call returned)."""
    return receive.poll(seconds) or not child.is_alive()


def tree_mib(root: int) -> float | None:
    """The memory ``root`` and the processes of its group (the processes a :func:`follow_parent`
    child started) map now, each page counted once (Linux 4.14 on; none elsewhere, or where a
    process of the tree may not be read).

    The proportional set size (Pss) of a process splits each page among the processes that map
    it, so the tree's Pss adds up to each of its pages once, where a sum of resident sizes counts
    a page shared by a forked worker and its parent twice. The pages the tree shares with this
    process (the data read before the fork) get part of their Pss here, which is added back: this
    process's Pss less its private pages, those no other process maps. A forked run thus counts
    what it shares with the benchmark in full, as a run of its own would hold it; its peak
    resident memory (``peak_mib``) does too."""
    if not os.path.exists(ROLLUP.format("self")):
        return None
    try:
        kib = sum(_rollup(pid, "Pss") for pid in _group(root))
        own = _rollup(os.getpid(), "Pss", "Private_Clean", "Private_Dirty")
    except PermissionError:  # a kernel that keeps smaps from a process without ptrace access to it
        return None
    return (kib + own) / 1024


def _group(root: int) -> set[int]:
    """``root`` and the processes of its process group (a process's stat: pid (comm) state ppid pgrp)."""
    members = {root}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:  # gone since the listing
                continue
            if int(stat[stat.rindex(b")") + 2:].split()[2]) == root:
                members.add(int(name))
    return members


def _rollup(pid: int, plus: str, *minus: str) -> int:
    """A process's smaps_rollup field ``plus`` less the fields ``minus``, in KiB; 0 for a process
    gone (a zombie's has no fields)."""
    try:
        with open(ROLLUP.format(pid), "rb") as handle:
            fields = dict(line.split(b":", 1) for line in handle.read().splitlines()[1:])
    except (FileNotFoundError, ProcessLookupError):
        return 0
    kib = {name.decode(): int(value.split()[0]) for name, value in fields.items()}
    return kib.get(plus, 0) - sum(kib.get(name, 0) for name in minus)


def measure(pipeline: Pipeline, window: Window, seed: int) -> dict[str, Any]:
    """One anonymize-and-check of ``window``: the report, and the release's numeric stats."""
    outcome = pipeline.run(window, window_rng(seed, 0))
    row = {k: v for k, v in outcome.report.items() if k != "stats"}
    row.update({f"stat.{k}": v for k, v in outcome.release.stats.items() if isinstance(v, (int, float))})
    return row


def _memory_run(pipeline: Pipeline, window: Window, seed: int) -> dict[str, Any]:
    """The run :func:`in_child` measures: one anonymize-and-check, as a timed run makes."""
    pipeline.run(window, window_rng(seed, 0))
    return {}


def _median(values: list) -> Any:
    """The median of one column of the runs, of the column's type: a flag holds when it held in
    every run, and a count is the lower median, a whole number (QA: with an even --runs the
    summary's "verified" was 1.0 and its counts 27.0, floats where every row held true and 27)."""
    if all(isinstance(v, bool) for v in values):
        return all(values)
    if all(isinstance(v, int) for v in values):
        return statistics.median_low(values)
    return statistics.median(values)


def _percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile of ``values``; none when there are none (0 would read as instant)."""
    return float(np.percentile(values, q)) if values else None


#: what every benchmark's table prints for a figure a row does not have, null or absent in its
#: --json: not measured (a refused or died run's, tree_mib without smaps_rollup), not defined (the
#: latency of no window released) or not applicable (m for Partition, which AA alone takes)
NOT_APPLICABLE = "n/a"
#: columns of words, not figures: blank in a row that has none to say (a run measured, not refused)
WORDS = frozenset({"refused"})


def print_table(rows: list[dict[str, Any]], columns: list[str]) -> None:
    print_markdown(columns, [_cells(row, columns) for row in rows])


def print_markdown(header: list[str], cells: list[list[str]]) -> None:
    """A Markdown table of formatted cells, so that it pastes into the docs as it is."""
    widths = [max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(header)]
    _print_header(header, widths, click.echo)
    for row in cells:
        click.echo(_markdown_line(row, widths))


def table_printer(columns: list[str], echo: Callable[[str], None] = click.echo) -> Callable[[dict[str, Any]], None]:
    """Print the header of a Markdown table of ``columns`` now, and return what prints a row of it,
    for rows measured one at a time (bench stream's take minutes each, and a stopped benchmark keeps
    the rows printed). Each column is as wide as its header: a longer cell widens its own row alone,
    which Markdown reads alike."""
    widths = [len(c) for c in columns]
    _print_header(columns, widths, echo)
    return lambda row: echo(_markdown_line(_cells(row, columns), widths))


def _print_header(header: list[str], widths: list[int], echo: Callable[[str], None]) -> None:
    echo(_markdown_line(header, widths))
    echo("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def _markdown_line(cells: list[str], widths: list[int]) -> str:
    return "| " + " | ".join(v.ljust(w) for v, w in zip(cells, widths)) + " |"


def _cells(row: dict[str, Any], columns: list[str]) -> list[str]:
    return [_cell(_shown(row, c)) for c in columns]


def _shown(row: dict[str, Any], column: str) -> Any:
    """The figure of ``column`` in ``row``: a column of a key and ``_%`` shows the key's share in
    percent (no --json key ends in ``_%``: tests/test_bench_vocabulary.py)."""
    if not column.endswith("_%"):
        return row.get(column, "" if column in WORDS else None)
    share = row.get(column.removesuffix("_%"))
    return None if share is None else 100 * share


def _cell(value) -> str:
    if value is None:
        return NOT_APPLICABLE
    if isinstance(value, float):
        # .4g writes 10,000 and more with an exponent; from 1,000 on it gives whole numbers anyway
        return f"{value:.4g}" if abs(value) < 1e3 else f"{value:.0f}"
    return str(value)


@click.command("run")
@click.argument("input_path", metavar="INPUT", type=click.Path())
@model_options()
@click.option("--runs", type=IntRange(min=1), default=3, show_default=True, help="Timed runs.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for every random choice.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")
@json_option()
def bench_run(input_path, model, policy, params, sensitive, public, hierarchy, fanout, runs, seed, fmt, json_path):
    """Time one model on INPUT: anonymize and check, split as the model reports, and peak memory.

    The timed runs run in this process. One more run before them, in a forked process, gives
    the memory: peak_mib, the peak resident memory (RSS) of that process or of a worker process
    it started (the rho model's parts), whichever is largest, the data read included; and
    run_mib, what the run added to the RSS it started with. Both count what C code allocates
    and what worker processes hold, which Python's tracemalloc would miss. tree_mib is the memory
    of that process and its workers together, each page counted once (their proportional set
    sizes, Linux), at its largest in samples at least 50 ms apart (a peak between two may be
    missed); n/a where Linux's smaps_rollup is missing or may not be read.
    """
    configured = configure(model, policy, params, sensitive, public, hierarchy, fanout)
    check_bench_files(json_path, read_paths(configured, input_path, sensitive, public, hierarchy))
    pipeline = Pipeline(configured, get_plugin_manager())
    started_on = machine()  # the load average as the runs start, not as they end
    started = time.perf_counter()
    window = read_window(input_path, fmt)
    pin_hierarchy(configured, window, input_path)
    read_seconds = time.perf_counter() - started
    # every run would be refused with the model's advice of longer windows, which `bench run`
    # cannot cut: the input is what is short (QA: kanonymity at k=2 over one transaction)
    refuse_too_few_transactions(window, smallest_window(configured, None), configured, input_path)
    # first, so that it starts from the same process whatever the timed runs would leave in this
    # one's heap: after them a forked run of rho on BMS-WebView-2 started at 248 MiB with one
    # worker against 80 with two, whose runs had allocated in their workers
    memory = in_child(_memory_run, pipeline, window, seed)
    rows = []
    for run in range(runs):
        row = {"run": run + 1, "read_seconds": read_seconds, **measure(pipeline, window, seed)}
        rows.append(row)
    summary = {
        "run": f"median of {runs}",
        "read_seconds": read_seconds,
        **{k: _median([r[k] for r in rows]) for k in rows[0] if isinstance(rows[0][k], (int, float)) and k != "run"},
        "peak_mib": memory["peak_mib"],
        "run_mib": memory["run_mib"],
        "tree_mib": memory["tree_mib"],
    }
    click.echo(f"{Path(input_path).name}: {len(window)} transactions, model {model}, policy {configured.policy.name}, "
               f"{', '.join(f'{k}={v}' for k, v in configured.params.items())}, seed {seed}; {started_on}")
    stat_columns = [k for k in rows[0] if k.startswith("stat.") and k.endswith("seconds")]
    columns = ["run", "read_seconds", "anonymize_seconds", *stat_columns, "verify_seconds", "info_loss", "peak_mib",
               "run_mib", "tree_mib"]
    print_table(rows + [summary], columns)
    if json_path:
        write_json(json_path, {"machine": started_on, "seed": seed, "rows": rows, "summary": summary})


@click.command("windows")
@click.argument("input_path", metavar="INPUT", type=click.Path())
@model_options()
@click.option("--sizes", "size_list", default="1000,5000,20000", show_default=True, callback=int_list(1),
              help="Window sizes to compare (comma-separated integers >= 1).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for every random choice.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")
@json_option()
def bench_windows(input_path, model, policy, params, sensitive, public, hierarchy, fanout, size_list, seed, fmt, json_path):
    """Compare window sizes on INPUT: throughput, window latency, information loss, rejections."""
    configured = configure(model, policy, params, sensitive, public, hierarchy, fanout)
    smallest = smallest_window(configured, None)
    if min(size_list) < smallest:
        raise ParameterError("sizes", f"{min(size_list)} is fewer than the {smallest} transactions model "
                             f"{configured.model.name!r} needs of a window; allowed: integers in [{smallest}, inf)")
    check_bench_files(json_path, read_paths(configured, input_path, sensitive, public, hierarchy))
    pipeline = Pipeline(configured, get_plugin_manager())
    started_on = machine()
    data = read_window(input_path, fmt)
    pin_hierarchy(configured, data, input_path)
    rows = []
    for size in size_list:
        # a rejected window may stop early or fail only at the check, so its latency is kept
        # apart: mixed in, it would move the percentiles of the windows that were released
        latencies, rejected_latencies, originals, releases = [], [], [], []
        started = time.perf_counter()
        for index, window in enumerate(cut_windows(data, size, smallest)):
            t0 = time.perf_counter()
            try:
                outcome = pipeline.run(window, window_rng(seed, index))
            except WindowRejected:
                rejected_latencies.append(time.perf_counter() - t0)
                continue
            latencies.append(time.perf_counter() - t0)
            originals.append(window)
            releases.append(outcome.release.window)
        elapsed = time.perf_counter() - started
        # the model's own measure over every released window together, as `anonymize --window`
        # reports it; none when nothing was released (0 would read as the best result)
        info_loss = None if not releases else finite_loss(model_call(
            configured.model, "information_loss", Window.concat(originals, vocab=data.vocab),
            Window.concat(releases, vocab=data.vocab)), configured.model)
        rows.append(
            {
                "window": size,
                "windows": len(latencies) + len(rejected_latencies),
                "rejected": len(rejected_latencies),
                "transactions_per_second": len(data) / elapsed,
                "latency_p50_seconds": _percentile(latencies, 50),
                "latency_p99_seconds": _percentile(latencies, 99),
                "info_loss": info_loss,
                "rejected_latency_p50_seconds": _percentile(rejected_latencies, 50),
            }
        )
    click.echo(f"{Path(input_path).name}: {len(data)} transactions, model {model}, policy {configured.policy.name}, "
               f"{', '.join(f'{k}={v}' for k, v in configured.params.items())}, seed {seed}; {started_on}")
    print_table(rows, list(rows[0]))
    if json_path:
        # the seed too, as bench rho's JSON holds it: the rows are what it drew (user walkthrough: neither
        # the header nor the JSON of bench windows named it)
        write_json(json_path, {"machine": started_on, "seed": seed, "rows": rows})
