"""The sanitize plugin's commands: ``setveil patterns sample`` (restrictive patterns the way
Oliveira & Zaïane, TR 02-13, §5.1 chose them), ``setveil bench sanitize effectiveness|speed``
(the experiments of §5.1 and §5.2) and ``setveil bench sanitize quest`` (data made as §5.1's was)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import click
import numpy as np

from setveil.core.bench import NOT_APPLICABLE, RunDied, machine, print_markdown
from setveil.core.cli import counted, note
from setveil.core.clitypes import (SEED, SEED_MAX, FloatRange, IntRange, check_bench_files, json_option, option_given,
                                   keep_stdout_for_data)
from setveil.core.errors import InputError, ParameterError, SetveilError, first_lines, shown_path
from setveil.core.formats import FORMATS, read_window
from setveil.core.mining import MiningTooLarge
from setveil.core.output import check_output, write_json, write_text_output
from setveil.core.params import listed, refuse_repeats
from setveil.core.plugins import get_registry

from .bench import EFFECTIVENESS_MEASURED, POLICIES, SPEED_MEASURED, effectiveness, speed
from .metrics import PatternMetrics
from .patterns import RestrictivePatterns
from .quest import QuestSettings, generate
from .sample import (TooFewPatterns, TransactionsTooShort, frequent_supersets, other_spellings, sample_patterns,
                     write_patterns)


@click.group("patterns")
def patterns_group():
    """Restrictive patterns for experiments."""


def sampling_options(min_support: float, max_support: float):
    """Options choosing restrictive patterns at random, shared by ``patterns sample`` and the benchmarks."""

    def decorate(func):
        options = [
            click.option("--min-length", type=IntRange(min=2), default=2, show_default=True,
                         help="Fewest items in a pattern."),
            click.option("--max-length", type=IntRange(min=2), default=5, show_default=True,
                         help="Most items in a pattern."),
            click.option("--min-support", type=FloatRange(0, 1, min_open=True), default=min_support, show_default=True,
                         help="Least support of a pattern (share of transactions)."),
            click.option("--max-support", type=FloatRange(0, 1, min_open=True), default=max_support, show_default=True,
                         help="Greatest support of a pattern (share of transactions)."),
            click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the random picks."),
            click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix)."),
        ]
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def _check_ranges(min_length, max_length, min_support, max_support) -> None:
    if min_length > max_length:
        raise ParameterError("min-length", f"{min_length} is more than --max-length {max_length}")
    if min_support > max_support:
        raise ParameterError("min-support", f"{min_support} is more than --max-support {max_support}")


@patterns_group.command("sample")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("-n", "count", type=IntRange(min=1), default=10, show_default=True, help="How many patterns.")
@sampling_options(0.2, 0.4)
@click.option("--supersets-at", "sigma", type=FloatRange(0, 1, min_open=True),
              help="Also write every pattern of at least this support (share of transactions) that contains "
                   "a picked one, after the picks, shortest first: R_P as §5.1 ran it.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the patterns here ('-' for stdout).")
def sample(input_path, count, min_length, max_length, min_support, max_support, seed, fmt, sigma, output):
    """Pick n frequent patterns of INPUT at random (seeded), lengths spread over the range and
    support within it; write them one per line for `-P restrictive=FILE`."""
    _check_ranges(min_length, max_length, min_support, max_support)
    check_output(output, "--output", (input_path,))
    keep_stdout_for_data(output)
    window = read_window(input_path, fmt)
    patterns = _sample(input_path, window, count, min_length, max_length, min_support, max_support, seed)
    try:
        supersets = [] if sigma is None else frequent_supersets(window, patterns, sigma)
    except MiningTooLarge as exc:
        raise ParameterError("supersets-at", f"{exc}: raise it") from None
    spelt = other_spellings(window, patterns + supersets)
    write_patterns(output, patterns + supersets + spelt)
    extra = "" if sigma is None else f" and their {counted(len(supersets), 'superset')} of support >= {sigma:g}"
    extra += f" and their {counted(len(spelt), 'other spelling')} in the input" if spelt else ""
    click.echo(f"{counted(len(patterns), 'pattern')} of length {min_length}-{max_length}, support "
               f"{min_support:g}-{max_support:g}, seed {seed}{extra}, written to "
               f"{shown_path(output, 'standard output')}", err=True)


def _sample(source, window, count, min_length, max_length, min_support, max_support, seed):
    try:
        return sample_patterns(window, count, min_length, max_length, min_support, max_support, seed)
    except TransactionsTooShort as exc:  # the data's answer, whatever -n says
        raise InputError(source, str(exc)) from None
    except TooFewPatterns as exc:
        if exc.candidates == 0:  # no order of picks helps (QA re-check)
            raise ParameterError("n", f"{exc}: {exc.advice} or change the length range") from None
        raise ParameterError("n", f"{exc}: lower -n, change the length range (fewer lengths can leave more "
                                  "patterns apart), widen the supports or try another --seed") from None
    except MiningTooLarge as exc:
        raise ParameterError("min-support", f"{exc}: raise it or lower --max-length") from None


@click.group("sanitize")
def bench_sanitize():
    """Oliveira & Zaïane's experiments (TR 02-13, §5) for the sanitize model."""


def _policies(text: str) -> tuple[str, ...]:
    """The named policies, each installed for the sanitize model: the paper's four by default,
    a third party's as well when asked for."""
    names = tuple(listed("policies", text))
    installed = get_registry().policies.get("sanitize", {})
    if any(name not in installed for name in names):
        raise ParameterError("policies", f"got {text!r}, allowed: a comma-separated subset of the installed "
                             f"sanitize policies ({', '.join(sorted(installed))})")
    refuse_repeats("policies", names)  # QA: each row then came twice
    return names


#: what chooses sampled patterns, which a pattern file given with --patterns leaves unused
SAMPLING = {"count": "-n", "seeds": "--seeds", "seed": "--seed", "min_length": "--min-length",
            "max_length": "--max-length", "min_support": "--min-support", "max_support": "--max-support"}


def _refuse_sampling_with_patterns() -> None:
    """A sampling option given with ``--patterns`` would be ignored in silence (QA: ``--seeds 3``
    ran one set); refused, naming it."""
    for name, option in SAMPLING.items():
        if option_given(name):
            raise ParameterError(option.lstrip("-"), f"{option} chooses sampled patterns, and --patterns gives them: "
                                 "drop one of the two")


def _refuse_a_pipe_of_patterns(path: str) -> None:
    """--patterns is read again for each policy and ψ of the grid, by the model as each run
    configures it, and a named pipe can be read only once: its second open waited for a writer for
    ever (a fuzz pass). A path that cannot be looked up is left to the checks of the input files."""
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ParameterError("patterns", f"{path!r} is no regular file: the benchmark reads it again for each "
                                 "policy and ψ, so give a file")


@bench_sanitize.command("effectiveness", short_help="§5.1, Figs. 6 and 11: HF, MC, AP, dissimilarity, size loss...")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("--patterns", "patterns_path", type=click.Path(dir_okay=False), help="Restrictive patterns; sampled when omitted.")
@click.option("-n", "count", type=IntRange(min=1), default=10, show_default=True, help="How many patterns to sample.")
@sampling_options(0.2, 0.4)
@click.option("--seeds", type=IntRange(min=1), default=1, show_default=True,
              help="Sample this many pattern sets (seeds SEED, SEED+1, ...) and average over them.")
@click.option("--sigma", type=FloatRange(0, 1, min_open=True), default=0.1, show_default=True, help="Mining support σ.")
@click.option("--psi-step", type=FloatRange(0.001, 1), default=0.1, show_default=True,
              help="ψ runs from 0 to 1 in these steps (at most 1,001 values of ψ).")
@click.option("--policies", "policy_text", default=",".join(POLICIES), show_default=True,
              help="Policies to compare (comma-separated).")
@click.option("--drop-common", "common_share", type=FloatRange(0, 1, min_open=True),
              help="First remove the items held by at least this share of the transactions (near-constant "
                   "attributes of one-hot data, which the paper's synthetic data does not have).")
@json_option("json_out")
def bench_effectiveness(input_path, patterns_path, count, min_length, max_length, min_support, max_support, seed, fmt,
                        seeds, sigma, psi_step, policy_text, common_share, json_out):
    """Fig. 6 and Fig. 11 of §5.1: HF, MC, AP, dissimilarity and size loss for each policy and ψ."""
    _check_ranges(min_length, max_length, min_support, max_support)
    policies = _policies(policy_text)
    steps = round(1 / psi_step)
    psis = sorted({round(min(1.0, i * psi_step), 10) for i in range(steps + 1)} | {1.0})
    # as many decimals as the step has, so that each row shows its own ψ (QA: steps of 0.05 were
    # printed 0.0, 0.1, 0.1, 0.1, 0.2)
    psi_decimals = max(1, -int(Decimal(repr(psi_step)).as_tuple().exponent))
    if patterns_path is not None:
        _refuse_sampling_with_patterns()
        _refuse_a_pipe_of_patterns(patterns_path)
    elif seed + seeds - 1 > SEED_MAX:
        # a set drawn past it could not be drawn again: patterns sample --seed refuses such a seed
        # (a user walkthrough: --seed 4294967295 --seeds 3 sampled seeds 4294967296 and 4294967297)
        raise ParameterError("seeds", f"{seeds} sets from --seed {seed} would pass seed {SEED_MAX}, the largest: "
                             f"lower --seed to {SEED_MAX - seeds + 1} at most, or give fewer --seeds")
    check_bench_files(json_out, (input_path, patterns_path))
    given = None
    if patterns_path is not None:
        given = RestrictivePatterns.load(patterns_path)  # its errors before the data is read
    window = read_window(input_path, fmt)
    if given is not None:
        # as anonymize: a file none of whose patterns occurs ran the whole grid, restrictive 0 and
        # nothing removed, and a pattern spelt otherwise ended in the service's message for a
        # window, naming no file (walkthrough)
        model = get_registry().configure("sanitize", policies[0], {"restrictive": patterns_path}).model
        for line in model.input_notes(window, shown_path(input_path)):
            note(line)
    dropped = ""
    if common_share is not None:
        common = np.flatnonzero(window.supports >= common_share * len(window) - 1e-9)
        if given is not None:
            present = {window.vocab.label(item) for item in np.flatnonzero(window.supports)}
            _refuse_dropping_pattern_items(given, {window.vocab.label(item) for item in common}, present, common_share)
        window = window.suppress(common)
        dropped = (f"; {len(common)} item{'' if len(common) == 1 else 's'} held by >= {common_share:g} "
                   "of the transactions removed first")
    started_on = machine()  # the load average as the mining starts, not as the runs end
    started = time.perf_counter()
    measure = PatternMetrics(window, sigma)
    mining_seconds = time.perf_counter() - started
    rows = []
    with tempfile.TemporaryDirectory(prefix="setveil-sanitize-") as scratch:
        if patterns_path is not None:
            source = f"patterns from {patterns_path}"
            rows += [{"seed": None, **row} for row in effectiveness(window, measure, patterns_path, policies, psis)]
        else:
            source = (f"{counted(count, 'pattern')} sampled per seed: length {min_length}-{max_length}, support "
                      f"{min_support:g}-{max_support:g}, seeds {seed}..{seed + seeds - 1}")
            for current in range(seed, seed + seeds):
                path = str(Path(scratch) / f"restrictive-{current}.txt")
                try:
                    picks = _sample(input_path, window, count, min_length, max_length, min_support, max_support,
                                    current)
                except (InputError, ParameterError) as exc:
                    # a pick falling short depends on the seed, and tells nothing of the other
                    # sets: it stopped the grid, the sets before it lost with the JSON (review)
                    rows.append({"seed": current, **dict.fromkeys(EFFECTIVENESS_MEASURED), "refused": str(exc)})
                    continue
                write_patterns(path, picks + other_spellings(window, picks))
                rows += [{"seed": current, **row} for row in effectiveness(window, measure, path, policies, psis)]
    items = int((window.supports > 0).sum())
    click.echo(f"# {Path(input_path).name}: {counted(len(window), 'transaction')}, {counted(items, 'item')}{dropped}; "
               f"{source}")
    click.echo(f"# sigma={sigma:g} (support >= {measure.min_support}): {counted(measure.frequent, 'frequent pattern')}, "
               f"mined in {mining_seconds:.2f} s; deterministic, 1 run per setting")
    click.echo(f"# {started_on}")
    figures = ["hiding_failure", "misses_cost", "artifactual_patterns", "dissimilarity", "size_loss"]
    # each column headed by the --json key it shows, a share in percent with _% (bench rho's info_loss_%)
    percents = [f"{key}_%" for key in figures]
    header = ["policy", "psi", "restrictive", *percents, "removed_items", "violations"]
    measured = [row for row in rows if "refused" not in row]
    refused = [row for row in rows if "refused" in row]
    groups: dict[tuple[str, float], list[dict]] = {}
    for row in measured:
        groups.setdefault((row["policy"], row["psi"]), []).append(row)
    table = []
    for (policy, psi), members in groups.items():
        cells = [policy, f"{psi:.{psi_decimals}f}", _cell("{:.0f}", _mean(members, "restrictive"))]
        means = [_mean(members, key) for key in figures]
        cells += [_cell("{:.2f}", None if mean is None else 100 * mean) for mean in means]
        cells += [_cell("{:.0f}", _mean(members, "removed_items")), str(sum(m["violations"] for m in members))]
        table.append(cells)
    if seeds > 1 and patterns_path is None:
        sets = f"{seeds - len(refused)} of {seeds}" if refused else f"{seeds}"
        click.echo(f"## mean over {sets} pattern sets (violations: total)")
    print_markdown(header, table)
    if refused:
        click.echo("## pattern sets not sampled")
        print_markdown(["seed", "refused"], [[str(row["seed"]), row["refused"]] for row in refused])
    if seeds > 1 and patterns_path is None:
        click.echo("## psi = 0 by pattern set")
        zero = [row for row in measured if row["psi"] == 0.0]
        print_markdown(["seed", "policy", "restrictive", *percents],
                     [[str(r["seed"]), r["policy"], str(r["restrictive"])]
                      + [_cell("{:.2f}", None if r[key] is None else 100 * r[key]) for key in figures] for r in zero])
    if json_out is not None:
        body = {"sigma": sigma, "min_support": measure.min_support, "frequent": measure.frequent,
                "mining_seconds": mining_seconds, "drop_common": common_share, "rows": rows}
        write_json(json_out, body)
    if refused:
        # after the tables and the JSON, so that a script running the grid still learns it is not whole
        raise SetveilError(f"{len(refused)} of the {seeds} pattern sets could not be sampled (their rows say why)")


def _refuse_dropping_pattern_items(given: RestrictivePatterns, common: set[str], present: set[str],
                                   common_share: float) -> None:
    """A given pattern holding an item ``--drop-common`` removes would occur in no transaction and
    be counted as nothing to hide (QA: every pattern gone, 0 restrictive, no reason given). A
    pattern with an item the data lacks occurs nowhere anyway, and is not blamed on it."""
    lines = [line for line, pattern in zip(given.lines, given.patterns)
             if common.intersection(pattern) and present.issuperset(pattern)]
    if lines:
        shown = first_lines(lines)
        remedy = "leave those patterns out" if common_share >= 1 else "raise it, or leave those patterns out"
        raise ParameterError("drop-common", f"{common_share:g} removes an item of {counted(len(lines), 'pattern')} "
                             f"of the {len(given)} in {given.path} (line{'' if len(lines) == 1 else 's'} {shown}): "
                             f"{remedy}")


def _mean(rows: list[dict], key: str) -> float | None:
    values = [row[key] for row in rows if row[key] is not None]
    return sum(values) / len(values) if values else None


@bench_sanitize.command("speed")
@click.argument("input_paths", metavar="INPUT...", nargs=-1, required=True, type=click.Path())
@click.option("-n", "counts", multiple=True, type=IntRange(min=1), default=(10, 1000), show_default=True,
              help="Numbers of restrictive patterns (repeatable).")
@sampling_options(0.001, 0.4)
@click.option("--psi", type=FloatRange(0, 1), default=0.0, show_default=True, help="Privacy threshold ψ of every run.")
@click.option("--runs", type=IntRange(min=1), default=3, show_default=True, help="Timed runs; the median is shown.")
@click.option("--policies", "policy_text", default=",".join(POLICIES), show_default=True,
              help="Policies to compare (comma-separated).")
@json_option("json_out")
def bench_speed(input_paths, counts, min_length, max_length, min_support, max_support, seed, fmt, psi, runs,
                policy_text, json_out):
    """§5.2: index build and sanitization seconds, the check's seconds and peak memory."""
    _check_ranges(min_length, max_length, min_support, max_support)
    policies = _policies(policy_text)
    refuse_repeats("n", counts)
    # the table tells rows apart by this name alone, as bench partition's does (a user walkthrough:
    # a file given twice ran twice, and standard input twice ran the first grid to fail on the second)
    refuse_repeats("INPUT", [Path(path).name for path in input_paths])
    check_bench_files(json_out, input_paths)
    click.echo(f"# patterns: length {min_length}-{max_length}, support {min_support:g}-{max_support:g}, seed {seed}; "
               f"psi={psi:g}; median of {counted(runs, 'run')}; memory of one more run, forked: its peak resident "
               "memory (peak_mib), what it added (run_mib), its processes' together (tree_mib, sampled)")
    click.echo(f"# {machine()}")
    rows: list[dict] = []
    refused = died = made = 0
    with tempfile.TemporaryDirectory(prefix="setveil-sanitize-") as scratch:
        for input_path in input_paths:
            started = time.perf_counter()
            window = read_window(input_path, fmt)
            read_seconds = time.perf_counter() - started
            for count in counts:
                setting = {"dataset": Path(input_path).name, "transactions": len(window), "patterns": count,
                           "read_seconds": read_seconds}
                try:
                    patterns = _sample(input_path, window, count, min_length, max_length, min_support, max_support,
                                       seed)
                except (InputError, ParameterError) as exc:
                    # what one input cannot give (-n patterns, any pattern of --min-length, mining
                    # within the budget) tells nothing of the other settings: it stopped the grid,
                    # with nothing printed and no JSON (review)
                    refused += 1
                    rows.append({**setting, **dict.fromkeys(SPEED_MEASURED), "refused": str(exc)})
                    continue
                path = str(Path(scratch) / f"restrictive-{count}.txt")
                write_patterns(path, patterns + other_spellings(window, patterns))
                for policy in policies:
                    made += 1
                    try:
                        rows.append({**setting, **speed(window, path, policy, psi, runs)})
                    except RunDied as exc:
                        # as bench rho's: the grid goes on, the command exits 1 at its end
                        died += 1
                        rows.append({**setting, **dict.fromkeys(SPEED_MEASURED), "policy": policy,
                                     "refused": str(exc)})
    # each column headed by the --json key that holds it, as bench run's and bench rho's are
    columns = [("dataset", "{}"), ("transactions", "{}"), ("patterns", "{}"), ("policy", "{}"),
               ("index_seconds", "{:.3f}"), ("sanitize_seconds", "{:.3f}"), ("total_seconds", "{:.3f}"),
               ("verify_seconds", "{:.3f}"), ("peak_mib", "{:.1f}"), ("run_mib", "{:.1f}"), ("tree_mib", "{:.1f}"),
               ("sensitive_transactions", "{}"), ("sanitizations", "{}"), ("removed_items", "{}"),
               ("violations", "{}")]
    if refused or died:
        columns.append(("refused", "{}"))
    print_markdown([key for key, _ in columns], [[_cell(f, row.get(key, "")) for key, f in columns] for row in rows])
    reads = sorted({(row["dataset"], row["read_seconds"]) for row in rows})
    peaks = [row["max_rss_mib"] for row in rows if "refused" not in row]
    click.echo("# read seconds: " + ", ".join(f"{name} {seconds:.2f}" for name, seconds in reads)
               + (f"; process max RSS {max(peaks):.0f} MiB" if peaks else ""))
    if json_out is not None:
        write_json(json_out, rows)
    unwhole = []
    if refused:
        unwhole.append(f"{refused} of the {len(input_paths) * len(counts)} settings (dataset, -n) had no patterns to run")
    if died:
        unwhole.append(f"{died} of the {made} runs died")
    if unwhole:
        # after the table and the JSON, so that a script running the grid still learns it is not whole
        raise SetveilError(" and ".join(unwhole) + " (their rows say why)")


@bench_sanitize.command("quest")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the transactions here, FIMI ('-' for stdout).")
@click.option("--transactions", type=IntRange(min=1), default=100_000, show_default=True,
              help="How many transactions to write.")
@click.option("--items", type=IntRange(min=1, max=10_000_000), default=500, show_default=True,
              help="Items to draw from (ids 0 to items-1).")
@click.option("--mean-length", type=FloatRange(1, None), default=40.0, show_default=True,
              help="Mean target length of a transaction, before --min-length; an itemset that does not "
                   "fit goes in half of the time, so a transaction can end well past it.")
@click.option("--min-length", type=IntRange(min=1), default=40, show_default=True,
              help="Fewest items in a transaction (§5.1: 40).")
@click.option("--large-itemset-size", type=FloatRange(1, None), default=16.0, show_default=True,
              help="Mean size of a potential large itemset (at most half of --items).")
@click.option("--large-itemsets", type=IntRange(min=1, max=1_000_000), default=100, show_default=True,
              help="How many potential large itemsets; times --large-itemset-size at most 10,000,000. They "
                   "are drawn item by item before any transaction, so they take time by their number and "
                   "size whatever --transactions is: on 2 cores under load, 1,000,000 itemsets of one item "
                   "took about 27 s, 100,000 of 16 items about 16 s, so 10,000,000 items take minutes.")
@click.option("--correlation", type=FloatRange(0, 1), default=0.5, show_default=True,
              help="Correlation level: an itemset takes size × correlation × Exp(1) of its items from the "
                   "one before, at most either's size.")
@click.option("--corruption-mean", type=FloatRange(0, 1), default=0.5, show_default=True,
              help="Mean corruption level of an itemset: the chance, item after item, that one more of its "
                   "items is left out of a transaction.")
@click.option("--corruption-variance", type=FloatRange(0, 1), default=0.1, show_default=True,
              help="Variance of the corruption level, which is normal.")
@click.option("--item-weights", type=click.Choice(["exp", "uniform"]), default="exp", show_default=True,
              help="How an itemset's new items are drawn: by an Exp(1) weight per item, or uniformly.")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Seed of every random draw.")
def bench_quest(output, **options):
    """Synthetic transactions the way §5.1's were made: IBM Quest's generator (Agrawal &
    Srikant, VLDB'94, §2.4.3), every transaction at least --min-length items long. The defaults
    make the data of docs/sanitize.md ("Data made the paper's way"), about 2.1 million frequent
    patterns at σ = 10% where the paper's had 1.9 million."""
    settings = QuestSettings(**options)
    settings.check()
    check_output(output, "--output")
    data = generate(settings)
    write_text_output(output, data.fimi())
    lengths = [line.count(" ") + 1 for line in data.lines]
    click.echo(f"{counted(len(data.lines), 'transaction')} of {min(lengths)}-{max(lengths)} items (mean "
               f"{sum(lengths) / len(lengths):.1f}) over {data.items_used} of {settings.items} items, seed "
               f"{settings.seed} ({data.dropped_short} made again for closing short), written to "
               f"{shown_path(output, 'standard output')}", err=True)


def _cell(fmt: str, value) -> str:
    return NOT_APPLICABLE if value is None else fmt.format(value)


