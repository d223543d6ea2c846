"""``setveil bench stream``: throughput, window latency and information loss of the service.

For each window size (and number of workers) the benchmark opens fresh topics on the broker
(:mod:`.broker`), starts the workers as processes and waits until they own every partition,
replays the dataset as fast as it can (``--batch`` records per message), and reads the batches
back. It reports

- sustained throughput: the rate at which the workers drain a backlog, over the windows cut
  by size. The last window of a partition is usually a partial one, cut only once it has waited
  ``window.max_seconds`` (:data:`MAX_SECONDS`), and that idle wait would weigh on the rate by
  whether ``--count`` happens to fill it. So the clock runs from the first window opened to the
  last batch of a window that is not its partition's last, and counts the transactions emitted
  by then; those emitted later are the ``tail`` column;
- window latency p50/p99: from the worker's taking a window up (its batch's ``window.closed``:
  the cut, or later when the window waited for the worker's one anonymization thread) to its
  batch's Kafka timestamp, which the producer takes as the worker sends the batch (anonymizing,
  checking, encoding, writing the window log; not the batch's own acknowledgement); the time
  a window waits to fill is ``window size / arrival rate`` on top and is the operator's choice;
- information loss over the whole release (the model's measure: the windows' measures weighted by
  their item occurrences, :attr:`.tail.Collected.information_loss`);
- the workers' peak resident memory, and the CPU time they used while draining (more than the
  seconds column means more than one core was busy).

The model is any installed one (``--model``, ``-P``; coherence h=0.4, k=5, p=3 by default).
For a model that classifies items, without ``--sensitive`` the items are split as in Xu et al.
§4.1 (``setveil items split --method coherence``): a share ``--public-share`` of the items public,
private items chosen from the rest, seeded.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from setveil.core.bench import table_printer
from setveil.core.clitypes import option_given
from setveil.core.errors import ParameterError, SetveilError, counted, shown_path
from setveil.core.itemsplit import Split, coherence_split
from setveil.core.model import Context
from setveil.core.params import parse_assignments
from setveil.core.plugins import get_registry, smallest_window_of
from setveil.core.schema import write_label_file
from setveil.core.window import Window

from . import interrupt
from .broker import Broker, free_port
from .process import WorkerFailed, WorkerProcess, logs_folder, metric_total
from .replay import replay_packed
from .settings import Settings, load_settings
from .tail import WindowSummary, collect

#: window.max_seconds of the workers: how long each partition's partial last window waits
MAX_SECONDS = 1.0
#: the table's columns, --json keys of a run: all but ``measured``, which ``tail`` completes
TABLE_COLUMNS = ["window", "workers", "run", "transactions", "seconds", "transactions_per_second", "tail",
                 "latency_p50_seconds", "latency_p99_seconds", "info_loss", "rejected", "peak_rss_mib", "cpu_seconds"]


@dataclass
class Run:
    window: int
    workers: int
    run: int
    transactions: int
    #: the throughput clock and the transactions emitted within it (see the module's docstring)
    seconds: float
    measured: int
    #: None when no window was released (every one rejected): no latency was measured, and a
    #: loss of 0 would read as the best result
    latency_p50_seconds: float | None
    latency_p99_seconds: float | None
    info_loss: float | None
    rejected: int
    peak_rss_mib: float
    cpu_seconds: float

    @property
    def transactions_per_second(self) -> float | None:
        """None when no partition had more than one window: nothing was cut by size."""
        return self.measured / self.seconds if self.seconds else None

    @property
    def tail(self) -> int:
        return self.transactions - self.measured

    def json_row(self) -> dict:
        """The run as a row of ``--json`` (docs/operations.md, "Benchmark", names every field)."""
        return {**asdict(self), "transactions_per_second": self.transactions_per_second, "tail": self.tail}


@dataclass
class BenchConfig:
    dataset: Path
    original: Window
    model_args: list[str]
    described: str
    h: float
    min_transactions: int
    public_share: float
    seed: int
    item_files: tuple[str | None, str | None]
    classify_items: bool
    batch: int
    #: :func:`.replay.pack_unkeyed`'s messages of ``original``: packed once for every run
    packed: list[tuple[int, bytes]]
    partitions: int
    windows: list[int]
    workers: list[int]
    runs: int
    time_limit: float = 0.0
    memory_limit: int = 0
    #: the item split the workers get, without item files, for a model that classifies items
    split: Split | None = field(init=False, default=None, repr=False)

    def __post_init__(self):
        # Checked before a broker starts: a worker would refuse such a window at start-up.
        need = smallest_window(self.model_args)
        if min(self.windows) < need:
            raise ParameterError("window", f"{min(self.windows)} is fewer than the {need} transactions model "
                                 f"{self.model_args[1]!r} needs of a window ({self.described or 'its defaults'})")
        if self.classify_items and self.item_files[0] is None:
            # a worker refuses an empty sensitive list (it protects nothing), which ended the run
            # after its header naming the worker's log, as `items split` refuses to write one
            self.split = coherence_split(self.original, self.public_share, self.seed, self.h)
            if not self.split.private:
                raise ParameterError("public-share", f"the split of {shown_path(self.dataset)} makes no item "
                                     "sensitive, and every worker would refuse its list: change --public-share "
                                     "(or --h), or give --sensitive")


def refuse_held_partitions(config: BenchConfig) -> None:
    """Refuse, before a broker starts, a dataset that deals a partition fewer transactions than a
    window needs: its worker holds them for more input, which never comes, so the run waited out
    its idle limit and reported none of them (a fuzz pass: 1 transaction at k=2). A partition's
    last window may still be short and held: the table's transactions leave it out."""
    dealt = [sum(size for size, _ in config.packed[partition::config.partitions])
             for partition in range(config.partitions)]
    # a partition dealt none holds none
    short = min((partition for partition in range(config.partitions) if dealt[partition]), key=dealt.__getitem__)
    if dealt[short] < config.min_transactions:
        total = len(config.original)
        raise ParameterError("partitions", f"{shown_path(config.dataset)}: {counted(total, 'transaction')} "
                             f"{'leaves' if total == 1 else 'leave'} {counted(dealt[short], 'transaction')} on "
                             f"partition {short} (--batch {config.batch} to each of --partitions {config.partitions} "
                             f"in turn), fewer than the {config.min_transactions} a window needs of model "
                             f"{config.model_args[1]!r}: a worker would hold them for more input, which never comes; "
                             "give fewer --partitions, a smaller --batch or more transactions")


#: what each option of bench stream's own model and item split does, by its parameter's name
ROLES = {"h": "stands in for coherence's -P h and sets the item split's frequency rule",
         "k": "stands in for coherence's -P k", "p": "stands in for coherence's -P p",
         "public_share": "chooses the item split", "seed": "seeds the item split"}


def refuse_unused_options(model: str, params: tuple[str, ...], sensitive: str | None) -> None:
    """Refuse --h, --k, --p, --public-share or --seed given where the run would ignore it in silence
    (a user walkthrough: --k 10 with -P, or with -m rho, and --public-share with --sensitive, were
    taken and not used), naming it and why. --h, --k and --p stand in for coherence's -P, and --h,
    --public-share and --seed make the item split of a model that classifies items, without --sensitive."""
    classifies = get_registry().model_class(model).needs_schema
    unused_as_coherence = _unused_as_coherence(model, params)
    unused_for_split = _unused_for_split(model, classifies, sensitive)
    # --h serves both, so it goes unused only when both do; a model that classifies no items is
    # not coherence either, which its one reason says
    if not (unused_as_coherence and unused_for_split):
        unused_h = None
    elif classifies:
        unused_h = f"{unused_as_coherence} and {unused_for_split}"
    else:
        unused_h = unused_for_split
    unused = {"h": unused_h, "k": unused_as_coherence, "p": unused_as_coherence,
              "public_share": unused_for_split, "seed": unused_for_split}
    for name, reason in unused.items():
        if reason and option_given(name):
            option = "--" + name.replace("_", "-")
            raise ParameterError(option[2:], f"{option} {ROLES[name]}, and {reason}: drop {option}")


def _unused_as_coherence(model: str, params: tuple[str, ...]) -> str | None:
    """Why --h, --k and --p, as coherence's parameters, go unused; None when they are used."""
    if model != "coherence":
        return f"the model is {model!r}"
    return "-P gives the model's parameters" if params else None


def _unused_for_split(model: str, classifies: bool, sensitive: str | None) -> str | None:
    """Why the item split's options go unused; None when the run splits the items."""
    if not classifies:
        return f"model {model!r} classifies no items"
    return "--sensitive gives the items" if sensitive is not None else None


def smallest_window(model_args: list[str]) -> int:
    """The fewest transactions a window needs under the model of the workers' ``model_args``."""
    options = dict(zip(model_args[::2], model_args[1::2]))  # pairs of option and value
    pairs = [value for option, value in zip(model_args[::2], model_args[1::2]) if option == "-P"]
    model_cls, _, params, _ = get_registry().validate(options["--model"], options.get("--policy"),
                                                      parse_assignments(pairs))
    return smallest_window_of(model_cls(params, Context()))


def item_args(config: BenchConfig, directory: Path) -> list[str]:
    """The workers' ``--sensitive``/``--public`` options: the given files, else a split of the
    data, or none for a model that does not classify items."""
    if not config.classify_items:
        return []
    sensitive: str | Path | None
    public: str | Path | None
    sensitive, public = config.item_files
    if sensitive is None:
        split = config.split
        assert split is not None  # made with the config, which has no item files
        sensitive, public = directory / "sensitive.txt", directory / "public.txt"
        write_label_file(sensitive, split.private)
        write_label_file(public, split.public)
    return ["--sensitive", str(sensitive), *(["--public", str(public)] if public else [])]


def run_settings(broker: Broker, config: BenchConfig, window: int, name: str) -> Settings:
    return load_settings(None, {
        "kafka.bootstrap": broker.bootstrap,
        "topics.input": f"{name}.in",
        "topics.output": f"{name}.out",
        "topics.dlq": f"{name}.dlq",
        "topics.windows": f"{name}.windows",
        "topics.partitions": config.partitions,
        "consumer.group_id": name,
        "consumer.session_timeout": 3.0,
        "consumer.heartbeat_interval": 0.5,
        "consumer.rebalance_timeout": 3.0,
        "window.max_transactions": window,
        "window.max_seconds": MAX_SECONDS,
        "window.min_transactions": min(config.min_transactions, window),
        "model.time_limit": config.time_limit,
        "model.memory_limit": config.memory_limit,
        "web.bind": "127.0.0.1",
    }, env=security_env())


def security_env() -> dict[str, str]:
    """Only the broker's security settings come from the environment; the rest is the benchmark's."""
    return {k: v for k, v in os.environ.items() if k.startswith("SETVEIL_KAFKA_")}


def measure(broker: Broker, config: BenchConfig, window: int, workers: int, run: int, directory: Path,
            items: list[str]) -> Run:
    name = f"setveil-bench-{os.getpid()}-{window}-{workers}-{run}-{time.monotonic_ns() % 10**6}"
    settings = run_settings(broker, config, window, name)
    args = [*config.model_args, *items]
    procs = [WorkerProcess(settings.replace(web__port=free_port()), args, directory / f"{name}-{i}.log")
             for i in range(workers)]
    try:
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.wait_ready()
        _wait_for_assignment(procs, config.partitions)
        cpu_before = sum(proc.cpu_seconds() for proc in procs)
        summaries: list[WindowSummary] = []
        collected = interrupt.run_stoppable(_drain(settings, config, summaries, procs))
        cpu = sum(proc.cpu_seconds() for proc in procs) - cpu_before
        peak = max((proc.peak_rss_bytes() or 0) for proc in procs)
        rejected = sum(metric_total(proc.metrics(), "setveil_windows_rejected_total") for proc in procs)
    finally:
        for proc in procs:
            proc.stop()
    seconds, measured = throughput_clock(summaries)
    p50 = p99 = loss = None
    if summaries:
        p50, p99 = (float(p) for p in np.percentile([s.emitted - s.closed for s in summaries], [50, 99]))
        loss = collected.information_loss
    return Run(window, workers, run, collected.transactions, seconds, measured, p50, p99, loss, int(rejected),
               peak / (1 << 20), cpu)


def throughput_clock(summaries: list[WindowSummary]) -> tuple[float, int]:
    """Seconds from the first window opened to the last batch of a window that is not its
    partition's last, and the transactions emitted by then; (0, 0) when no partition had two."""
    last: dict[int, WindowSummary] = {}
    for summary in summaries:
        if summary.partition not in last or summary.emitted > last[summary.partition].emitted:
            last[summary.partition] = summary
    inner = [s for s in summaries if s is not last[s.partition]]
    if not inner:
        return 0.0, 0
    end = max(s.emitted for s in inner)
    return end - min(s.opened for s in summaries), sum(s.transactions for s in summaries if s.emitted <= end)


def _wait_for_assignment(procs: list[WorkerProcess], partitions: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        owned = [set(json.loads(proc.get("/readyz")[1])["partitions"]) for proc in procs]
        if all(owned) and set().union(*owned) == set(range(partitions)) and sum(map(len, owned)) == partitions:
            return
        if time.monotonic() > deadline:
            logs = ", ".join(str(proc.log_path) for proc in procs)
            raise SetveilError(f"the workers did not share the partitions within {timeout:g} s (logs: {logs})")
        time.sleep(0.1)


async def _drain(settings: Settings, config: BenchConfig, summaries: list[WindowSummary],
                 procs: list[WorkerProcess]):
    producing = asyncio.create_task(replay_packed(settings, config.packed))
    done = asyncio.Event()
    watching = asyncio.create_task(_watch(procs, len(config.original), summaries, done))
    try:
        collected = await collect(settings, idle=60.0, on_window=lambda summary, _: summaries.append(summary),
                                  stop=done)
        await producing
        if watching.done():
            watching.result()  # raises when a worker exited during the run
    finally:
        producing.cancel()
        watching.cancel()
        await asyncio.wait([producing, watching])  # their clients stop before the loop closes
    return collected


async def _watch(procs: list[WorkerProcess], total: int, summaries: list[WindowSummary], done: asyncio.Event):
    """Done when every transaction was emitted or rejected and every emitted one was read, or
    when a worker exited: then the reading stops at once, and :class:`WorkerFailed` names its log."""
    try:
        while True:
            for proc in procs:
                process = proc.process
                assert process is not None  # measure started every worker
                if process.poll() is not None:
                    raise WorkerFailed(f"a worker exited with status {process.returncode} during the run "
                                       f"(log: {proc.log_path})")
            try:
                metrics = await asyncio.gather(*(asyncio.to_thread(proc.metrics) for proc in procs))
            except OSError:  # a worker that exited just now: the check above names it
                await asyncio.sleep(0.2)
                continue
            emitted = sum(m.get("setveil_transactions_emitted_total", 0) for m in metrics)
            rejected = sum(m.get("setveil_transactions_rejected_total", 0) for m in metrics)
            if emitted + rejected >= total and sum(s.transactions for s in summaries) >= emitted:
                return
            await asyncio.sleep(0.2)
    finally:
        done.set()


def run_bench(broker: Broker, config: BenchConfig, echo) -> list[Run]:
    load = os.getloadavg()
    if not config.classify_items:
        classes = "no item classes"
    elif config.item_files[0]:
        classes = "item files given"
    else:
        classes = f"public share {config.public_share}, seed {config.seed}"
    echo(f"dataset {config.dataset.name}: {len(config.original)} transactions; {config.model_args[1]} {config.described}, "
         f"{classes}; {counted(config.partitions, 'partition')}, "
         f"{config.batch} records per message; window.max_seconds {MAX_SECONDS:g}; "
         f"model.time_limit {config.time_limit:g}; model.memory_limit {config.memory_limit}; broker {broker.kind}; "
         f"{os.cpu_count()} CPUs, "
         f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print_row = table_printer(TABLE_COLUMNS, echo)
    runs = []
    with logs_folder("setveil-bench-") as directory:
        items = item_args(config, directory)
        for window in config.windows:
            for workers in config.workers:
                for run in range(1, config.runs + 1):
                    result = measure(broker, config, window, workers, run, directory, items)
                    runs.append(result)
                    print_row(result.json_row())
    return runs
