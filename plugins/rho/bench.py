"""``setveil bench rho``: the experiments of Jia et al. §4 on the benchmark datasets.

- ``quality`` (Figs. 2-4): for each dataset, ρ and policy, info loss, the share of sensitive
  occurrences deleted, symmetric K-L divergence, the Jaccard similarity of the rules mined
  before and after (lost and spurious rules), seconds, peak memory, and the independent check.
- ``cutoff`` (Fig. 5): the same on the records truncated to their first five items.
- ``speed`` (Table 3): ``dist`` and ``mine`` at ρ = 0.7, several runs, median and fastest
  seconds.
- ``tmax`` (§4.4.1, Fig. 7): the divide-and-conquer threshold against parts, info loss and
  seconds, with one worker process and with ``--workers``.
- ``bmax`` (§4.4.2, Fig. 8; no split, one process): the qid buffer capacity against seconds,
  peak memory and info loss.

``--policy``, when given, is what every chosen experiment runs; without it, quality and cutoff run
``mine``, ``dist`` and ``global`` and the others ``dist`` and ``mine``, as the paper's figures do. An
option of experiments ``--experiment`` leaves out (``--rho`` without quality or cutoff) is refused.
Speed, ``tmax`` and ``bmax`` run on the paper's datasets for them (BMS-WebView-2 and retail,
retail, BMS-WebView-2) when those are chosen, else on every chosen dataset.

Sensitive items: a seeded random share (40% in the paper) of the item types of each full
dataset, drawn as ``setveil items split --method random`` draws them; the cutoff variant keeps
the same sensitive labels. Every run executes in a forked child process, so its peak resident
memory (the child's, or its worker processes', whichever is larger) is its own, as is the memory
of its processes together (sampled); both include the dataset the parent loaded
(:func:`setveil.core.bench.in_child`). Tables are printed as Markdown
with the machine, the load average and the seed, and can be written as JSON.

A run whose process dies, or a worker of its pool (the kernel's OOM killer sends SIGKILL), is a
row naming how, under ``refused``, its measured fields null, and the grid goes on; a last line
counts those runs, and once every table is printed and the JSON written the command exits 1: a
death is no result of the model's, and a script running the grid must learn that it is not whole.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np

from setveil.core.bench import RunDied, in_child, machine, print_table
from setveil.core.clitypes import (MODEL_COUNT, SEED, FloatRange, IntRange, check_bench_files, json_option,
                                   option_given)
from setveil.core.errors import ParameterError, SetveilError
from setveil.core.engine import window_rng
from setveil.core.formats import read_window
from setveil.core.mining import MiningTooLarge
from setveil.core.itemsplit import random_split
from setveil.core.labeltext import unzipped
from setveil.core.metrics import suppressed_share
from setveil.core.model import Context
from setveil.core.output import write_json
from setveil.core.params import listed, refuse_repeats
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.verify import release_violations
from setveil.core.window import Window

from .metrics import association_rules, compare_rules, rules_within_budget, sensitive_loss, symmetric_kl

DATASETS = ("BMS-WebView-2", "retail", "BMS-WebView-1")
EXPERIMENTS = ("quality", "cutoff", "speed", "tmax", "bmax")
#: the policies of the grids (quality, cutoff) and of the other experiments without --policy
GRID_POLICIES, PAIR_POLICIES = "mine,dist,global", "dist,mine"
#: the options some experiments alone use, by their parameter's name: the option and those experiments
#: (--t-max and --workers set every run, and those of tmax and bmax by design run their own values)
SCOPED = {
    "rhos": ("--rho", ("quality", "cutoff")), "runs": ("--runs", ("quality", "cutoff")),
    "rule_support": ("--rule-support", ("quality", "cutoff")),
    "rule_max_size": ("--rule-max-size", ("quality", "cutoff")),
    "speed_runs": ("--speed-runs", ("speed",)), "t_max_values": ("--t-max-values", ("tmax",)),
    "b_max_values": ("--b-max-values", ("bmax",)),
}


@dataclass
class Data:
    name: str
    window: Window
    context: Context
    sensitive: np.ndarray

    def describe(self) -> str:
        share = self.sensitive[self.window.indices].mean() if self.window.n_occurrences else 0.0
        return (f"{self.name}: {len(self.window)} transactions, {self.window.n_occurrences} occurrences, "
                f"{int((self.window.supports > 0).sum())} item types, {int(self.sensitive.sum())} sensitive "
                f"({100 * share:.1f}% of occurrences)")


def dataset_file(folder: Path, name: str) -> Path:
    """The file of dataset ``name`` in ``folder``: NAME.dat, else NAME.dat.gz, as connect ships
    (every reader takes gzip); NAME.dat where neither is, for the refusal to name."""
    plain = folder / f"{name}.dat"
    gzipped = folder / f"{name}.dat.gz"
    return gzipped if not plain.exists() and gzipped.exists() else plain


def _load(folder: Path, name: str, share: float, seed: int, cutoff: int | None) -> Data:
    path = dataset_file(folder, name)
    full = read_window(path, format_option=None)
    sensitive = frozenset(random_split(full, share, seed).private)
    window = full
    if cutoff is not None:
        # the window keeps no order within a transaction: a line's first items are in its text
        text = unzipped(path, path.read_bytes())[0].decode()
        window = Window.from_transactions(line.split()[:cutoff] for line in text.splitlines())
        name = f"{name} (cutoff={cutoff})"
    return Data(name, window, Context(schema=ItemSchema(private=sensitive)), window.vocab.mask(sensitive))


#: what a run measures (:func:`_anonymize`, then :func:`~setveil.core.bench.in_child`), and what
#: comparing its rules adds: null in the row of a run whose process died
MEASURED = ("seconds", "fastest", "verify_seconds", "verified", "parts", "passes", "info_loss", "sensitive_deleted",
            "sym_kl", "peak_mib", "run_mib", "tree_mib")
RULES_MEASURED = ("rules_original", "rules_release", "rules_common", "rules_lost", "rules_spurious", "rules_jaccard")


def _anonymize(data: Data, policy: str, params: dict[str, str], seed: int, runs: int) -> dict[str, Any]:
    configured = get_registry().configure("rho", policy, params, data.context)
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        release = configured.model.anonymize(data.window, configured.policy, window_rng(seed, 0))
        seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    problems = list(release_violations(configured.model, data.window, release.window, configured.context))
    assert data.context.schema is not None  # _load gives every dataset its sensitive items
    return {
        "release": release.window.indices, "release_indptr": release.window.indptr,
        "seconds": statistics.median(seconds), "fastest": min(seconds),
        "verify_seconds": time.perf_counter() - started,
        "verified": not problems, "parts": release.stats["parts"], "passes": release.stats["passes"],
        "info_loss": suppressed_share(data.window, release.window),
        "sensitive_deleted": sensitive_loss(data.window, release.window, data.context.schema.private),
        "sym_kl": symmetric_kl(data.window, release.window),
    }


class Bench:
    def __init__(self, folder, share, seed, qid_size, workers, t_max, support, max_size, runs):
        self.folder, self.share, self.seed = Path(folder), share, seed
        self.base = {"qid_size": str(qid_size), "workers": workers, "t_max": t_max, "rule_metrics": "false"}
        self.support, self.max_size, self.runs = support, max_size, runs
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.made = self.died = 0

    def header(self, title: str, data: list[Data], note: str) -> None:
        click.echo(f"\n### {title}\n")
        for item in data:
            click.echo(f"- {item.describe()}")
        click.echo(f"- {note}; seed {self.seed}; {machine()}; run_mib is what the run added to the resident "
                   "memory of the forked process (--json also keeps peak_mib, the run's peak, or its largest "
                   "worker's, and tree_mib, its processes' together, sampled)\n")

    def run(self, data: Data, policy: str, params: dict[str, str], runs: int) -> dict[str, Any]:
        """A run's row, without the rules' measures."""
        return self.measure(data, policy, params, runs, rules=False)[0]

    def measure(self, data: Data, policy: str, params: dict[str, str], runs: int,
                rules: bool) -> tuple[dict[str, Any], Window | None]:
        """A run's row and its release, none where the run's process died (its row says so)."""
        setting = ", ".join(f"{k}={v}" for k, v in params.items())
        head = {"dataset": data.name, "policy": policy, **{k: v for k, v in params.items() if k != "workers"},
                "runs": runs}
        self.made += 1
        try:
            row = in_child(_anonymize, data, policy, {**self.base, **params}, self.seed, runs)
        except RunDied as exc:
            # no result of the model's, and nothing of the other settings: it stopped the grid, the
            # rows measured before it unprinted and no JSON written (review)
            self.died += 1
            click.echo(f"  {data.name} {policy} {setting}: {exc}", err=True)
            return {**head, **dict.fromkeys(MEASURED + (RULES_MEASURED if rules else ())), "refused": str(exc)}, None
        release = Window(data.window.vocab, row.pop("release_indptr"), row.pop("release"))
        row = {**head, **row}
        click.echo(f"  {data.name} {policy} {setting}: {row['seconds']:.1f} s, info loss {100 * row['info_loss']:.2f}%, "
                   f"verified {row['verified']}", err=True)
        return row, release

    def compare(self, data: Data, rho: float, measured: list[tuple[dict[str, Any], Window | None]]) -> None:
        """Add to each row the rules of its release against R(T), mined once for all of them. The
        budget was checked on the full datasets before any run, and bounds every window here."""
        releases = [(row, release) for row, release in measured if release is not None]
        if not releases:
            return
        before = association_rules(data.window, self.support, rho, self.max_size, budget=None)
        for row, release in releases:
            row.update(compare_rules(before, association_rules(release, self.support, rho, self.max_size, budget=None)))

    def grid(self, name: str, data: list[Data], rhos, policies) -> None:
        size = "any" if self.max_size is None else self.max_size
        self.header(name, data, f"rules at support {100 * self.support:g}% and confidence ρ, up to {size} items")
        rows = []
        for item in data:
            for rho in rhos:
                # every policy's run before R(T) is mined, so that none is forked holding it (a
                # forked run inherits it: BMS-WebView-1's 18-22 million rules were much of its peaks)
                measured = [self.measure(item, policy, {"rho": rho}, self.runs, rules=True) for policy in policies]
                self.compare(item, float(rho), measured)
                rows += [row for row, _ in measured]
        columns = ["dataset", "rho", "policy", "runs", "seconds", "verify_seconds", "verified", "parts", "passes",
                   "run_mib", "info_loss_%", "sensitive_deleted_%", "sym_kl", "rules_original", "rules_release",
                   "rules_lost", "rules_spurious", "rules_jaccard"]
        self.record(name, rows, columns)

    def record(self, name: str, rows: list[dict[str, Any]], columns: list[str]) -> None:
        """Print an experiment's table and keep its rows for ``--json``."""
        print_table(rows, columns + ["refused"] * any("refused" in row for row in rows))
        self.rows[name] = rows


def _size(value: str) -> int | None:
    if value == "all":
        return None
    # "²".isdigit(), and int() refuses it; past 64 bits the rule_max_size parameter refuses it, once
    # the datasets are read (QA: --rule-max-size 2**63 passed here)
    if not (value.isascii() and value.isdigit()) or not 2 <= int(value) < 2**63:
        raise click.BadParameter(f"expected an integer in [2, {2**63 - 1}] or all, got {value!r}")
    return int(value)


def _paper_datasets(full: dict[str, Data], *names: str) -> list[Data]:
    """The datasets the paper ran an experiment on that were chosen, else every chosen one (an
    experiment never silently runs on nothing)."""
    return [full[name] for name in names if name in full] or list(full.values())


def _refuse_unused_options(experiments: list[str]) -> None:
    """Refuse an option given whose every experiment is left out, naming it: it would be ignored in
    silence (a user walkthrough: --experiment speed --rho 0.5 ran at ρ = 0.7)."""
    for name, (option, used_by) in SCOPED.items():
        if option_given(name) and not set(used_by) & set(experiments):
            raise ParameterError(option.lstrip("-"), f"{option} applies to {_either(used_by)} alone, which "
                                 f"--experiment leaves out: drop {option} or add the experiment")


def _either(experiments: tuple[str, ...]) -> str:
    """'quality or cutoff': the experiments an option applies to, in words."""
    return " or ".join([", ".join(experiments[:-1]), experiments[-1]] if len(experiments) > 1 else experiments)


def _policies(given: str | None) -> tuple[list[str], list[str]]:
    """The policies of quality and cutoff, and those of speed, tmax and bmax: ``--policy`` for every
    experiment when given (a user walkthrough: ``--experiment speed --policy mine`` ran ``dist`` too),
    else the policies of the paper's figures."""
    if given is not None:
        chosen = listed("policy", given)
        return chosen, chosen
    return listed("policy", GRID_POLICIES), listed("policy", PAIR_POLICIES)


def _settings(experiments, rhos, policies, pair, workers, t_max_values, b_max_values):
    """The (policy, parameters) of every run the chosen experiments make, beyond the base ones."""
    if "quality" in experiments or "cutoff" in experiments:
        yield from ((policy, {"rho": rho}) for rho in rhos for policy in policies)
    if "speed" in experiments:
        yield from ((policy, {"rho": "0.7"}) for policy in pair)
    if "tmax" in experiments:
        yield from ((policy, {"rho": "0.7", "t_max": value, "workers": count})
                    for value in t_max_values for policy in pair for count in {"1", workers})
    if "bmax" in experiments:
        yield from ((policy, {"rho": "0.7", "b_max": value, "t_max": "off", "workers": "1"})
                    for value in b_max_values for policy in pair)


@click.command("rho", short_help="ρ-uncertainty experiments (Jia et al. §4): info loss, K-L...")
@click.option("--datasets", "folder", type=click.Path(exists=True, file_okay=False), envvar="SETVEIL_DATASETS",
              required=True, help="Folder of the FIMI datasets (NAME.dat or NAME.dat.gz); or set SETVEIL_DATASETS.")
@click.option("--dataset", "names", multiple=True, help=f"Datasets to run (default: {', '.join(DATASETS)}).")
@click.option("--experiment", "experiments", multiple=True, type=click.Choice(EXPERIMENTS),
              help="Experiments to run (default: all).")
@click.option("--rho", "rhos", default="0.3,0.5,0.7,0.9", show_default=True, help="Values of ρ (quality, cutoff).")
@click.option("--policy", "policies",
              help=f"Policies every experiment runs (comma-separated; default: {GRID_POLICIES} in quality and cutoff, "
                   f"{PAIR_POLICIES} in speed, tmax and bmax).")
@click.option("--qid-size", type=MODEL_COUNT, default=4, show_default=True,
              help="qid_size of every run: most items an attacker knows about a person.")
@click.option("--share", type=FloatRange(0, 1), default=0.4, show_default=True,
              help="Share of item types made sensitive.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the sensitive split and of every run.")
@click.option("--runs", type=IntRange(min=1), default=1, show_default=True,
              help="Timed runs per setting of quality and cutoff.")
@click.option("--speed-runs", type=IntRange(min=1), default=3, show_default=True, help="Timed runs in speed.")
@click.option("--workers", default="auto", show_default=True,
              help="Worker processes for the parts (or auto); tmax runs 1 and these, bmax 1.")
@click.option("--t-max", "t_max", default="500", show_default=True,
              help="Divide-and-conquer threshold (or off) of quality, cutoff and speed.")
@click.option("--t-max-values", default="50,100,250,500,1000,off", show_default=True,
              help="Values of t_max the tmax experiment runs.")
@click.option("--b-max-values", default="1000,10000,100000,1000000", show_default=True,
              help="Values of b_max (qid buffer) the bmax experiment runs.")
@click.option("--rule-support", type=FloatRange(0, 1, min_open=True), default=0.0005, show_default=True,
              help="Minimum support of a mined rule (a share of the transactions), for the Jaccard of rules "
                   "(quality, cutoff).")
@click.option("--rule-max-size", default="5", show_default=True, callback=lambda _c, _p, v: _size(v),
              help="Most items per mined rule (at least 2), or all (quality, cutoff).")
@json_option()
def rho_bench(folder, names, experiments, rhos, policies, qid_size, share, seed, runs, speed_runs, workers, t_max,
              t_max_values, b_max_values, rule_support, rule_max_size, json_path):
    """ρ-uncertainty experiments (Jia et al. §4): info loss, K-L divergence, rules, speed, t_max, b_max."""
    names = list(names) or list(DATASETS)
    experiments = list(experiments) or list(EXPERIMENTS)
    _refuse_unused_options(experiments)
    # an empty list would run an experiment as an empty table (QA: --t-max-values , did)
    rhos = listed("rho", rhos)
    policies, pair = _policies(policies)
    t_max_values, b_max_values = listed("t-max-values", t_max_values), listed("b-max-values", b_max_values)
    bench = Bench(folder, share, seed, qid_size, workers, t_max, rule_support, rule_max_size, runs)
    # --t-max and --workers too where every chosen experiment sets its own (a user walkthrough:
    # --experiment bmax --workers 0 --t-max x ran), then every run's settings, before any dataset is read
    get_registry().validate("rho", None, {**bench.base, "rho": "0.7"})
    for policy, params in _settings(experiments, rhos, policies, pair, workers, t_max_values, b_max_values):
        get_registry().validate("rho", policy, {**bench.base, **params})
    # a value given twice would be run twice, two rows of one setting (by value: 0.5 and 0.50 are one ρ)
    if "quality" in experiments or "cutoff" in experiments:
        refuse_repeats("rho", [float(rho) for rho in rhos])
    refuse_repeats("policy", policies)
    refuse_repeats("dataset", names)
    for experiment, flag, values in (("tmax", "t-max-values", t_max_values), ("bmax", "b-max-values", b_max_values)):
        if experiment in experiments:
            refuse_repeats(flag, values)
    check_bench_files(json_path, [dataset_file(bench.folder, name) for name in names])
    started_on = machine()  # the load average as the runs start, not as they end
    full = {name: _load(bench.folder, name, share, seed, None) for name in names}
    if "quality" in experiments or "cutoff" in experiments:
        # the cutoff copies only lose items, so the full datasets bound their rules too
        for name, data in full.items():
            try:
                rules_within_budget(data.window, rule_support, rule_max_size)
            except MiningTooLarge as exc:
                raise ParameterError("rule-support", f"{dataset_file(bench.folder, name)}: {exc}: raise --rule-support "
                                                     "or lower --rule-max-size") from None
    if "quality" in experiments:
        bench.grid("quality", list(full.values()), rhos, policies)
    if "cutoff" in experiments:
        cut = [_load(bench.folder, name, share, seed, 5) for name in names]
        bench.grid("cutoff", cut, rhos, policies)
    if "speed" in experiments:
        chosen = _paper_datasets(full, "BMS-WebView-2", "retail")
        bench.header("speed", chosen, f"ρ = 0.7, t_max = {t_max}, workers = {workers}")
        rows = [bench.run(item, policy, {"rho": "0.7"}, speed_runs)
                for item in chosen for policy in pair]
        bench.record("speed", rows,
                     ["dataset", "policy", "runs", "seconds", "fastest", "parts", "run_mib", "info_loss_%", "verified"])
    if "tmax" in experiments:
        chosen = _paper_datasets(full, "retail")
        bench.header("tmax", chosen, "ρ = 0.7")
        rows = []
        for item in chosen:
            for value in t_max_values:
                for policy in pair:
                    for count in sorted({"1", workers}):
                        row = bench.run(item, policy, {"rho": "0.7", "t_max": value, "workers": count}, 1)
                        rows.append({**row, "workers": count})
        bench.record("tmax", rows,
                     ["dataset", "policy", "t_max", "workers", "parts", "seconds", "run_mib", "tree_mib",
                      "info_loss_%", "verified"])
    if "bmax" in experiments:
        chosen = _paper_datasets(full, "BMS-WebView-2")
        bench.header("bmax", chosen, "ρ = 0.7, no split, one process")
        rows = [bench.run(item, policy, {"rho": "0.7", "b_max": value, "t_max": "off", "workers": "1"}, 1)
                for item in chosen
                for value in b_max_values for policy in pair]
        bench.record("bmax", rows,
                     ["dataset", "policy", "b_max", "seconds", "peak_mib", "run_mib", "passes", "info_loss_%",
                      "verified"])
    if bench.died:
        click.echo(f"\n- runs whose process died (their rows say why): {bench.died} of {bench.made}")
    if json_path:
        write_json(json_path, {"machine": started_on, "seed": seed, "rows": bench.rows})
    if bench.died:
        # after the tables and the JSON, so that a script running the grid still learns it is not whole
        raise SetveilError(f"{bench.died} of the {bench.made} runs died (their rows say why)")
