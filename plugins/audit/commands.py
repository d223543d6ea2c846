"""The audit plugin's commands: ``setveil audit rename|publish|deanonymize`` (the two sides of
Mielikäinen, 2004, §2) and ``setveil bench audit`` (its §4 experiment)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import numpy as np

from setveil.core.bench import machine, print_table
from setveil.core.clitypes import FloatRange, json_option
from setveil.core.errors import InputError, ParameterError
from setveil.core.formats import FORMATS, read_window, write_window
from setveil.core.labeltext import label_lines, label_text
from setveil.core.mining import MiningTooLarge
from setveil.core.output import check_output, distinct_outputs, write_text_output

from .bench import experiment, summary
from .itemsets import ItemsetCollection
from .owner import publish as publish_itemsets
from .owner import rename as rename_items
from .program import LINKINGS, METHODS, check_settings, deanonymize as solve


def register_commands(cli: click.Group) -> None:
    cli.add_command(audit)
    cli.commands["bench"].add_command(bench_audit)


@click.group("audit")
def audit():
    """Attack releases: recover the names of renamed items from published frequent itemsets."""


def _sigma_option(help):
    return click.option("--sigma", required=True, type=FloatRange(0, 1, min_open=True), help=help)


_max_size = click.option("--max-size", type=click.IntRange(min=1), help="Largest itemset used (default: no limit).")
_linking = click.option("--linking", type=click.Choice(LINKINGS), default="cover", show_default=True,
                        help="cover: a row per itemset and item (every mip naming is exact); aggregate: the "
                             "paper's row per pair of itemsets.")
_format = click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")


@audit.command("rename")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The item-renamed transactions f(D).")
@click.option("--mapping", required=True, type=click.Path(dir_okay=False),
              help="Write f here: one 'original renamed' pair per line (keep it secret).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@_format
def rename(input_path, output, mapping, seed, fmt):
    """Rename every item of INPUT by a random bijection onto 1..|I| (Definition 2): the
    anonymization whose safety the attack tests."""
    distinct_outputs({"--output": output, "--mapping": mapping})
    check_output(output, "--output", (input_path,))
    check_output(mapping, "--mapping", (input_path,))
    window = read_window(input_path, fmt)
    renamed, names = rename_items(window, np.random.default_rng(seed))
    write_window(renamed, output, fmt)
    write_text_output(mapping, "".join(f"{label_text(a)} {label_text(b)}\n" for a, b in names.items()))


@audit.command("publish")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@_sigma_option("Publish the itemsets of at least this frequency.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The published itemsets: 'frequency label label ...' per line.")
@_max_size
@click.option("--noise", type=FloatRange(0, min_open=False), default=0.0, show_default=True,
              help="Standard deviation of the zero-mean Gaussian noise added to every frequency.")
@click.option("--omit", type=FloatRange(0, 1, max_open=True), default=0.0, show_default=True,
              help="Share of the frequent itemsets left out.")
@click.option("--add", type=FloatRange(0), default=0.0, show_default=True,
              help="False itemsets added, as a share of the frequent ones.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@_format
def publish(input_path, sigma, output, max_size, noise, omit, add, seed, fmt):
    """The data owner's release of F(sigma, INPUT) under the original names, optionally perturbed
    as §2 considers."""
    check_output(output, "--output", (input_path,))
    frequent = _mine(read_window(input_path, fmt), sigma, max_size)
    published = publish_itemsets(frequent, np.random.default_rng(seed), noise=noise, omit=omit, add=add)
    write_text_output(output, published.text())
    click.echo(f"{len(published)} itemsets over {len(published.labels)} items written to {output}", err=True)


@audit.command("deanonymize")
@click.argument("input_path", metavar="RENAMED", type=click.Path(allow_dash=True))
@click.option("--itemsets", "itemsets_path", required=True, type=click.Path(dir_okay=False),
              help="The published itemsets, under the original names.")
@_sigma_option("The frequency the itemsets were published at; RENAMED is mined at it.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The naming found: 'original renamed weight' per line.")
@click.option("--method", type=click.Choice(METHODS), default="ip", show_default=True,
              help="ip: every variable integral (the maximum-likelihood naming); mip: only the item "
                   "matching; lp: none (weights are votes).")
@_max_size
@click.option("--tolerance", type=FloatRange(0), default=0.0, show_default=True,
              help="Largest frequency difference a matched pair may have (about 4 standard deviations of "
                   "the noise; 0 for exact frequencies).")
@click.option("--unmatched-cost", type=FloatRange(0, min_open=True),
              help="Allow itemsets to stay unmatched (omitted or false ones) at this cost each, in units of a "
                   "pair at the tolerance.")
@click.option("--time-limit", type=FloatRange(0, min_open=True), help="Seconds the solver may take.")
@_linking
@click.option("--determined", is_flag=True,
              help="Test each name found (ip, mip): does an equally good naming name the item otherwise? The report "
                   "lists the items no such naming renames: with exact frequencies the names the attacker can be sure "
                   "of; with noise the names of the unique most likely naming, which may still be wrong.")
@click.option("--round", "round_seed", type=click.IntRange(min=0), metavar="SEED",
              help="With lp: write a naming drawn from the votes by §3's procedure (seeded) instead of the votes.")
@click.option("--truth", type=click.Path(dir_okay=False), help="The true mapping (from `audit rename`): report the accuracy.")
@click.option("--report", type=click.Path(dir_okay=False, allow_dash=True), help="Write a JSON report here.")
@_format
def deanonymize(input_path, itemsets_path, sigma, output, method, max_size, tolerance, unmatched_cost,
                time_limit, linking, determined, round_seed, truth, report, fmt):
    """Name the items of RENAMED from frequent itemsets published under their original names
    (Problem 2), by the integer program of §2 or its relaxations (§3)."""
    check_settings(method, tolerance, unmatched_cost, time_limit, linking)
    if method == "lp" and determined:
        raise ParameterError("determined", "needs a naming: --method ip or mip")
    if method != "lp" and round_seed is not None:
        raise ParameterError("round", "draws a naming from the votes of --method lp")
    distinct_outputs({"--output": output, "--report": report})
    inputs = (input_path, itemsets_path) + ((truth,) if truth else ())
    check_output(output, "--output", inputs)
    if report is not None:
        check_output(report, "--report", inputs)
    published = ItemsetCollection.load(itemsets_path)
    names = _load_mapping(truth) if truth else None
    largest = int(published.sizes.max())
    size = largest if max_size is None else min(max_size, largest)
    if size < largest:
        published = published.restrict(published.sizes <= size)
    mined = _mine(read_window(input_path, fmt), sigma, size)
    naming = solve(published, mined, method=method, tolerance=tolerance, unmatched_cost=unmatched_cost,
                   time_limit=time_limit, linking=linking, determine=determined)
    if round_seed is None:
        pairs = naming.pairs()
    else:
        pairs = [(a, b, 1.0) for a, b in sorted(naming.rounded(np.random.default_rng(round_seed)).items())]
    write_text_output(output, "".join(f"{label_text(a)} {label_text(b)} {w:.6g}\n" for a, b, w in pairs))
    body = {
        "method": method,
        "linking": linking,
        "optimal": naming.optimal,
        "status": naming.status,
        "objective": naming.objective,
        "published_itemsets": len(published),
        "mined_itemsets": len(mined),
        "published_items": len(published.labels),
        "renamed_items": len(mined.labels),
        "named_items": sum(1 for _, _, w in pairs if w > 0.5) if method != "lp" or round_seed is not None else None,
        "pairs_before_pruning": naming.pairs_before_pruning,
        "variables": naming.variables,
        "constraints": naming.constraints,
        "seconds": naming.seconds,
    }
    if determined:
        body["determined_items"] = None if naming.determined is None else len(naming.determined)
        body["determined"] = None if naming.determined is None else list(naming.determined)
    if names is not None:
        body["accuracy"] = naming.accuracy(names)
        body["uniform_accuracy"] = naming.uniform_accuracy(names)
        if round_seed is not None:
            body["rounded_accuracy"] = sum(names.get(a) == b for a, b, _ in pairs) / max(1, len(published.labels))
    if report is not None:
        write_text_output(report, json.dumps(body, indent=2) + "\n")
    summary_line = f"{method}: {'optimal' if naming.optimal else 'not proven optimal'}, {naming.variables} variables, " \
                   f"{naming.seconds:.2f} s"
    if determined:
        summary_line += ("; names not tested (the naming is not proven optimal)" if naming.determined is None
                         else f"; {len(naming.determined)} of {len(published.labels)} names determined")
    if names is not None:
        summary_line += f"; accuracy {body['accuracy']:.3f} (uniform vote {body['uniform_accuracy']:.3f})"
    click.echo(summary_line, err=True)


def _mine(window, sigma, max_size) -> ItemsetCollection:
    try:
        return ItemsetCollection.mine(window, sigma, max_size)
    except MiningTooLarge as exc:
        raise ParameterError("sigma", f"{exc}: raise it or set --max-size") from None


def _load_mapping(path: str) -> dict[str, str]:
    names: dict[str, str] = {}
    for number, fields in label_lines(path):
        if len(fields) != 2:
            raise InputError(path, "a mapping line holds an original and a renamed label", number)
        if fields[0] in names:
            raise InputError(path, "the original label is mapped twice", number)
        names[fields[0]] = fields[1]
    return names


def _progress(runs: int):
    def report(row: dict) -> None:
        if row["infeasible"] or row["timed_out"]:
            outcome = "no naming" if row["infeasible"] else "no naming within the time limit"
        else:
            outcome = f"accuracy {row['accuracy']:.3f}, {row['seconds']:.2f} s"
        click.echo(f"  run {row['run'] + 1}/{runs}, noise {row['noise']:g}, {row['method']}: {outcome}", err=True)

    return report


def _floats(text: str, name: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(name, f"{text!r} is not a comma-separated list of numbers") from None
    if not values or any(not np.isfinite(v) or v < 0 for v in values):
        raise ParameterError(name, f"{text!r}: give one or more numbers >= 0")
    return values


@click.command("audit")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@_sigma_option("Frequency the itemsets are published and mined at.")
@_max_size
@click.option("--noise", "noise_text", default="0,0.01,0.02,0.05,0.1", show_default=True,
              help="Comma-separated standard deviations of the noise on the published frequencies.")
@click.option("--methods", "method_text", default=",".join(METHODS), show_default=True)
@click.option("--runs", type=click.IntRange(min=1), default=10, show_default=True,
              help="Runs per setting, each with its own renaming and noise.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--tolerance-sds", type=FloatRange(0, min_open=True), default=4.0, show_default=True,
              help="The attacker's tolerance, in standard deviations of the noise.")
@click.option("--omit", type=FloatRange(0, 1, max_open=True), default=0.0, show_default=True)
@click.option("--add", type=FloatRange(0), default=0.0, show_default=True)
@click.option("--unmatched-cost", type=FloatRange(0, min_open=True))
@click.option("--time-limit", type=FloatRange(0, min_open=True), default=60.0, show_default=True,
              help="Seconds each program may take.")
@click.option("--determined", is_flag=True, help="Also report the share of names no equally good naming changes (ip, mip).")
@_linking
@_format
@json_option()
def bench_audit(input_path, sigma, max_size, noise_text, method_text, runs, seed, tolerance_sds, omit, add,
                unmatched_cost, time_limit, determined, linking, fmt, json_path):
    """Mielikäinen's §4 experiment on INPUT: accuracy of the ip, mip and lp attacks against the
    noise on the published frequencies, next to a uniform vote."""
    noises = _floats(noise_text, "noise")
    methods = [m.strip() for m in method_text.split(",") if m.strip()]
    if not methods:
        raise ParameterError("methods", f"give a comma-separated subset of {', '.join(METHODS)}")
    for method in methods:
        check_settings(method, 0.0, unmatched_cost, time_limit, linking)
    window = read_window(input_path, fmt)
    try:
        frequent, rows = experiment(window, sigma, max_size=max_size, noises=noises, methods=methods, runs=runs,
                                    seed=seed, tolerance_sds=tolerance_sds, time_limit=time_limit, omit=omit,
                                    add=add, unmatched_cost=unmatched_cost, linking=linking,
                                    determine=determined, progress=_progress(runs))
    except MiningTooLarge as exc:
        raise ParameterError("sigma", f"{exc}: raise it or set --max-size") from None
    table = summary(rows)
    sizes = np.bincount(frequent.sizes)
    click.echo(f"# {Path(input_path).name}: {len(window)} transactions; sigma={sigma:g}: {len(frequent)} frequent "
               f"itemsets over {len(frequent.labels)} items (by size: "
               f"{', '.join(str(int(c)) for c in sizes[1:])}); {runs} runs per setting, seed {seed}")
    click.echo(f"# linking {linking}, tolerance {tolerance_sds:g} sd, omit {omit:g}, add {add:g}, time limit {time_limit:g} s; "
               f"{machine()}, load average {os.getloadavg()[0]:.2f}")
    columns = ["noise", "method", "runs", "accuracy", "sd", "uniform"] + (["determined"] if determined else [])
    print_table(table, columns + ["not_optimal", "no_naming_in_time", "infeasible", "variables", "seconds"])
    if json_path is not None:
        write_text_output(json_path, json.dumps({"sigma": sigma, "max_size": max_size, "itemsets": len(frequent),
                                                 "items": len(frequent.labels), "rows": rows,
                                                 "summary": table}, indent=2) + "\n")
