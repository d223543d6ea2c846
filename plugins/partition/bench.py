"""``setveil bench partition``: the experiments of He & Naughton §5 (Figs. 3-5, 7) on your data.

For every dataset, fan-out f and k, runs Partition (k-anonymity) and AA (k^m-anonymity, each m)
on a balanced hierarchy of fan-out f over the numerically sorted items (§5.1.2), checks every
release with the model's independent checker, and prints one table row per run: median wall
and CPU seconds of ``anonymize`` over ``--runs`` runs, the checker's seconds, the memory of one
more run, made first, in a forked process (:func:`setveil.core.bench.in_child`, as ``bench run``
measures it: its peak resident memory, what the run added to it, and its process tree's, sampled),
NCP, and whether the release verified. Then the paper's shape per (dataset, f, k): Partition's NCP
against AA's at each m >= 4, and its time against AA's at each m.

A setting the model refuses (Infeasible: k above the data's transactions) or that passes a budget
(MiningTooLarge: AA's itemsets at a large m) is a row naming it and the reason, and the grid goes
on; the means and the shape are counted from the settings measured, and a last line counts the
refused ones. A model that fails closed is a result, as a refused window is to ``bench coherence``;
a run whose process dies (the kernel's OOM killer sends SIGKILL) is not: its row says so too, and
once the tables are printed and the JSON written the command exits 1, as ``bench rho`` does. A
run that raises an error not setveil's own ends the grid as a crash
(:class:`~setveil.core.bench.RunCrashed`, exit 1).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import click

from setveil.core.bench import NOT_APPLICABLE, RunDied, in_child
from setveil.core.clitypes import SEED, IntRange, check_bench_files, int_list, json_option, option_given
from setveil.core.engine import window_rng
from setveil.core.errors import Infeasible, InputError, ParameterError, SetveilError
from setveil.core.formats import read_window
from setveil.core.mining import MiningTooLarge
from setveil.core.model import Context
from setveil.core.output import write_json
from setveil.core.params import refuse_repeats
from setveil.core.plugins import get_registry
from setveil.core.verify import release_violations


@click.command("partition")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-k", "ks", default="2,5,10,25,50,100", show_default=True, callback=int_list(1, 2**63 - 1),
              help="Values of k (integers from 1 to 2**63-1).")
@click.option("--fanout", "fanouts", default="4,5,6", show_default=True, callback=int_list(2),
              help="Fan-outs of the balanced hierarchy (integers >= 2).")
@click.option("-m", "ms", default="2,3,4", show_default=True, callback=int_list(1, 2**63 - 1),
              help="Values of m for AA (integers from 1 to 2**63-1).")
@click.option("--models", type=click.Choice(["both", "partition", "aa"]), default="both", show_default=True,
              help="Run Partition (kanonymity), AA (km-anonymity) or both.")
@click.option("--runs", type=IntRange(min=1), default=1, show_default=True,
              help="Timed runs per setting (median reported).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for every random choice.")
@json_option()
def partition_bench(inputs, ks, fanouts, ms, models, runs, seed, json_path):
    """NCP, time and memory of Partition vs AA over k, f and m (He & Naughton §5)."""
    registry = get_registry()
    settings: list[tuple[str, int | None]] = []
    if models in ("both", "partition"):
        settings.append(("kanonymity", None))
    if models in ("both", "aa"):
        settings.extend(("km-anonymity", m) for m in ms)
    elif option_given("ms"):
        # its values would be ignored in silence (a user walkthrough: -m 2 with --models partition ran
        # no AA, and the means still had a column of n/a for each m)
        raise ParameterError("m", "-m gives AA's values of m, and --models partition runs no AA: "
                                  "drop one of the two")
    for model, m in settings:  # every setting's parameters, before any dataset is read
        for k in ks:
            registry.validate(model, None, _params(k, m))
    names = [Path(path).name.removesuffix(".gz").rsplit(".", 1)[0] for path in inputs]
    # rows are told apart, and grouped for the means and the shape, by this name alone
    refuse_repeats("INPUT", names)
    check_bench_files(json_path, inputs)
    rows: list[dict[str, Any]] = []
    died = 0
    for path, name in zip(inputs, names):
        window = read_window(path, format_option=None)
        for fanout in fanouts:
            try:
                context = Context(fanout=fanout).pinned(window)
            except InputError as exc:  # built over the items of this file, so it is at fault
                raise InputError(path, exc.problem, exc.line) from None
            for k in ks:
                for model, m in settings:
                    configured = registry.configure(model, None, _params(k, m), context)
                    if not rows:  # after the first dataset is read, so that its errors come alone
                        click.echo("| dataset | model | k | m | f | seed | runs | seconds | cpu_seconds | verify_seconds "
                                   "| peak_mib | run_mib | tree_mib | ncp_% | verified |")
                        click.echo("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
                    setting = (f"| {name} | {model} | {k} | {NOT_APPLICABLE if m is None else m} | {fanout} | {seed} "
                               f"| {runs} |")
                    try:
                        row = _measure(configured, window, runs, seed)
                    except RunDied as exc:
                        # as bench rho's: the grid goes on, the command exits 1 at its end
                        died += 1
                        row = _refused(str(exc))
                    if "refused" in row:
                        click.echo(f"{setting}{f' {NOT_APPLICABLE} |' * 7} refused: {row['refused']} |")
                    else:
                        click.echo(
                            f"{setting} {row['seconds']:.3f} | {row['cpu_seconds']:.3f} | {row['verify_seconds']:.3f} | "
                            f"{row['peak_mib']:.1f} | {_mib(row['run_mib'])} | {_mib(row['tree_mib'])} | "
                            f"{100 * row['ncp']:.2f} | {'yes' if row['verified'] else 'NO'} |"
                        )
                    # m an integer in the JSON as k and f are, null for Partition (QA: it was text, "" for Partition)
                    row.update(dataset=name, model=model, policy=configured.policy.name, k=k, m=m, f=fanout,
                               seed=seed, runs=runs)
                    rows.append(row)
    measured = [row for row in rows if "refused" not in row]
    if len(fanouts) > 1:
        click.echo("")
        for line in _averages(measured, [_column(model, m) for model, m in settings]):
            click.echo(line)
    if models == "both":
        click.echo("")
        for line in _shape(measured):
            click.echo(line)
    refused = len(rows) - len(measured)
    if refused:
        if models != "both":
            click.echo("")
        click.echo(f"- settings refused (their rows say why): {refused} of {len(rows)}")
    if json_path is not None:
        write_json(json_path, rows)
    if died:
        # after the tables and the JSON, so that a script running the grid still learns it is not whole
        raise SetveilError(f"{died} of the {len(rows)} settings' runs died (their rows say why)")


def _params(k: int, m: int | None) -> dict[str, str]:
    return {"k": str(k)} | ({} if m is None else {"m": str(m)})


#: what a run measures: null in the row of a refused setting
MEASURED = ("seconds", "cpu_seconds", "verify_seconds", "peak_mib", "run_mib", "tree_mib", "ncp", "stats")


def _refused(reason: str) -> dict[str, Any]:
    return {**dict.fromkeys(MEASURED), "verified": False, "refused": reason}


def _mib(value: float | None) -> str:
    """A memory cell; n/a where it was not measured (run_mib where a process cannot read its
    resident memory, tree_mib without Linux's smaps_rollup)."""
    return NOT_APPLICABLE if value is None else f"{value:.1f}"


def _measure(configured, window, runs: int, seed: int) -> dict[str, Any]:
    model, policy = configured.model, configured.policy
    # first, as bench run does, so that the fork does not inherit the heap the timed runs leave
    try:
        memory = in_child(_memory_run, model, policy, window, seed)
    except (Infeasible, MiningTooLarge) as exc:
        # a setting that fails closed (k above the data, AA past its budget) tells nothing of the
        # other settings (review: it stopped the grid, the rows after it never run, no JSON written)
        return _refused(str(exc))
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        release = model.anonymize(window, policy, window_rng(seed, 0))
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    started = time.perf_counter()
    verified = not any(True for _ in release_violations(model, window, release.window, configured.context))
    return {
        "seconds": statistics.median(walls),
        "cpu_seconds": statistics.median(cpus),
        "verify_seconds": time.perf_counter() - started,
        "peak_mib": memory["peak_mib"],
        "run_mib": memory["run_mib"],
        "tree_mib": memory["tree_mib"],
        "ncp": model.information_loss(window, release.window),
        "verified": verified,
        "stats": {key: value for key, value in release.stats.items() if isinstance(value, (int, float))},
    }


def _memory_run(model, policy, window, seed: int) -> dict[str, Any]:
    """The run :func:`in_child` measures, a timed run's."""
    model.anonymize(window, policy, window_rng(seed, 0))
    return {}


def _column(model: str, m: int | None) -> str:
    """The column of the means a model's runs at ``m`` are averaged in."""
    return "partition" if model == "kanonymity" else f"aa m={m}"


def _averages(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """Means over the fan-outs, as He & Naughton report (§5.1.2: "the average of the three runs"), in
    ``columns``: those of the models run (a model not run would be a column of n/a)."""
    groups: dict[tuple[str, int], dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        column = _column(row["model"], row["m"])
        groups.setdefault((row["dataset"], row["k"]), {}).setdefault(column, []).append(row)
    lines = [
        "Means over the fan-outs (NCP % / CPU seconds):",
        "",
        "| dataset | k | " + " | ".join(columns) + " |",
        "|---|--:|" + "--:|" * len(columns),
    ]
    for (dataset, k), by_model in groups.items():
        cells = []
        for column in columns:
            runs = by_model.get(column, [])
            if runs:
                ncp = statistics.mean(100 * r["ncp"] for r in runs)
                cells.append(f"{ncp:.2f} / {statistics.mean(r['cpu_seconds'] for r in runs):.2f}")
            else:
                cells.append(NOT_APPLICABLE)
        lines.append(f"| {dataset} | {k} | " + " | ".join(cells) + " |")
    return lines


def _shape(rows: list[dict[str, Any]]) -> list[str]:
    """The paper's claims per (dataset, f, k): Partition's NCP <= AA's at m >= 4, and faster at every m."""
    lines = ["Shape of He & Naughton Figs. 3-5 (per dataset, f, k; times are CPU seconds):"]
    partition = {(r["dataset"], r["f"], r["k"]): r for r in rows if r["model"] == "kanonymity"}
    aa = [r for r in rows if r["model"] == "km-anonymity"]
    ncp_checks = [r for r in aa if r["m"] >= 4 and (r["dataset"], r["f"], r["k"]) in partition]
    better = [r for r in ncp_checks if partition[(r["dataset"], r["f"], r["k"])]["ncp"] <= r["ncp"]]
    timed = [r for r in aa if (r["dataset"], r["f"], r["k"]) in partition]
    faster = [r for r in timed if partition[(r["dataset"], r["f"], r["k"])]["cpu_seconds"] < r["cpu_seconds"]]
    lines.append(f"- Partition NCP <= AA NCP at m >= 4: {len(better)} of {len(ncp_checks)} settings")
    lines += [f"  - not at {r['dataset']} f={r['f']} k={r['k']} m={r['m']}" for r in ncp_checks if r not in better]
    lines.append(f"- Partition faster than AA: {len(faster)} of {len(timed)} settings")
    lines += [f"  - not at {r['dataset']} f={r['f']} k={r['k']} m={r['m']}" for r in timed if r not in faster]
    means: dict[tuple[str, int, int | None], list[dict[str, Any]]] = {}
    for row in rows:
        means.setdefault((row["dataset"], row["k"], row["m"]), []).append(row)

    def mean(key: tuple[str, int, int | None], field: str) -> float:
        return statistics.mean(r[field] for r in means[key])

    pairs = [(d, k, m) for (d, k, m) in means if m is not None and (d, k, None) in means]
    better_mean = [(d, k, m) for d, k, m in pairs
                   if m is not None and m >= 4 and mean((d, k, None), "ncp") <= mean((d, k, m), "ncp")]
    wide = [(d, k, m) for d, k, m in pairs if m is not None and m >= 4]
    faster_mean = [(d, k, m) for d, k, m in pairs
                   if mean((d, k, None), "cpu_seconds") < mean((d, k, m), "cpu_seconds")]
    lines.append(f"- means over the fan-outs: Partition NCP <= AA NCP at m >= 4 in {len(better_mean)} of {len(wide)}, "
                 f"faster in {len(faster_mean)} of {len(pairs)} (dataset, k, m)")
    unverified = [r for r in rows if not r["verified"]]
    lines.append(f"- releases verified by the independent checker: {len(rows) - len(unverified)} of {len(rows)}")
    return lines
