"""The audit plugin's commands: ``setveil audit rename|publish|deanonymize`` (the two sides of
Mielikäinen, 2004, §2) and ``setveil bench audit`` (its §4 experiment)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from setveil.core.bench import machine, print_table
from setveil.core.cli import counted, note
from setveil.core.clitypes import SEED, FloatRange, IntRange, check_bench_files, json_option, keep_stdout_for_data
from setveil.core.errors import InputError, ParameterError, shown_path
from setveil.core.formats import FORMATS, read_window, render_window
from setveil.core.labeltext import label_lines, label_text, read_utf8
from setveil.core.mining import MiningTooLarge
from setveil.core.output import check_output, distinct_outputs, text_bytes, write_json, write_output, write_outputs
from setveil.core.params import refuse_repeats, written_plainly

from .bench import experiment, summary
from .deadline import GRACE_SECONDS
from .itemsets import ItemsetCollection, count_itemsets
from .owner import MAX_ADD, MAX_NOISE
from .owner import publish as publish_itemsets
from .owner import rename as rename_items
from .program import (LINKINGS, MAX_PAIRS, MAX_TIME_LIMIT, MAX_TOLERANCE, MAX_UNMATCHED_COST, METHODS,
                      VOTE_TOLERANCE, Naming, check_settings, deanonymize as solve, impossible_itemsets,
                      unique_singletons)

#: largest --tolerance-sds of bench audit; the paper's attacker uses 4
MAX_TOLERANCE_SDS = 10.0


@click.group("audit")
def audit():
    """Attack releases: recover the names of renamed items from published frequent itemsets."""


def _sigma_option(help):
    return click.option("--sigma", required=True, type=FloatRange(0, 1, min_open=True), help=help)


def _max_size(help):
    return click.option("--max-size", type=IntRange(min=1), help=help)


_linking = click.option("--linking", type=click.Choice(LINKINGS), default="cover", show_default=True,
                        help="cover: a row per itemset and item (every mip naming is exact); aggregate: the "
                             "paper's row per pair of itemsets.")
_format = click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")


def _time_limit(default: float | None = None):
    return click.option("--time-limit", type=FloatRange(0, MAX_TIME_LIMIT, min_open=True), default=default,
                        show_default=default is not None,
                        help=f"Seconds each solve may take ({'' if default else 'default: no limit; '}with "
                             f"--determined: the first and each test; a test still running {GRACE_SECONDS:g} s past "
                             "it is killed and its item left unsettled).")


_unmatched_cost = click.option(
    "--unmatched-cost", type=FloatRange(0, MAX_UNMATCHED_COST, min_open=True),
    help="Allow itemsets to stay unmatched (omitted or false ones) at this cost each, in units of a pair at the "
         "tolerance.")
_omit = click.option("--omit", type=FloatRange(0, 1, max_open=True), default=0.0, show_default=True,
                     help="Share of the frequent itemsets left out.")
_add = click.option("--add", type=FloatRange(0, MAX_ADD), default=0.0, show_default=True,
                    help="False itemsets added, as a share of the frequent ones; no more than there are itemsets "
                         "of their sizes that are not frequent.")


@audit.command("rename")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The item-renamed transactions f(D), in the format its suffix names (.jsonl, .msgpack, ...; "
                   "FIMI for '-' and other suffixes; gzipped for .gz) unless --output-format says otherwise ('-' for "
                   "stdout).")
@click.option("--mapping", required=True, type=click.Path(dir_okay=False),
              help="Write f here: one 'original renamed' pair per line (keep it secret; '-' for stdout).")
@click.option("--seed", type=SEED,
              help="Draw f from this seed, to repeat an experiment; whoever guesses the seed rebuilds f from f(D) "
                   "alone. Default: a fresh draw from the operating system's entropy.")
@_format
@click.option("--output-format", type=click.Choice(FORMATS),
              help="Format of --output (default: from its suffix; jsonl or msgpack keep the transaction ids).")
def rename(input_path, output, mapping, seed, fmt, output_format):
    """Rename every item of INPUT by a random bijection onto 1..|I| (Definition 2): the
    anonymization whose safety the attack tests. f(D) and f are written together or not at all."""
    distinct_outputs({"--output": output, "--mapping": mapping})
    check_output(output, "--output", (input_path,))
    check_output(mapping, "--mapping", (input_path,))
    window = read_window(input_path, fmt)
    renamed, names = rename_items(window, np.random.default_rng(seed))
    key = "".join(f"{label_text(a)} {label_text(b)}\n" for a, b in names.items())
    write_outputs([(output, render_window(renamed, output, output_format)), (mapping, text_bytes(mapping, key))])
    click.echo(f"{counted(len(renamed), 'transaction')} over {counted(len(names), 'item')} renamed: f(D) written to "
               f"{shown_path(output, 'standard output')}, f to {shown_path(mapping, 'standard output')}", err=True)


@audit.command("publish")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@_sigma_option("Publish the itemsets of at least this frequency.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The published itemsets: 'frequency label label ...' per line ('-' for stdout).")
@_max_size("Largest itemset published (default: no limit).")
@click.option("--noise", type=FloatRange(0, MAX_NOISE), default=0.0, show_default=True,
              help="Standard deviation of the zero-mean Gaussian noise added to every frequency (a share, so "
                   f"at most {MAX_NOISE:g}).")
@_omit
@_add
@click.option("--seed", type=SEED,
              help="Draw the noise, omitted and false itemsets from this seed, to repeat an experiment; whoever "
                   "guesses the seed can take the noise off. Default: a fresh draw from the operating system's "
                   "entropy.")
@_format
def publish(input_path, sigma, output, max_size, noise, omit, add, seed, fmt):
    """The data owner's release of F(sigma, INPUT) under the original names, optionally perturbed
    as §2 considers. A release deanonymize could not read (no itemset left) is refused."""
    check_output(output, "--output", (input_path,))
    keep_stdout_for_data(output)
    frequent = _mine(read_window(input_path, fmt), sigma, max_size)
    if not len(frequent):
        raise ParameterError("sigma", f"{sigma!r}: no itemset is that frequent, so there is nothing to publish")
    published = publish_itemsets(frequent, np.random.default_rng(seed), noise=noise, omit=omit, add=add)
    write_output(output, text_bytes(output, published.text()))
    click.echo(f"{counted(len(published), 'itemset')} over {counted(len(published.labels), 'item')} written to "
               f"{shown_path(output, 'standard output')}", err=True)


@audit.command("deanonymize")
@click.argument("input_path", metavar="RENAMED", type=click.Path(allow_dash=True))
@click.option("--itemsets", "itemsets_path", required=True, type=click.Path(dir_okay=False),
              help="The published itemsets, under the original names.")
@_sigma_option("The frequency the itemsets were published at; RENAMED is mined at it.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The naming found: 'original renamed weight' per line (an lp vote within "
                   f"{VOTE_TOLERANCE:g} of 0 or 1 is the solver's round-off: left out, or written as 1; '-' for stdout).")
@click.option("--method", type=click.Choice(METHODS), default="ip", show_default=True,
              help="ip: every variable integral (the maximum-likelihood naming); mip: only the item "
                   "matching; lp: none (weights are votes).")
@_max_size("Largest published itemset used (default: the largest published size).")
@click.option("--tolerance", type=FloatRange(0, MAX_TOLERANCE), default=0.0, show_default=True,
              help="Largest frequency difference a matched pair may have (about 4 standard deviations of "
                   "the noise; 0 for exact frequencies).")
@_unmatched_cost
@_time_limit()
@_linking
@click.option("--determined", is_flag=True,
              help="Test each name found (ip, mip): does an equally good naming name the item otherwise? One more "
                   "solve per item (and a second, without presolve, to confirm one that finds none), each with "
                   "--time-limit. The report lists the items no such naming renames (with "
                   "exact frequencies and no --unmatched-cost the names the attacker can be sure of; otherwise the "
                   "names of the unique best naming, which may still be wrong), apart from the items an equally good naming names "
                   "otherwise and those whose test stopped at the time limit.")
@click.option("--round", "round_seed", type=SEED, metavar="SEED",
              help="With lp: write a naming drawn from the votes by §3's procedure (seeded) instead of the votes.")
@click.option("--truth", type=click.Path(dir_okay=False), help="The true mapping (from `audit rename`): report the accuracy.")
@click.option("--anonymized", is_flag=True,
              help="RENAMED is a release an anonymization removed items from: the --truth mapping may lack the "
                   "published items it lost, which count as not named.")
@click.option("--report", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write a JSON report here ('-' for stdout).")
@_format
def deanonymize(input_path, itemsets_path, sigma, output, method, max_size, tolerance, unmatched_cost,
                time_limit, linking, determined, round_seed, truth, anonymized, report, fmt):
    """Name the items of RENAMED from frequent itemsets published under their original names
    (Problem 2), by the integer program of §2 or its relaxations (§3). A published itemset more
    frequent than a published subset (by more than twice --tolerance), which no database holds,
    is left out of the program and counted in a note. The naming and the report are written
    together or not at all."""
    check_settings(method, tolerance, unmatched_cost, time_limit, linking)
    if method == "lp" and determined:
        raise ParameterError("determined", "needs a naming: --method ip or mip")
    if method != "lp" and round_seed is not None:
        raise ParameterError("round", "draws a naming from the votes of --method lp")
    if anonymized and truth is None:
        raise ParameterError("anonymized", "says how to score against --truth; give --truth")
    distinct_outputs({"--output": output, "--report": report})
    inputs = (input_path, itemsets_path) + ((truth,) if truth else ())
    check_output(output, "--output", inputs)
    if report is not None:
        check_output(report, "--report", inputs)
    # HiGHS prints some of its diagnostics to descriptor 1 whatever its options say (QA: a line in
    # a naming written to standard output)
    keep_stdout_for_data(output, report)
    # read once: counted, then parsed (QA: a pipe, --itemsets <(...), was read empty the second time)
    published_text = read_utf8(itemsets_path)
    _check_itemset_count(itemsets_path, published_text, max_size)
    published = ItemsetCollection.load(itemsets_path, published_text)
    _check_shares(itemsets_path, published)
    names = _load_mapping(truth) if truth else None
    largest = int(published.sizes.max())
    size = largest if max_size is None else min(max_size, largest)
    if size < int(published.sizes.min()):
        # no itemset left to match: the mismatch's advice failed on it, and an unmatched cost named nothing
        raise ParameterError("max-size", f"{max_size}: every itemset of {itemsets_path} holds "
                                         f"{int(published.sizes.min())} items or more, so none is left to match")
    if size < largest:
        # an item held only by larger itemsets is not published to this attack: kept, it was
        # counted among the published items, in the accuracy's denominator too, and --truth
        # had to name it (QA as an auditor)
        published = published.restrict(published.sizes <= size).over_held_labels()
    published, impossible_lines = _leave_out_impossible(published, tolerance)
    window = read_window(input_path, fmt)
    mined = _mine(window, sigma, size)
    if not len(mined):
        # every itemset would stay unmatched (or none could be): an empty naming that looks like a result
        raise ParameterError("sigma", f"{sigma!r}: no itemset of {shown_path(input_path)} is that frequent, so there "
                                      "is nothing to match the published itemsets with")
    absent = None if names is None else _check_mapping(truth, names, published, window, input_path, anonymized)
    naming = solve(published, mined, method=method, tolerance=tolerance, unmatched_cost=unmatched_cost,
                   time_limit=time_limit, linking=linking, determine=determined)
    if round_seed is None:
        pairs = naming.pairs()
    else:
        pairs = [(a, b, 1.0) for a, b in sorted(naming.rounded(np.random.default_rng(round_seed)).items())]
    body = _report_body(naming, published, mined, pairs, linking, determined, round_seed, names, absent, tolerance,
                        unmatched_cost, impossible_lines)
    outputs = [(output, text_bytes(output, "".join(f"{label_text(a)} {label_text(b)} {w:.6g}\n" for a, b, w in pairs)))]
    if report is not None:
        outputs.append((report, text_bytes(report, json.dumps(body, indent=2) + "\n")))
    write_outputs(outputs)
    click.echo(_summary_line(naming, body, len(published.labels), time_limit), err=True)


#: the outcomes of --determined's test of a name, as Naming fields and report keys
VERDICTS = ("determined", "named_otherwise", "unsettled")

#: how many lines of impossible itemsets the report lists (the first in the file)
REPORTED_LINES = 10


def _leave_out_impossible(published: ItemsetCollection, tolerance: float) -> tuple[ItemsetCollection, list[int]]:
    """The published itemsets less those more frequent than a published subset by more than
    twice the tolerance (:func:`impossible_itemsets`), and the file's lines of those left out,
    ascending. Each is false, or noisier than the tolerance (or its subset is), so it cannot be
    matched within the tolerance as the truth would be; kept, it makes the program infeasible
    without an unmatched cost, and with one it can be matched in place of its subset. The note
    names how many and the first line, never an item."""
    impossible = impossible_itemsets(published, tolerance)
    if not impossible.any():
        return published, []
    positions = sorted(np.flatnonzero(impossible).tolist(), key=published.lines.__getitem__)
    lines = [published.lines[j] for j in positions]
    by = "" if tolerance == 0 else f" by more than twice --tolerance ({2 * tolerance:g})"
    note(f"{counted(len(lines), 'published itemset')} {_verb(len(lines), 'is')} more frequent than a published "
         f"subset{by}, which no database allows (the first on {published.origin(positions[0])}): left out of the "
         "program")
    return published.restrict(~impossible).over_held_labels(), lines


def _report_body(naming: Naming, published, mined, pairs, linking, determined, round_seed, names, absent,
                 tolerance, unmatched_cost, impossible_lines: list[int]) -> dict:
    body = {
        "method": naming.method,
        "linking": linking,
        "optimal": naming.optimal,
        "status": naming.status,
        "objective": naming.objective,
        "published_itemsets": len(published),
        "mined_itemsets": len(mined),
        "published_items": len(published.labels),
        "renamed_items": len(mined.labels),
        "named_items": sum(1 for _, _, w in pairs if w > 0.5) if naming.method != "lp" or round_seed is not None else None,
        "pairs_before_pruning": naming.pairs_before_pruning,
        "variables": naming.variables,
        "constraints": naming.constraints,
        "seconds": naming.seconds,
        "tolerance": tolerance,
        "unmatched_cost": unmatched_cost,
        "unique_singleton_items": unique_singletons(published, tolerance),
        "impossible_itemsets": len(impossible_lines),
        "impossible_itemset_lines": impossible_lines[:REPORTED_LINES],
    }
    if determined:
        # a unique best naming is certain only when every published itemset is true and none is
        # missing: with noise or unmatched itemsets the best naming can itself be wrong (QA), and an
        # impossible itemset left out shows the release holds false ones, which the rest may too (review)
        body["determined_certain"] = tolerance == 0 and unmatched_cost is None and not impossible_lines
        for verdict in VERDICTS:
            labels = getattr(naming, verdict)
            body[f"{verdict}_items"] = None if labels is None else len(labels)
            body[verdict] = None if labels is None else list(labels)
    if names is not None:
        body["accuracy"] = naming.accuracy(names)
        body["published_items_not_renamed"] = absent
        body["uniform_accuracy"] = naming.uniform_accuracy(names)
        if round_seed is not None:
            body["rounded_accuracy"] = sum(names.get(a) == b for a, b, _ in pairs) / max(1, len(published.labels))
    return body


def _summary_line(naming: Naming, body: dict, items: int, time_limit: float | None) -> str:
    line = f"{naming.method}: {'optimal' if naming.optimal else 'not proven optimal'}, {naming.variables} variables, " \
           f"{naming.seconds:.2f} s; {body['unique_singleton_items']} of {items} published items " \
           f"{_verb(body['unique_singleton_items'], 'has')} a unique singleton frequency"
    if "determined" in body:
        if naming.determined is None:
            line += "; names not tested (the naming is not proven optimal)"
        else:
            assert naming.named_otherwise is not None and naming.unsettled is not None  # determine_names sets all three
            limit = "" if time_limit is None else f" of {time_limit:g} s per solve"
            kind = "names determined" if body["determined_certain"] else \
                f"names determined (the unique best naming's: not certain with " \
                f"{_uncertainty(body['tolerance'], body['unmatched_cost'], body['impossible_itemsets'])})"
            line += (f"; {len(naming.determined)} of {items} {kind}, {len(naming.named_otherwise)} named "
                     f"otherwise by an equally good naming, {len(naming.unsettled)} not settled within the time "
                     f"limit{limit}")
            # only names are tested: without this the three kinds summed short of the published items
            # (auditor's walkthrough: an anonymized release that lost 19 of mushroom's 28)
            unnamed = items - len(naming.determined) - len(naming.named_otherwise) - len(naming.unsettled)
            if unnamed:
                line += f", {counted(unnamed, 'published item')} not named"
    elif body["named_items"] is not None and body["named_items"] < items:
        # an unmatched cost may leave every published itemset unmatched: an empty naming written
        # with exit 0 and no word said it, where no mined itemset at all is refused (coverage pass)
        line += f"; {items - body['named_items']} of {items} published items not named"
    # three decimals: the report keeps full precision, and a share of a few dozen items has no more
    if "accuracy" in body:
        line += f"; accuracy {body['accuracy']:.3f} (uniform vote {body['uniform_accuracy']:.3f})"
        if body["published_items_not_renamed"]:
            line += (f", counting as not named the {counted(body['published_items_not_renamed'], 'published item')} "
                     "RENAMED does not hold")
    if "rounded_accuracy" in body:
        line += f"; rounded naming's accuracy {body['rounded_accuracy']:.3f}"
    return line


def _uncertainty(tolerance: float, unmatched_cost: float | None, impossible: int = 0) -> str:
    """What makes a determined name the unique best naming's rather than certain: the options
    given (naming one not given sent users looking for it, privacy-auditor review) and the
    impossible itemsets left out, which show the release holds false itemsets."""
    given = [option for option, makes_uncertain in (("--tolerance", tolerance > 0),
                                                    ("--unmatched-cost", unmatched_cost is not None)) if makes_uncertain]
    if impossible:
        given.append(f"{counted(impossible, 'published itemset')} no database allows")
    return " and ".join(given) if len(given) < 3 else f"{', '.join(given[:-1])} and {given[-1]}"


def _mine(window, sigma, max_size) -> ItemsetCollection:
    try:
        return ItemsetCollection.mine(window, sigma, max_size)
    except MiningTooLarge as exc:
        raise _too_many_itemsets(exc, max_size) from None


def _too_many_itemsets(exc: MiningTooLarge, max_size) -> ParameterError:
    # "set --max-size" would tell a user who gave one to give it again
    advice = "set --max-size" if max_size is None else "give a smaller --max-size"
    return ParameterError("sigma", f"{exc}: raise it or {advice}")


def _load_mapping(path: str) -> dict[str, str]:
    """f as ``audit rename`` writes it: a bijection (Definition 2), so neither label repeats."""
    names: dict[str, str] = {}
    line_of: dict[str, int] = {}
    for number, fields in label_lines(path):
        if len(fields) != 2:
            raise InputError(path, "a mapping line holds an original and a renamed label", number)
        original, renamed = fields
        if original in names:
            raise InputError(path, "the original label is mapped twice", number)
        if renamed in line_of:
            raise InputError(path, f"the renamed label is also the image of line {line_of[renamed]}: "
                                   "f is a bijection", number)
        names[original] = renamed
        line_of[renamed] = number
    if not names:
        raise InputError(path, "no mapping lines: `audit rename --mapping` writes one per item")
    return names


def _check_itemset_count(path, text: str, max_size) -> None:
    """Refuse, before parsing it, an itemset file (``text``, read from ``path``) with more itemsets
    than the program's pair budget: without an unmatched cost each needs a pair, and with one each
    is a variable of its own."""
    count = count_itemsets(text, max_size)
    if count > MAX_PAIRS:
        within = "" if max_size is None else f" of at most {max_size} items"
        raise InputError(path, f"{count:,} itemsets{within}, more than the program's budget of {MAX_PAIRS:,} "
                               "itemset pairs: publish at a higher sigma or give a smaller --max-size")


def _check_shares(path, published: ItemsetCollection) -> None:
    """Refuse an itemset file none of whose frequencies any itemset could match at any
    tolerance: it holds counts, not shares (QA), and the attack's advice to widen the tolerance
    or allow unmatched itemsets could not help. Noisy shares may pass 1, one or a few of them."""
    bound = 1 + MAX_TOLERANCE
    if (published.frequencies > bound).all():
        raise InputError(path, f"every frequency is above {bound:g}, where no itemset's is at any tolerance: "
                               "write each as a share of the transactions (its count divided by their number), "
                               "not as a count")


# Neither check prints a label: the mapping is the owner's secret.
def _check_mapping(path, names: dict[str, str], published, window, input_path, anonymized: bool) -> int:
    """Refuse a mapping that is not of RENAMED: it lacks a published item (the accuracy would
    blame the attack for the wrong file; with integer labels any other mapping overlaps), or it
    renames a published item to no item of RENAMED. With ``anonymized`` (the owner's audit of a
    release an anonymization removed items from) it may lack published items, which count as
    not named, when it holds exactly RENAMED's items and at least one published item: no check
    of the files can tell this from another data's mapping of as many items (renamed labels are
    1..|I|), so the user says it. Returns how many published items the mapping lacks."""
    items = set(window.vocab.labels)
    missing = sum(1 for label in published.labels if label not in names)
    could_be_release = set(names.values()) == items and missing < len(published.labels)
    if missing and not (anonymized and could_be_release):
        # the flag is offered only where it would be accepted, and as a question: the user, not
        # the files, knows whether RENAMED is a release of the published data (QA as an auditor:
        # the owner's audit of a coherence release met this refusal with no word of --anonymized)
        hint = " (or, if RENAMED is an anonymized release of the published data that lost them, " \
               "give --anonymized)" if could_be_release and not anonymized else ""
        raise InputError(path, f"{missing} of the {len(published.labels)} published items {_verb(missing, 'has')} no "
                               f"line in the mapping: is it the mapping of this data?{hint}")
    foreign = sum(1 for label in published.labels if label in names and names[label] not in items)
    if foreign:
        raise InputError(path, f"{foreign} of the {len(published.labels)} published items {_verb(foreign, 'is')} "
                               f"renamed to no item of {shown_path(input_path)}: is it the mapping of this data?")
    return missing


def _verb(count: int, singular: str) -> str:
    """``1 of the 5 items has``, ``2 of the 5 items have``: the verb agrees with the count."""
    return singular if count == 1 else {"has": "have", "is": "are"}[singular]


def _progress(runs: int):
    def report(row: dict) -> None:
        if row["too_large"]:
            outcome = "no program: past the budget of itemset pairs"
        elif row["solver_failed"]:
            outcome = "no naming: the solver failed"
        elif row["infeasible"] or row["timed_out"]:
            outcome = "no naming" if row["infeasible"] else "no naming within the time limit"
        else:
            outcome = f"accuracy {row['accuracy']:.3f}, {row['seconds']:.2f} s"
        click.echo(f"  run {row['run'] + 1}/{runs}, noise {row['noise']:g}, {row['method']}: {outcome}", err=True)

    return report


def _whole(value: float | None) -> str | None:
    """A mean count as the table shows it: whole, with thousands separators (print_table would
    write 58320.0 as 5.832e+04)."""
    return None if value is None else f"{round(value):,}"


def _noises(text: str) -> list[float]:
    """--noise of bench audit: distinct standard deviations in [0, MAX_NOISE]."""
    try:
        if not written_plainly(text):
            raise ValueError
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise ParameterError("noise", f"{text!r} is not a comma-separated list of numbers (none of them "
                                      "empty)") from None
    if not all(0 <= v <= MAX_NOISE for v in values):
        raise ParameterError("noise", f"{text!r}: give one or more standard deviations in [0, {MAX_NOISE:g}]")
    refuse_repeats("noise", values)
    return values


def _methods(text: str) -> list[str]:
    """--methods of bench audit: distinct names from METHODS."""
    methods = [m.strip() for m in text.split(",")]
    if not methods or not set(methods) <= set(METHODS):
        raise ParameterError("methods", f"{text!r}: give a comma-separated subset of {', '.join(METHODS)}")
    refuse_repeats("methods", methods)
    return methods


def _check_tolerance(tolerance_sds: float, noises: list[float]) -> None:
    if tolerance_sds * max(noises) > MAX_TOLERANCE:
        raise ParameterError("tolerance-sds", f"{tolerance_sds!r} standard deviations of noise {max(noises)!r} is a "
                                              f"tolerance above {MAX_TOLERANCE:g}, wider than any two frequencies "
                                              "differ; give fewer or smaller noise levels")


@click.command("audit")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@_sigma_option("Frequency the itemsets are published and mined at.")
@_max_size("Largest itemset published and mined (default: no limit).")
@click.option("--noise", "noise_text", default="0,0.01,0.02,0.05,0.1", show_default=True,
              help=f"Comma-separated distinct standard deviations, in [0, {MAX_NOISE:g}], of the noise on the "
                   "published frequencies.")
@click.option("--methods", "method_text", default=",".join(METHODS), show_default=True,
              help="Comma-separated distinct methods.")
@click.option("--runs", type=IntRange(min=1), default=10, show_default=True,
              help="Runs per setting, each with its own renaming and noise.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of every run's renaming, noise, omitted and false itemsets.")
@click.option("--tolerance-sds", type=FloatRange(0, MAX_TOLERANCE_SDS, min_open=True), default=4.0, show_default=True,
              help=f"The attacker's tolerance, in standard deviations of the noise (times the noise at most "
                   f"{MAX_TOLERANCE:g}).")
@_omit
@_add
@_unmatched_cost
@_time_limit(60.0)
@click.option("--determined", is_flag=True,
              help="Also report the shares of names no equally good naming changes and of names whose test stopped "
                   "at the time limit (ip, mip).")
@_linking
@_format
@json_option()
def bench_audit(input_path, sigma, max_size, noise_text, method_text, runs, seed, tolerance_sds, omit, add,
                unmatched_cost, time_limit, determined, linking, fmt, json_path):
    """Mielikäinen's §4 experiment on INPUT: accuracy of the ip, mip and lp attacks against the
    noise on the published frequencies, next to a uniform vote."""
    noises = _noises(noise_text)
    methods = _methods(method_text)
    if determined and not set(methods) - {"lp"}:
        raise ParameterError("determined", "needs a naming: --methods with ip or mip")
    _check_tolerance(tolerance_sds, noises)
    for method in methods:
        check_settings(method, tolerance_sds * max(noises), unmatched_cost, time_limit, linking)
    check_bench_files(json_path, (input_path,))
    window = read_window(input_path, fmt)
    started_on = machine()  # the load average as the runs start, not as they end
    try:
        frequent, rows = experiment(window, sigma, max_size=max_size, noises=noises, methods=methods, runs=runs,
                                    seed=seed, tolerance_sds=tolerance_sds, time_limit=time_limit, omit=omit,
                                    add=add, unmatched_cost=unmatched_cost, linking=linking,
                                    determine=determined, progress=_progress(runs))
    except MiningTooLarge as exc:
        raise _too_many_itemsets(exc, max_size) from None
    table = summary(rows)
    sizes = np.bincount(frequent.sizes)
    click.echo(f"# {Path(input_path).name}: {counted(len(window), 'transaction')}; sigma={sigma:g}: "
               f"{counted(len(frequent), 'frequent itemset')} over {counted(len(frequent.labels), 'item')} (by size: "
               f"{', '.join(str(int(c)) for c in sizes[1:])}); {counted(runs, 'run')} per setting, seed {seed}")
    click.echo(f"# linking {linking}, tolerance {tolerance_sds:g} sd, omit {omit:g}, add {add:g}, time limit {time_limit:g} s; "
               f"{started_on}")
    columns = ["noise", "method", "runs", "accuracy", "sd", "uniform"]
    columns += ["determined", "unsettled"] if determined else []
    shown = [{**row, "variables": _whole(row["variables"])} for row in table]
    print_table(shown, columns + ["not_optimal", "no_naming_in_time", "infeasible", "too_large", "solver_failed",
                                  "variables", "seconds"])
    refused = [row["refused"] for row in rows if row["too_large"]]
    if refused:
        note(f"{counted(len(refused), 'run')} scored 0 with no program, the first because {refused[0]}")
    failed = [row["refused"] for row in rows if row["solver_failed"]]
    if failed:
        note(f"{counted(len(failed), 'run')} scored 0 where the solver failed, the first with: {failed[0]}")
    if json_path is not None:
        # the machine and the seed, as the header and bench rho's JSON give them (a user walkthrough:
        # the rows held neither, and no run can be drawn again without the seed)
        body = {"machine": started_on, "seed": seed, "sigma": sigma, "max_size": max_size,
                "itemsets": len(frequent), "items": len(frequent.labels), "rows": rows, "summary": table}
        write_json(json_path, body)
