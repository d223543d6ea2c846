"""The ``setveil`` command line.

Core commands live here; plugins and the streaming service add theirs through the
``setveil_register_commands`` hook, so this module imports neither.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import math
import numbers
import sys
import time
from dataclasses import replace
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click
import numpy as np

from .. import __version__
from .clitypes import SEED, IntRange, keep_stdout_for_data
from .engine import Pipeline, window_rng
from .errors import (InputError, ParameterError, PluginError, SetveilError, WindowRejected, also_lines, counted,
                     shown_path)
from .formats import (FORMATS, MERGED_RELEASE_FIELDS, RELEASE_FIELDS, detect_format, fimi_carries, named_format,
                      read_window, read_window_and_subjects, refuse_unreadable, render_window, written_compression)
from .labeltext import check_user_file, read_utf8
from .mining import MiningTooLarge
from .model import Context, PrivacyModel, Violation
from .orphans import signals_held
from .output import check_output, distinct_outputs, guard_standard_streams, text_bytes, write_outputs
from .params import Parameter, as_typed, parse_assignments, shown_value
from .plugins import (Configured, call_each, get_plugin_manager, get_registry, misfiled_entry_points, model_call,
                      path_parameters, plugin_errors, plugin_hooks, plugin_prints_to_stderr, smallest_window_of)
from .reportjson import json_value, report_text
from .schema import ItemSchema, misspelt
from .subjects import Subject, merge_window, spelt_apart
from .verify import release_violations, structure_violations
from .window import Tid, Window, detached


def printable(message: object) -> str:
    """``message`` with every character that is not printable escaped (``\\n``, ``\\x1b``): a
    file name may hold a line end or a terminal escape, and an error or a note is one line that
    cannot rewrite the terminal (QA: a name with a newline forged a second line)."""
    text = str(message)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def error_line(message: object) -> str:
    return f"setveil: error: {printable(message)}"


def note(message: str) -> None:
    click.echo(f"setveil: note: {printable(message)}", err=True)


def warning(message: str) -> None:
    click.echo(f"setveil: warning: {printable(message)}", err=True)


class SetveilGroup(click.Group):
    """A group that turns :class:`SetveilError` into a one-line message and its exit status, and
    loads the plugins when a command is named: ``--version`` and the group's own help run without
    them, so that a broken plugin leaves the user the help that says how to find it."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SetveilError as exc:
            click.echo(error_line(exc), err=True)
            ctx.exit(exc.exit_code)

    def resolve_command(self, ctx, args):
        try:
            _load_plugins()
        except PluginError as exc:
            # the help of setveil's own command says how to run it, `setveil plugins` included,
            # which finds the broken plugin; the command itself, and a plugin's, stops on it
            command = self.commands.get(args[0]) if args and args[0] in _own_commands() else None
            if command is None or not _asks_for_help(ctx, command, args[0], args[1:]):
                raise
            warning(_broken_plugin_note(exc, isinstance(command, click.Group)))
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx):
        # shell completion lists the commands without resolving one: without the plugins it
        # offered anonymize, bench, plugins and verify, not serve, demo or a plugin's own. A broken
        # plugin is for the help's warning and for the command named to report, not a completion's
        with contextlib.suppress(PluginError):
            _load_plugins()
        return super().list_commands(ctx)

    def format_commands(self, ctx, formatter):
        try:
            _load_plugins()
        except PluginError as exc:
            warning(_broken_plugin_note(exc, lists_commands=True))
        super().format_commands(ctx, formatter)


def _broken_plugin_note(exc: PluginError, lists_commands: bool) -> str:
    """The warning above a help that a broken plugin leaves shown."""
    missing = "; commands that plugins add may be missing below" if lists_commands else ""
    return f"{exc} (every command stops on it until it is fixed or uninstalled{missing})"


def _asks_for_help(ctx: click.Context, command: click.Command, name: str, args: list[str]) -> bool:
    """Whether ``args`` ask ``command`` for its help as click's parser reads them: a ``--help``
    that is an option's value (``-o --help``) or a subcommand's (``bench run --help``) does not,
    nor does one among arguments the command refuses, on which click stops before any help."""
    own = click.Context(command, info_name=name, parent=ctx)
    help_option = command.get_help_option(own)
    if help_option is None:
        return False
    try:
        given, _, _ = command.make_parser(own).parse_args(list(args))
    except click.UsageError:
        return False
    return help_option.name is not None and bool(given.get(help_option.name))


@click.group(cls=SetveilGroup)
@click.version_option(package_name="setveil")
def cli():
    """setveil: anonymize transaction (set-valued) data, offline or as a Kafka service."""


def model_options(required: bool = True, fanout: bool = True,
                  policy_help: str = "Suppression/generalization policy; the model's default if omitted."):
    """The options that choose and configure a model; shared by anonymize, verify and serve.
    With ``fanout`` False, ``--fanout`` is left out of the help (a service worker refuses it, and
    says why when it is given)."""

    def decorate(func):
        options = [
            click.option("--model", "-m", "model", required=required, help="Privacy model (see `setveil plugins`)."),
            click.option("--policy", help=policy_help),
            click.option("-P", "--param", "params", multiple=True, metavar="NAME=VALUE", help="Model or policy parameter."),
            click.option("--sensitive", type=click.Path(dir_okay=False),
                         help='Sensitive (private) items, one label per line ("a JSON string" when it holds blanks).'),
            click.option("--public", type=click.Path(dir_okay=False), help="Public items, one per line; default: all non-sensitive."),
            click.option("--hierarchy", type=click.Path(dir_okay=False), help="Generalization hierarchy file (child,parent lines)."),
            click.option("--fanout", type=IntRange(min=2), hidden=not fanout,
                         help="Build a balanced hierarchy of this fan-out over the items."),
        ]
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def build_context(sensitive, public, hierarchy, fanout) -> Context:
    if public is not None and sensitive is None:
        raise InputError(public, "--public needs --sensitive as well")
    if hierarchy is not None and fanout is not None:
        raise ParameterError("fanout", "give either --hierarchy or --fanout, not both")
    for option, path in (("sensitive", sensitive), ("public", public), ("hierarchy", hierarchy)):
        if path is not None:
            check_user_file(path, option)
    schema = ItemSchema.from_files(sensitive, public) if sensitive is not None else None
    if hierarchy is not None:
        refuse_unreadable(hierarchy)
    return Context(schema=schema, hierarchy_file=None if hierarchy is None else Path(hierarchy), fanout=fanout)


def refuse_unused_files(model, sensitive, public, hierarchy, fanout) -> None:
    """Item classes or a hierarchy given to a model that reads neither is a mistake (the user
    expects them to matter), so it is refused rather than ignored."""
    cls = get_registry().model_class(model)
    if (sensitive is not None or public is not None) and not cls.needs_schema:
        # a public list alone was told it needed --sensitive, which the model refuses too (QA re-check)
        raise ParameterError("sensitive" if sensitive is not None else "public",
                             f"model {model!r} does not classify items: drop --sensitive and --public")
    if (hierarchy is not None or fanout is not None) and not cls.needs_hierarchy:
        # the option given is named, as the item lists are above
        raise ParameterError("hierarchy" if hierarchy is not None else "fanout",
                             f"model {model!r} does not generalize: drop --hierarchy and --fanout")


def configure(model, policy, params, sensitive, public, hierarchy, fanout, *, named_files: bool = False) -> Configured:
    """Validate the whole run (model, policy, parameters, item and hierarchy files) before reading
    data; ``named_files`` as :meth:`Registry.configure` takes it."""
    refuse_unused_files(model, sensitive, public, hierarchy, fanout)
    raw = parse_assignments(params)
    get_registry().validate(model, policy, raw)
    context = build_context(sensitive, public, hierarchy, fanout)
    refuse_empty_sensitive(context, sensitive)
    configured = get_registry().configure(model, policy, raw, context, named_files=named_files)
    if configured.model.needs_hierarchy and context.hierarchy_file is not None:
        # parse the hierarchy file before any data is read, so its errors come first
        configured.use_context(replace(context, hierarchy=context.file_hierarchy))
    return configured


def refuse_empty_sensitive(context: Context, sensitive) -> None:
    """The models that take a sensitive list need its items: an empty one protects nothing, and is
    known before the data is read (QA: refused only after reading 50 MB)."""
    if context.schema is not None and not context.schema.private:
        raise InputError(sensitive, "lists no items, so nothing would be protected")


def check_listed_items(configured: Configured, original: Window, sensitive, public, source) -> None:
    """Refuse an item list none of whose items occur in the input (:func:`configure` refused an
    empty sensitive list), or one that writes in quotes a label the input spells with them; note
    an empty public list, items of a list that never occur, and what
    the model notes (:meth:`~setveil.core.model.PrivacyModel.input_notes`). A misspelt or mis-encoded label
    leaves the item it meant unprotected while the release still passes its check, and with
    every label misspelt the release is the input (QA: a lower-case list, and a UTF-16 file read
    as UTF-8, were released raw). Counts only, no labels."""
    notes = []
    schema = configured.model.context.schema
    if schema is not None:
        for path, labels, quoted, first_lines, consequence in (
                (sensitive, schema.private, schema.private_quoted, schema.private_lines, "nothing would be protected"),
                (public, schema.public, schema.public_quoted, schema.public_lines, "no item would be public")):
            if path is None:
                continue
            if not labels:
                notes.append(f"{path} lists no items, so {consequence}")
                continue
            missing = sum(1 for label in labels if label not in original.vocab)
            # a listed "x" is the JSON string x; an item spelt with its quotes is then unlisted (QA),
            # which the list's own lines tell from a bare x listed over a larger domain (QA re-check)
            suspects = frozenset(label for label in labels if label not in original.vocab
                                 and f'"{label}"' in original.vocab)
            if suspects and (lines := sorted(line for label in suspects for line in quoted.get(label, ()))):
                raise InputError(path, f"the label is a JSON string, read as the text between its quotes, while "
                                       f"{shown_path(source)} holds an item spelt with the quotes: list that item as "
                                       f'"\\"x\\"" for "x"' + also_lines(lines), lines[0])
            # the misspelt line first: a list of one label typed in lower case was refused as none
            # occurring, naming no line and no cause a reader can see (san74's report)
            _refuse_variants(path, labels, schema.listed, first_lines, original, source)
            if missing == len(labels):
                raise InputError(path, f"none of the {len(labels)} items it lists occur in {shown_path(source)}, so "
                                       f"{consequence}: labels must match the input's exactly, case included")
            if missing:
                notes.append(f"{missing} of the {len(labels)} items listed in {path} never occur in "
                             f"{shown_path(source)}")
    notes += model_call(configured.model, "input_notes", detached(original)[0], shown_path(source))
    for line in notes:
        note(line)


def _refuse_variants(path, labels: frozenset[str], listed: frozenset[str], first_lines: Mapping[str, int],
                     original: Window, source) -> None:
    """Refuse a listed label that the input spells otherwise, only (in another case, Unicode form
    or with an invisible character) or as well (in another Unicode form or with an invisible
    character): :func:`~setveil.core.schema.misspelt`; QA: a list of NFD labels over NFC data was
    only noted; review: a byte-order mark before some records' listed label was not even noted.
    A spelling that ``listed``, every item list of the run, gives is no misspelling. Names the
    line, never a label."""
    misspelt_labels = misspelt(labels, original.vocab, listed)
    if not misspelt_labels:
        return
    first = min(misspelt_labels, key=lambda label: first_lines.get(label, 0))
    lines = sorted(first_lines.get(label, 0) for label in misspelt_labels)
    if first in original.vocab:
        problem = (f"{shown_path(source)} also spells the item in another Unicode form or with an invisible "
                   "character, which the list does not give: list each spelling the input uses")
    else:
        problem = (f"the label never occurs in {shown_path(source)}, which holds it in another case, Unicode form or "
                   "with an invisible character: list it exactly as the input spells it")
    raise InputError(path, problem + also_lines(lines), lines[0] or None)


def note_shared_subjects(subjects: Sequence[Subject | None], source) -> None:
    """Note records that share a ``subject`` when they are not merged: each record is then a
    transaction of its own to every model, so a person with several records is several
    transactions, and the guarantee is per record, not per person (QA as a new user: a clinic's
    JSONL with a subject per patient was protected visit by visit, with no word). Counts only,
    never a subject."""
    given, distinct = subject_counts(subjects)
    if distinct < given:
        note(f"{given} records of {shown_path(source)} carry a subject, {distinct} distinct: each record is a "
             "transaction of its own and the guarantee holds per record, not per subject; give --merge-subjects "
             "to make each subject's records one transaction")


def warn_subjects_spelt_apart(subjects: Sequence[Subject | None], source,
                              merged: str = "each is merged apart") -> None:
    """Warn, by a count alone, of subjects that spell another's name otherwise
    (:func:`~setveil.core.subjects.spelt_apart`): merged apart, as the service merges them, one
    person is two transactions and counts twice towards k (review: " 7" and "7", an NFC and an
    NFD name). ``merged``: who merges them so, for ``replay``, whose workers do."""
    if apart := spelt_apart(subjects):
        warning(f"{shown_path(source)}: {counted(apart, 'subject')} spelt like another but for type, blanks or "
                "Unicode form (7 and \"7\", \" 7\" and \"7\", an NFC and an NFD \"é\"): subjects compare exactly, so "
                f"{merged} and its person counts twice towards k; give each person one spelling")


def subject_counts(subjects: Sequence[Subject | None]) -> tuple[int, int]:
    """How many records carry a subject, and how many subjects they carry."""
    given = [subject for subject in subjects if subject is not None]
    return len(given), len(set(given))


def refuse_too_few_subjects(merged: Window, subjects: Sequence[Subject | None], smallest: int,
                            configured: Configured, source) -> None:
    """A merged file of fewer transactions than the model needs of a window has no safe release,
    and the model's own refusal would advise windows of more transactions, which no --window can
    give: what the file lacks is subjects (QA: k=5 on three patients' visits)."""
    if len(merged) >= smallest:
        return
    given, distinct = subject_counts(subjects)
    raise SetveilError(f"{shown_path(source)}: --merge-subjects made its {counted(len(subjects), 'record')} "
                       f"{counted(len(merged), 'transaction')} ({counted(distinct, 'subject')}, "
                       f"{counted(len(subjects) - given, 'record')} without one), fewer than the {smallest} model "
                       f"{configured.model.name!r} needs of a window, nothing written: the guarantee is per "
                       f"subject, so the file needs at least {smallest} subjects (a record without a subject "
                       "counts as one)")


def refuse_too_few_transactions(original: Window, smallest: int, configured: Configured, source) -> None:
    """An input of fewer transactions than the model needs of a window has no safe release, and the
    model's own refusal advised windows of at least k transactions, which no --window can give
    when the whole input is shorter (user walkthrough: kanonymity at k=2 over one transaction)."""
    if len(original) >= smallest:
        return
    raise SetveilError(f"{shown_path(source)}: {counted(len(original), 'transaction')}, fewer than the {smallest} "
                       f"model {configured.model.name!r} needs of a window, nothing written: the input itself is "
                       "shorter than the smallest window with a safe release, which no --window changes")


def merge_option(func):
    """``--merge-subjects``, shared by anonymize and verify."""
    return click.option("--merge-subjects", is_flag=True,
                        help="Merge the records of each subject into one transaction before the model sees them, "
                             "as the service's window.merge_subjects does (JSONL and msgpack input).")(func)


def read_records(path, fmt: str | None, merge_subjects: bool
                 ) -> tuple[Window, list[Subject | None], list[list[Tid] | None] | None, str | None]:
    """The transactions of ``path``, its records' subjects, each transaction's tids when merged,
    and the file's compression (``"gzip"`` or None): a transaction per record, or with
    ``merge_subjects`` the records of each subject merged into one
    (:func:`~setveil.core.subjects.merge_window`). FIMI holds no subjects, so merging
    one would merge nothing while the user expects a guarantee per subject: it is refused before
    it is read; a file whose records carry no subject at all is noted (a misnamed field)."""
    if merge_subjects and detect_format(path, fmt) == "fimi":
        raise ParameterError("merge-subjects", f"{shown_path(path)} is read as FIMI, which holds no subjects: "
                             "give a JSONL or msgpack file whose records carry a 'subject' (--format)")
    window, subjects, compression = read_window_and_subjects(path, fmt)
    if not merge_subjects:
        return window, subjects, None, compression
    if all(subject is None for subject in subjects):
        note(f"no record of {shown_path(path)} carries a subject: each record stays a transaction of its own")
    warn_subjects_spelt_apart(subjects, path)
    merged, tids = merge_window(window, subjects)
    return merged, subjects, tids, compression


def read_paths(configured: Configured, *paths) -> tuple:
    """Every file a run reads: ``paths`` (the input, item and hierarchy files) and the values of
    the model's and policy's path parameters (``-P restrictive=FILE``), for :func:`check_output`."""
    given = (configured.params.get(name) for name in path_parameters(configured.model, configured.policy))
    return (*paths, *(path for path in given if path is not None))


def pin_hierarchy(configured: Configured, original: Window, source) -> None:
    """Resolve the hierarchy once over the whole input, so every window and the report use the
    same one (a --fanout hierarchy over all items, as `setveil hierarchy build` writes it); an
    item missing from a hierarchy file fails here, before anything is anonymized. A hierarchy
    built over the input blames the input file (``source``) for what is wrong with its items."""
    if not configured.model.needs_hierarchy:
        return
    try:
        configured.use_context(configured.context.pinned(original, None if source is None else shown_path(source)))
    except InputError as exc:
        if exc.path is not None:
            raise
        raise InputError(source, exc.problem, exc.line) from None


def refuse_unwritable_nodes(configured: Configured, original: Window, source, output, fmt: str) -> None:
    """A generalized release may hold any node above its items, so one whose label FIMI cannot
    carry is refused before anything is anonymized (QA: "Health Care" failed the write after the
    whole run, naming line 1 of a file never written). A label holding a NUL (a hierarchy file's
    quoted ``"\\u0000"``) is refused whatever the format: JSONL and msgpack carry it, but no
    record may hold it, so `verify` could not read the release back (QA)."""
    if not configured.model.needs_hierarchy:
        return
    hierarchy = configured.model.context.hierarchy_for(original)
    for label in hierarchy.inner_labels_above(original):
        where = (hierarchy.source, hierarchy.lines.get(label)) if hierarchy.source else (source, None)
        if "\0" in label:
            raise InputError(where[0], "a hierarchy node above the data's items has a label with a NUL, which no "
                             "transaction file may hold, so the release would not read back", where[1])
        if fmt == "fimi" and not fimi_carries(label):
            raise InputError(where[0], f"a hierarchy node above the data's items has a label with whitespace, "
                             f"which the FIMI output {shown_path(output, 'standard output')} cannot carry: "
                             "write JSONL or msgpack (--output-format)", where[1])


def smallest_window(configured: Configured, size: int | None) -> int:
    """The fewest transactions the model needs of a window, with ``--window`` held to it before any
    data is read: every window of fewer transactions has no safe release (the last one too, as it
    joins the one before it only when there is one)."""
    smallest = smallest_window_of(configured.model)
    if size is not None and size < smallest:
        raise ParameterError("window", f"--window {size} is fewer than the {smallest} transactions model "
                             f"{configured.model.name!r} needs of a window; allowed: an integer in [{smallest}, inf)")
    return smallest


def cut_windows(window: Window, size: int | None, smallest: int) -> list[Window]:
    """Consecutive windows of ``size`` transactions. A last window smaller than the model's
    smallest safe one (k transactions) joins the window before it, as the service holds a window
    open until it has that many: a file of 10 transactions in windows of 4 at k=3 is released in
    windows of 4 and 6, where a last window of 2 could never be released."""
    if size is None:
        return [window]
    return [_window_at(window, rows) for rows in window_rows(len(window), size, smallest)]


def window_rows(n: int, size: int | None, smallest: int) -> list[np.ndarray]:
    """The positions of the transactions of each window :func:`cut_windows` cuts of ``n``."""
    if size is None:
        return [np.arange(n)]
    starts = list(range(0, n, size))
    if len(starts) > 1 and n - starts[-1] < smallest:
        starts.pop()
    return [np.arange(start, stop) for start, stop in zip(starts, [*starts[1:], n])]


def _window_at(window: Window, rows: np.ndarray) -> Window:
    """The transactions at ``rows``, each keeping its tid: a file without tids numbers them by
    position, as :meth:`Window.slices` does."""
    part = window.take(rows)
    return part if part.tids is not None else part.with_tids(rows.tolist())


def window_id_lines(path) -> list[str]:
    """The lines of a file of window ids (``setveil tail --windows``), read before the data is, so
    that a file that cannot be read is named before ORIGINAL and RELEASE are read (QA: 11.7 s
    and 642 MB over 1,000,000 transactions for a missing one)."""
    lines = read_utf8(path).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def named_window_rows(path, lines: list[str], release_path, n: int) -> list[tuple[str, np.ndarray]]:
    """The windows that ``lines``, of the file of window ids ``path`` (:func:`window_id_lines`),
    name, line i the window of the release's transaction i: each id with its transactions'
    positions, in the order the ids first occur. :class:`InputError` when the lines do not pair
    with the release's transactions, naming the file and line."""
    if len(lines) != n:
        raise InputError(path, f"{counted(len(lines), 'window id')}, but {shown_path(release_path)} has "
                               f"{counted(n, 'transaction')}: line i names the window of transaction i")
    rows: dict[str, list[int]] = {}
    for position, name in enumerate(lines):
        if not name.strip():
            raise InputError(path, "no window id", position + 1)
        rows.setdefault(name.strip(), []).append(position)
    return [(name, np.asarray(positions, dtype=np.int64)) for name, positions in rows.items()]


@cli.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("-o", "--output", required=True, type=click.Path(allow_dash=True), metavar="FILE",
              help="Release file ('-' for stdout).")
@model_options()
@click.option("--window", "window_size", type=IntRange(min=1), help="Anonymize consecutive windows of N transactions.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed for every random choice; window i of --window draws from the seed and i (the service: "
                   "the seed and the window id).")
@click.option("--report", type=click.Path(allow_dash=True), metavar="FILE",
              help="Write a JSON report here ('-' for stdout).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")
@click.option("--output-format", type=click.Choice(FORMATS), help="Output format (default: from the suffix).")
@click.option("--no-verify", is_flag=True, help="Skip the independent check (benchmarks only).")
@merge_option
def anonymize(input_path, output, model, policy, params, sensitive, public, hierarchy, fanout, window_size, seed, report,
              fmt, output_format, no_verify, merge_subjects):
    """Anonymize INPUT and write the release to -o OUTPUT.

    Line i of the release is transaction i of the input; a transaction emptied by
    suppression stays as an empty line. With --merge-subjects the transactions are the input's
    subjects, the records of each merged into one where its first record is, and its records
    without a subject, one each: line i of the release is transaction i of those, and --window
    counts them.
    """
    with plugin_prints_to_stderr():  # the model's __init__ runs here
        configured = configure(model, policy, params, sensitive, public, hierarchy, fanout)
    smallest = smallest_window(configured, window_size)
    inputs = read_paths(configured, input_path, sensitive, public, hierarchy)
    check_output(output, "--output", inputs)
    if report is not None:
        check_output(report, "--report", inputs)
        distinct_outputs({"--output": output, "--report": report})
    # from here plugin code runs, and what it prints must not land in the data
    keep_stdout_for_data(output, report)
    pipeline = Pipeline(configured, get_plugin_manager(), verify=not no_verify)
    started = time.perf_counter()
    original, subjects, merged_tids, compression = read_records(input_path, fmt, merge_subjects)
    if merge_subjects:
        refuse_too_few_subjects(original, subjects, smallest, configured, input_path)
    else:
        refuse_too_few_transactions(original, smallest, configured, input_path)
        note_shared_subjects(subjects, input_path)
    check_listed_items(configured, original, sensitive, public, input_path)
    pin_hierarchy(configured, original, input_path)
    refuse_unwritable_nodes(configured, original, input_path, output, detect_format(output, output_format))
    read_seconds = time.perf_counter() - started
    outcomes = []
    first = 0
    for index, window in enumerate(cut_windows(original, window_size, smallest)):
        try:
            outcomes.append(pipeline.run(window, window_rng(seed, index)))
        except WindowRejected as exc:
            # positions, not tids: a tid is the producer's record id and may name a person
            last = first + len(window) - 1
            raise SetveilError(f"window {index} (transactions {first}..{last}) rejected, nothing written: {exc.reason}") from None
        first += len(window)
    released = Window.concat([o.release.window for o in outcomes], vocab=original.vocab).with_tids(original.tids)
    # the report is measured before anything is written, so its failure leaves no release behind
    files = {"input": input_path, "output": output, "sensitive": sensitive, "public": public, "hierarchy": hierarchy}
    formats = {"input": detect_format(input_path, fmt), "output": detect_format(output, output_format)}
    compressions = {"input": compression, "output": written_compression(output)}
    body = None if report is None else _report(configured, files, formats, compressions, fanout, original, released, outcomes,
                                               read_seconds, window_size, seed, merge_subjects, len(subjects))
    outputs = [(output, render_window(released, output, output_format, merged_tids=merged_tids))]
    if body is not None:
        outputs.append((report, _report_bytes(report, {**body, "seconds": time.perf_counter() - started},
                                              configured.model)))
    write_outputs(outputs)
    if body is not None:
        for group, reason in body["metrics"].get("skipped", {}).items():
            note(f"the report has no {group} metrics: {reason}")
    if no_verify:
        # as the worker warns of model.verify=false: a report, if any, is the only other trace
        warning(f"the release was written without the model's independent check (--no-verify): nothing here says "
                f"it satisfies {configured.model.name}")


def _combined_stat(total: Any, value: Any, peak: bool) -> Any:
    """``value``, a window's stat, added to ``total`` over the windows before it (None at first):
    numbers summed, or their largest kept for a ``peak`` stat; counts by key (coherence's moles by
    size) key by key and counts by position (rho's deletions by pass) position by position, as the
    numbers they hold. None for what is neither (it stays in the windows' own entries)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        value = value.item() if isinstance(value, np.generic) else value  # Python ints do not wrap
        return value if total is None else max(total, value) if peak else total + value
    if isinstance(value, Mapping):
        out = dict(total) if isinstance(total, Mapping) else {}
        for key, each in value.items():
            if (combined := _combined_stat(out.get(key), each, peak)) is not None:
                out[key] = combined
        return out
    if isinstance(value, (list, tuple)):
        before = list(total) if isinstance(total, list) else []
        combined = [_combined_stat(a, b, peak) if b is not None else a for a, b in itertools.zip_longest(before, value)]
        return None if None in combined else combined
    return None


def _report(configured, files, formats, compressions, fanout, original, released, outcomes, read_seconds, window_size,
            seed, merge_subjects, records) -> dict[str, Any]:
    model = configured.model
    # the model's loss and metrics get copies: `released` is written after them (QA: a metrics
    # that renumbered its release's ids wrote suppressed items into the file)
    shown = detached(original, released)
    stats: dict[str, Any] = {}
    for outcome in outcomes:
        for key, value in outcome.release.stats.items():
            combined = _combined_stat(stats.get(key), value, key in model.peak_stats)
            if combined is not None:
                stats[key] = combined
    return {
        # what was run, on what: the paths as given (None for a file not given, "-" for stdin/stdout)
        "setveil_version": __version__,
        "files": files,
        "formats": formats,
        "compression": compressions,
        "fanout": fanout,
        "model": model.name,
        "policy": configured.policy.name,
        "params": configured.shown_params(),
        "context": configured.digests(),
        "seed": seed,
        "window": window_size,
        "merge_subjects": merge_subjects,
        "windows": len(outcomes),
        "records": records,
        "transactions": len(original),
        "items_before": original.n_occurrences,
        "items_after": released.n_occurrences,
        "info_loss": _run_loss(model, shown, outcomes),
        "loss_metric": model.loss_metric,
        "read_seconds": read_seconds,
        "anonymize_seconds": sum(o.report["anonymize_seconds"] for o in outcomes),
        "verify_seconds": sum(o.report["verify_seconds"] for o in outcomes),
        "verified": all(o.report["verified"] for o in outcomes),
        "stats": stats,
        "metrics": model_call(model, "metrics", *shown),
        "per_window": [o.report for o in outcomes],
    }


def _run_loss(model, shown, outcomes) -> float:
    """The model's information loss over the whole run: one window's is the run's, the pipeline
    having held it to a finite share (asking again cost retail's coherence run 0.06 s); over
    several windows the model's call over the whole, which no window's gives."""
    if len(outcomes) == 1:
        return outcomes[0].report["info_loss"]
    return finite_loss(model_call(model, "information_loss", *shown), model)


def finite_loss(loss, model) -> float:
    try:
        value = float(loss)
    except (TypeError, ValueError):
        raise PluginError(f"model {model.name!r}: information_loss returned a {type(loss).__name__}, not a number") from None
    if not math.isfinite(value):
        raise PluginError(f"model {model.name!r}: information_loss returned {value}")
    if not 0 <= value <= 1:  # a share, as every window's loss is (core.engine)
        raise PluginError(f"model {model.name!r}: information_loss returned {value}, outside [0, 1]")
    return value


def _report_bytes(path, body, model) -> bytes:
    """The report as JSON, as the output ``path`` holds it (gzipped for a ``.gz`` name); what the
    model put in its stats or metrics that JSON cannot hold (NaN, infinity, keys that are not
    text) stops the run in one line, before anything is written."""
    try:
        return text_bytes(path, report_text(body))
    except (TypeError, ValueError) as exc:
        # json raises ValueError for NaN and infinity (allow_nan=False), TypeError for the rest
        problem = "a number that is not finite" if isinstance(exc, ValueError) else "a value JSON cannot hold (TypeError)"
        raise PluginError(f"model {model.name!r}: the report would hold {problem}, from its stats or metrics") from None


@cli.command()
@click.argument("original_path", metavar="ORIGINAL", type=click.Path(allow_dash=True))
@click.argument("release_path", metavar="RELEASE", type=click.Path())
@model_options(policy_help="Policy whose parameters -P gives (the check uses the model alone); if omitted, the "
                           "model's default policy if it accepts them, else the first policy by name that does.")
@click.option("--window", "window_size", type=IntRange(min=1), help="The release was made in windows of N transactions.")
@click.option("--windows", "windows_path", type=click.Path(dir_okay=False),
              help="The release was made in the windows this file names: a window id per line, line i for "
                   "RELEASE's transaction i, as `setveil tail --windows` writes it.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Format of both files (default: from the suffix).")
@click.option("--release-format", type=click.Choice(FORMATS),
              help="Format of RELEASE, when `anonymize --output-format` wrote one its suffix does not name "
                   "(default: --format, else from the suffix).")
@click.option("--max-violations", type=IntRange(min=1), default=10, show_default=True,
              help="Stop after this many violations.")
@merge_option
def verify(original_path, release_path, model, policy, params, sensitive, public, hierarchy, fanout, window_size,
           windows_path, fmt, release_format, max_violations, merge_subjects):
    """Check that RELEASE satisfies the model and is a valid transformation of ORIGINAL.

    Exit 0 when it does; 1 when it does not, listing the first violations on standard output,
    each with what shows it: an itemset, a transaction or both (an answer for the data's owner,
    so it names items); 2 when a file cannot be read as the format says (an item repeated in a released
    transaction, say), RELEASE does not pair with ORIGINAL (another number of transactions, or
    another tid) or a parameter is wrong.

    Valid: the same transactions, with items only deleted (coherence, rho, sanitize) or only
    generalized along the hierarchy. How an algorithm chose them is not checked: coherence
    suppresses globally per window, and a release made in windows may drop an item from some
    of its transactions only. With --merge-subjects, ORIGINAL's records are merged by subject
    first, as `anonymize --merge-subjects` merged them.

    With --window or --windows each window is checked apart: a stream's release is safe when
    each of its windows is, for a model that promises the union of safe windows safe (every model
    setveil ships), and checking a long one whole may cost more memory than the machine has.
    """
    if window_size is not None and windows_path is not None:
        raise ParameterError("--windows", "names windows of any size; give it or --window, not both")
    if windows_path is not None:
        check_user_file(windows_path, "--windows")
    if policy is None:
        # the release is checked against the model alone, so the parameters of whichever policy
        # made it are taken without naming that policy (QA: they needed --policy)
        policy = get_registry().policy_for(model, parse_assignments(params))
    configured = configure(model, policy, params, sensitive, public, hierarchy, fanout)
    smallest = smallest_window(configured, window_size)
    if (window_size is not None or windows_path is not None) and not configured.model.union_safe:
        note(f"model {configured.model.name!r} does not promise that the union of safe windows is safe: each window "
             "is checked on its own, not the release they make together")
    if original_path == release_path == "-":
        raise ParameterError("RELEASE", "ORIGINAL and RELEASE cannot both be standard input")
    window_ids = [] if windows_path is None else window_id_lines(windows_path)
    refuse_unreadable(release_path)
    original, subjects, merged_tids, _ = read_records(original_path, fmt, merge_subjects)
    try:
        check_listed_items(configured, original, sensitive, public, original_path)
        unprotected = None
    except InputError as exc:
        # lists that name nothing of ORIGINAL are refused once the release adds nothing: a release
        # that adds an item only such a list names fails whatever the lists say, and was refused as
        # a file verify cannot take (exit 2) rather than as not safe (exit 1)
        unprotected = exc
    pin_hierarchy(configured, original, original_path)
    # --format is given for ORIGINAL's sake as often as for both files: a JSONL or msgpack release
    # read as FIMI by it failed the model's check, exit 1, instead of being refused, and a FIMI one
    # read as JSONL was "not valid JSON" with no word of why (QA)
    shared = release_format is None and fmt is not None
    try:
        release = read_window(release_path, release_format or fmt, vocab=original.vocab,
                              format_option="--release-format", release=True,
                              shared_format="--format" if shared else None,
                              fields=MERGED_RELEASE_FIELDS if merge_subjects else RELEASE_FIELDS,
                              merged_tids=merged_tids)
    except InputError as exc:
        named = named_format(release_path)
        if not shared or named in (None, fmt) or "--release-format" in exc.problem:  # the latter says it already
            raise
        raise InputError(release_path, f"{exc.problem} (read as {fmt} as --format says, though its name says {named}: "
                                       f"give --release-format {named})", exc.line) from None
    # a release that does not pair with the original is a file verify cannot take (exit 2), not
    # a release that fails the model (exit 1)
    if len(release) != len(original):
        # a release of merged subjects has fewer: the likeliest cause when ORIGINAL's records share one
        given, distinct = subject_counts(subjects)
        hint = ("; give --merge-subjects for a release of `anonymize --merge-subjects`"
                if not merge_subjects and len(release) < len(original) and distinct < given else "")
        raise InputError(release_path, f"{counted(len(release), 'transaction')}, but {shown_path(original_path)} "
                                       f"has {len(original)}{hint}")
    if release.tids is not None:
        # a FIMI original's tids are its positions (Window.tid), as anonymize writes them in a
        # JSONL or msgpack release (QA: "y", "x", "z" there went unchecked)
        position = next((i for i, tid in enumerate(release.tids) if tid != original.tid(i)), None)
        if position is not None:
            raise InputError(release_path, f"transaction {position} has another tid than in "
                                           f"{shown_path(original_path)}")
    found: list[tuple[str, Violation]] = []
    if windows_path is None:
        windows = [(str(index), rows) for index, rows in enumerate(window_rows(len(original), window_size, smallest))]
    else:
        windows = named_window_rows(windows_path, window_ids, release_path, len(release))
    more = ""
    whole = window_size is None and windows_path is None
    # a checker that raises exits 2, not 1, which says the release fails: it was not checked at all
    with plugin_errors(f"model {configured.model.name!r}: its checker", "; the release is not checked"):
        for checked, (name, rows) in enumerate(windows, 1):
            orig, rel = (original, release) if whole else (_window_at(original, rows), _window_at(release, rows))
            violations = (release_violations(configured.model, orig, rel, configured.context) if unprotected is None
                          else structure_violations(configured.model, orig, rel, configured.context))
            try:
                for violation in itertools.islice(violations, max_violations - len(found)):
                    if violation.transaction is not None:  # a position in the input, as anonymize names them
                        violation = replace(violation, transaction=int(rows[violation.transaction]))
                    found.append((name, violation))
                if len(found) >= max_violations:
                    # the count is all there is unless one more exists: said only then (QA: it was said of a
                    # release with exactly N); the windows after this one are left unchecked, as the cap asks
                    # and the later windows go unchecked whether or not this one holds more (a docs audit: said
                    # only when it held no more)
                    stopped = next(violations, None) is not None
                    left = (f"; {counted(len(windows) - checked, 'later window')} not checked"
                            if checked < len(windows) else "")
                    if stopped or left:
                        more = f" (stopped at --max-violations{left})"
                    break
            except MiningTooLarge as exc:
                raise _check_too_large(exc, configured.model, None if whole else name) from None
    if unprotected is not None and not found:
        raise unprotected
    if found:
        for name, violation in found:
            prefix = f"window {name}: " if window_size or windows_path else ""
            click.echo(f"violation: {printable(prefix + violation.describe())}")
        verdict = (f"{shown_path(release_path)}: FAILS {configured.model.name}: "
                   f"{counted(len(found), 'violation')}{more}")
        click.echo(printable(verdict), err=True)
        sys.exit(1)
    click.echo(printable(f"{shown_path(release_path)}: satisfies {configured.model.name} "
                         f"({_checked_param_text(configured)})"))


def _check_too_large(exc: MiningTooLarge, model: PrivacyModel, window: str | None) -> MiningTooLarge:
    """A checker's refusal to mine past its budget, with what verify lets its user do about it, where
    the checker's own words suggested nothing (mushroom at coherence's p=23). Mining a window
    lists what its own transactions hold, so fewer transactions list fewer itemsets; and windows that
    each pass make a safe release for a model whose union of safe windows is safe."""
    if not model.union_safe:
        advice = (f"model {model.name!r} does not promise that windows which pass make a safe union, so checking "
                  "smaller windows would not check this release")
    else:
        advice = ("check the release in windows of fewer transactions with --window N" if window is None else
                  f"in window {window}; check the release in smaller windows with --window N")
        advice += f" (each mined apart: a release whose windows all pass satisfies {model.name})"
    return MiningTooLarge(exc.count, exc.budget, exc.min_support, exc.what, advice, at_least=exc.at_least)


def _checked_param_text(configured: Configured) -> str:
    """The parameters the check read, as ``-P`` takes them (a flag ``true``, not Python's
    ``True``): the model's that are ``checked``. The verdict claims the release holds at these;
    one the check never reads (sanitize's sigma, a policy's) would read as part of the claim
    (QA: ``sigma=0.1``, a default, after a run at 0.002). An optional parameter not given is
    left out: ``keep=None`` would read as a file named None. One named like a secret is masked,
    as in the startup log (:func:`~setveil.core.params.shown_value`)."""
    checked = {p.name for p in configured.model.parameters if p.checked}
    return ", ".join(f"{k}={as_typed(shown_value(k, v))}"
                     for k, v in configured.params.items() if k in checked and v is not None)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--hooks", is_flag=True, help="List every registered plugin and the hooks it implements instead "
              "(also those that only observe or wrap windows).")
def plugins(as_json, hooks):
    """List installed privacy models and policies and the distribution of each."""
    if hooks:
        _plugin_hooks(as_json)
        return
    registry = get_registry()
    if misfiled := misfiled_entry_points():
        click.echo(f"setveil: warning: {'; '.join(misfiled)}", err=True)
    rows: list[dict[str, Any]] = []
    for name, entry in sorted(registry.models.items()):
        cls = entry.cls
        base = cls.policy_base
        rows.append(
            {
                "model": name,
                "distribution": entry.distribution,
                "transformation": cls.transformation.value,
                "summary": cls.summary,
                "guarantee": cls.guarantee,
                "default_policy": cls.default_policy,
                "needs": [flag for flag, needed in (("--sensitive", cls.needs_schema), ("--hierarchy or --fanout", cls.needs_hierarchy)) if needed],
                "union_safe": cls.union_safe,
                "parameters": _parameter_rows(cls.parameters, of_policy=False),
                "policy_base": {"class": f"{base.__module__}.{base.__qualname__}", "implement": sorted(base.__abstractmethods__)},
                "policies": [
                    {
                        "policy": pname,
                        "distribution": pentry.distribution,
                        "summary": pentry.cls.summary,
                        "parameters": _parameter_rows(pentry.cls.parameters, of_policy=True),
                    }
                    for pname, pentry in sorted(registry.policies[name].items())
                ],
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=json_value))
        return
    for row in rows:
        click.echo(f"{row['model']}  [{row['transformation']}]  from {row['distribution']}")
        click.echo(f"    {row['summary']}")
        click.echo(f"    guarantee: {row['guarantee']}")
        if row["needs"]:
            click.echo(f"    needs {' and '.join(row['needs'])}")
        for p in row["parameters"]:
            click.echo(f"    -P {_parameter_line(p)}")
        for pol in row["policies"]:
            mark = " (default)" if pol["policy"] == row["default_policy"] else ""
            click.echo(f"    policy {pol['policy']}{mark} from {pol['distribution']}: {pol['summary']}")
            for p in pol["parameters"]:
                click.echo(f"        -P {_parameter_line(p)}")
        extended = row["policy_base"]
        click.echo(f"    new policies subclass {extended['class']} (implement: {', '.join(extended['implement']) or 'nothing'})")


def _plugin_hooks(as_json: bool) -> None:
    rows = plugin_hooks()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        hooks = ", ".join(_hook_text(h) for h in row["hooks"])
        click.echo(f"{row['plugin']}  from {row['distribution']}: {hooks or 'no hooks'}")


def _hook_text(hook: dict[str, Any]) -> str:
    # a function named otherwise implements its hook through specname, as a second one of a hook may
    named = f" as {hook['function']}" if hook["function"] != hook["hook"] else ""
    return f"{hook['hook']}{named}{' (wrapper)' if hook['wrapper'] else ''}"


def _parameter_rows(parameters: Sequence[Parameter], of_policy: bool) -> list[dict[str, Any]]:
    # the default as a run gets it (QA: a bool's "false" was listed as declared, an optional
    # parameter without a default as required); a policy's parameter is never checked, as the
    # check uses the model alone, whatever the policy declares
    return [{"name": p.name, "allowed": p.allowed(), "required": p.required,
             "default": None if p.required else p.default_value(), "help": p.help,
             "checked": p.checked and not of_policy} for p in parameters]


def _parameter_line(row: dict[str, Any]) -> str:
    if row["required"]:
        default = "required"
    else:
        default = "optional" if row["default"] is None else f"default {as_typed(row['default'])}"
    # the help too: without it a user learns what a parameter means only from the JSON (QA as a plugin author)
    return f"{row['name']}: {row['allowed']}, {default} — {row['help']}"


@cli.group()
def bench():
    """Benchmarks on your own data: speed, memory and information loss."""


@functools.cache
def _own_commands() -> frozenset[str]:
    """The names of setveil's own top-level commands: those the group has before any plugin's
    are added (a plugin found broken part of the way through adding them leaves some added)."""
    return frozenset(cli.commands)


@functools.cache
def _load_plugin_commands() -> None:
    _own_commands()  # taken before any plugin's command is added
    # the registry too, though not every command needs it, so that a broken model or policy
    # class stops every command at start-up as a broken hook does
    get_registry()
    asked: list[tuple[str, click.Command, str | None]] = []
    # a callback of its own for each implementation, so that an error names who asked
    call_each(get_plugin_manager().hook.setveil_register_commands, lambda who: _collector(asked, who),
              "register(command) or register(command, group=NAME)")
    # top-level commands first, setveil's own first of all, then the members of groups: which
    # names are taken and which groups exist does not depend on the order plugins are found in
    asked.sort(key=lambda entry: (entry[2] is not None, entry[0] != "setveil"))
    # what is there already, the members of the core's groups too, is setveil's
    owners: dict[tuple[str | None, str], str] = {(None, name): "setveil" for name in cli.commands}
    owners.update({(group.name, name): "setveil" for group in cli.commands.values()
                   if isinstance(group, click.Group) for name in group.commands})
    for who, command, group in asked:
        _add_command(owners, who, command, group)
        if isinstance(command, click.Group):
            # a group arrives with its members: they are its registrant's
            owners.update({(command.name, name): who for name in command.commands})


def _load_plugins() -> None:
    """The plugins' commands, loaded with a stop signal held (setveil/__main__.py). Inside click a
    Ctrl-C would first print a blank line; as click.Abort it ends in main's one line."""
    try:
        with signals_held():
            _load_plugin_commands()
    except KeyboardInterrupt:
        raise click.Abort() from None


def _collector(asked: list, who: str) -> Callable[..., None]:
    def register(command: click.Command, group: str | None = None) -> None:
        asked.append((who, command, group))

    return register


def _add_command(owners: dict[tuple[str | None, str], str], who: str, command: click.Command, group: str | None) -> None:
    """Add a command a plugin registered, ``owners`` holding who registered each name so far."""
    where = f"setveil_register_commands of {who}"
    if not isinstance(command, click.Command) or not command.name:
        given = "one with no name" if isinstance(command, click.Command) else f"a {type(command).__name__}"
        raise PluginError(f"{where}: register() takes a named click.Command, not {given}")
    if group is not None and not isinstance(group, str):
        raise PluginError(f"{where}: register()'s group is a command name, not {type(group).__name__}")
    parent = cli if group is None else cli.commands.get(group)
    if not isinstance(parent, click.Group):
        groups = ", ".join(sorted(n for n, c in cli.commands.items() if isinstance(c, click.Group)))
        what = "which is a command, not a group" if parent is not None else "which no plugin registers"
        raise PluginError(f"{where}: command {command.name!r} names group {group!r}, {what} (groups: {groups})")
    owner = owners.get((group, command.name))
    if owner is not None:
        path = "setveil" if group is None else f"setveil {group}"
        raise PluginError(f"{where}: `{path} {command.name}` is taken by {owner}; rename the command")
    owners[(group, command.name)] = who
    parent.add_command(command)


def _flush_stdout() -> None:
    """Flush standard output here, where an error is one line, not at the interpreter's exit."""
    if sys.stdout is not None:
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    """The console script: every error ends in one line on stderr and a documented status."""
    guard_standard_streams()
    try:
        try:
            code = cli.main(args=argv, prog_name="setveil", standalone_mode=False)
        except SystemExit:  # a command's own status (verify: 1); what it wrote must still reach stdout
            _flush_stdout()
            raise
        _flush_stdout()
    except SetveilError as exc:
        click.echo(error_line(exc), err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:
        # a group called without its command: the help as it reads, not folded into one error line
        click.echo(exc.format_message(), err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(error_line(exc.format_message()), err=True)
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):  # a Ctrl-C while the plugins' commands load, too
        click.echo("setveil: aborted", err=True)
        sys.exit(130)
    except GeneratorExit:
        # no generator of setveil's is closed out here: plugin code raised it, and its message
        # may quote the data (QA re-check: a traceback ended "GeneratorExit: secret a b c")
        click.echo(error_line("plugin code raised GeneratorExit"), err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
