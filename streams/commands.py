"""The stream commands, added to ``setveil`` through the ``setveil_register_commands`` hook:
``serve``, ``dev-broker``, ``replay``, ``tail``, ``demo`` and ``bench stream``."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from setveil.core.clitypes import (MODEL_COUNT, SEED, FloatRange, IntRange, check_bench_files, json_option,
                                   option_given)
from setveil.core.cli import (build_context, configure, counted, model_options, note, refuse_empty_sensitive,
                              refuse_unused_files, warn_subjects_spelt_apart)
from setveil.core.errors import InputError, ParameterError, UnknownPluginError
from setveil.core.formats import FORMATS, read_window, read_window_and_subjects
from setveil.core.hookspecs import hookimpl
from setveil.core.model import Context
from setveil.core.orphans import how_ended
from setveil.core.output import check_output, distinct_outputs, write_json
from setveil.core.params import parse_assignments, refuse_repeats
from setveil.core.plugins import Configured, get_registry
from setveil.core.schema import ItemSchema

from . import interrupt
from .clientlog import quiet_repeats
from .settings import (MEMORY_LIMIT_FLOOR, MEMORY_LIMIT_RATIONALE, MODEL_FILES, Settings, as_toml, dropping_hint,
                       load_settings, one_pair_each, refuse_unknown_variables)


config_option = click.option(
    # no envvar: load_settings reads $SETVEIL_CONFIG itself, so that a refusal of the file says
    # whether its path came from the variable or from --config
    "--config", metavar="FILE", help="TOML settings file (see docs/operations.md); $SETVEIL_CONFIG.",
)
set_option = click.option(
    "--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE", help="Override one setting (repeatable).",
)
bootstrap_option = click.option(
    "--bootstrap", help="Kafka bootstrap servers (the setting kafka.bootstrap; $SETVEIL_KAFKA_BOOTSTRAP).",
)


def resolve_settings(config, overrides, bootstrap=None, extra: dict[str, Any] | None = None,
                     unused_files: tuple[str, ...] = ()) -> Settings:
    options = dict(extra or {})
    if bootstrap is not None:  # an empty one is refused by the setting, not taken for none (QA)
        options["kafka.bootstrap"] = bootstrap
    return load_settings(config, list(overrides), options=options, unused_files=unused_files)


def refuse_model_overrides(overrides, why: str) -> None:
    """Refuse ``--set model.…`` to a command that runs no model (``replay``, ``tail``), as the demo
    refuses one naming its own model: a user who gave one would take the command for one that
    anonymizes, where it was taken in silence. The model settings of a config or of ``SETVEIL_MODEL_…``
    variables stay unused without a word, since the workers share those."""
    for name in parse_assignments(list(overrides)):
        if name.partition(".")[0] == "model":
            raise ParameterError(name, f"{why} and runs no model, so --set cannot give it one: give the model to "
                                 "the workers (`setveil serve`)")


#: why a worker takes no --fanout
PER_WINDOW_HIERARCHY = (
    "a worker would build a hierarchy over each window's own items, whose inner nodes are named after "
    "that window's labels (a batch would show labels no released transaction keeps) and differ between "
    "windows; give --hierarchy, from `setveil hierarchy build` over representative data or your item domain"
)


def model_settings(model, policy, params, sensitive, public, hierarchy, fanout) -> dict[str, Any]:
    """The model options of the command line as settings (they override file and environment)."""
    if fanout is not None:
        raise ParameterError("fanout", PER_WINDOW_HIERARCHY)
    given = {"model.name": model, "model.policy": policy, "model.sensitive": sensitive, "model.public": public,
             "model.hierarchy": hierarchy}
    out: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if params:
        out["model.params"] = parse_assignments(params)
    return out


def configure_model(settings: Settings) -> Configured:
    """Validate model, policy, parameters and item files before anything connects."""
    m = settings.model
    if not m.name:
        raise ParameterError("model.name", "no model: give --model or set SETVEIL_MODEL_NAME")
    assignments = [f"{k}={v}" for k, v in m.params.items()]
    try:
        _refuse_unread_files(settings, m.name)
        # a worker's batches name every parameter file by digest
        configured = configure(m.name, m.policy or None, assignments, m.sensitive, m.public, m.hierarchy, None,
                               named_files=True)
        _refuse_nul_nodes(configured, settings)
        return configured
    except ParameterError as exc:
        # the registry's hints name the command line's options, and the model may be set up by settings
        if exc.name == "hierarchy" and m.hierarchy is None:  # its hint offers --fanout, which a worker refuses
            raise ParameterError("model.hierarchy", f"model {m.name!r} needs a hierarchy file: give --hierarchy FILE "
                                 "or set model.hierarchy (a worker takes no --fanout)") from None
        if exc.name == "sensitive" and m.sensitive is None:
            raise ParameterError("model.sensitive", f"model {m.name!r} needs the sensitive (private) items: give "
                                 "--sensitive FILE or set model.sensitive") from None
        if exc.name in _parameters(m.name, m.policy, required=True) and exc.name not in m.params:
            raise ParameterError(exc.name, f"{exc.problem}: give -P {exc.name}=VALUE or set model.params") from None
        if exc.name not in m.params:
            raise
        # a model parameter names itself only; the operator set it as model.params in some layer
        source = settings.source(f"model.params.{exc.name}")
        unknown = exc.name not in _parameters(m.name, m.policy)
        raise ParameterError("model.params", f"{exc.name!r}: {one_pair_each(exc, source)} (from {source})"
                             f"{dropping_hint(settings, source) if unknown else ''}") from None
    except UnknownPluginError as exc:
        # the registry names the model or policy but not the setting, which may come from a file
        key = "name" if m.name not in get_registry().models else "policy"
        raise ParameterError(f"model.{key}", f"{exc} (from {settings.source(f'model.{key}')})") from None
    except InputError as exc:
        for key in ("sensitive", "public", "hierarchy"):
            path = getattr(m, key)
            if path is not None and exc.path == os.fspath(path):
                raise ParameterError(f"model.{key}", f"{exc} (from {settings.source(f'model.{key}')})") from None
        raise


def _refuse_nul_nodes(configured: Configured, settings: Settings) -> None:
    """A hierarchy node whose label holds a NUL (a quoted ``"\\u0000"``) is refused at start-up, as
    ``anonymize`` refuses one above a file's items: a batch could carry it, but no record may
    hold one, so a consumer could not feed the batch back (``setveil verify``). A worker cannot
    tell which nodes its windows will reach, and a leaf holding one matches no item anyway, so
    every node is checked. The hierarchy is the one :func:`configure` parsed: the file may be a
    pipe, empty when read again (QA: ``serve --hierarchy <(cat h.csv)`` said "no edges")."""
    hierarchy = configured.model.context.hierarchy if configured.model.needs_hierarchy else None
    if hierarchy is None:
        return
    for label in hierarchy.labels:
        if "\0" in label:
            line = hierarchy.lines.get(label)
            raise ParameterError("model.hierarchy", f"{hierarchy.source}{f':{line}' if line else ''}: a node has a "
                                 "label with a NUL, which no record may hold, so a batch holding it would not read "
                                 f"back (from {settings.source('model.hierarchy')})")


def _refuse_unread_files(settings: Settings, model: str) -> None:
    """An item or hierarchy file set for a model that reads none, named as the setting it came
    from (``refuse_unused_files`` names the command line's options)."""
    m = settings.model
    cls = get_registry().model_class(model)
    for key, read, what in (("sensitive", cls.needs_schema, "classify items"), ("public", cls.needs_schema,
                            "classify items"), ("hierarchy", cls.needs_hierarchy, "generalize")):
        if getattr(m, key) is not None and not read:
            raise ParameterError(f"model.{key}", f"model {model!r} does not {what}: unset model.{key} (from "
                                 f"{settings.source(f'model.{key}')})")


def _parameters(model: str, policy: str | None, required: bool = False) -> set[str]:
    """The parameters ``model`` with ``policy`` takes (``required``: needs); the model's alone for
    a policy not installed (refused after the item files, whose errors come first)."""
    registry = get_registry()
    model_cls = registry.model_class(model)
    entry = registry.policies[model].get(policy or model_cls.default_policy)
    classes = (model_cls,) if entry is None else (model_cls, entry.cls)
    return {p.name for cls in classes for p in cls.parameters if p.required or not required}


@click.command()
@model_options(required=False, fanout=False)
@config_option
@set_option
@bootstrap_option
@click.option("--check", is_flag=True, help="Make every check a worker makes before it connects, print the "
              "settings in force as a settings file (secrets left out) and exit without connecting.")
def serve(model, policy, params, sensitive, public, hierarchy, fanout, config, overrides, bootstrap, check):
    """Run a worker: window, anonymize, check and emit batches until SIGINT/SIGTERM.

    The model options are those of `setveil anonymize`; every other setting comes from
    --config, SETVEIL_* variables or --set (docs/operations.md lists them).
    """
    # Faust takes these signals only once its worker runs: before, while the worker read its
    # settings and item files and created its topics (a second or more), SIGTERM killed it with
    # status 143 (QA). Nothing has been read then, so the stop is a clean one.
    interrupt.stop_on_signals()
    try:
        settings = resolve_settings(config, overrides, bootstrap,
                                    model_settings(model, policy, params, sensitive, public, hierarchy, fanout))
        configured = configure_model(settings)
        # faust loads in about a second, which every other command (and a refused setting) spares
        from .worker import prepare_worker, run_worker, start_notes

        settings = prepare_worker(settings, configured)
        if check:
            click.echo(as_toml(settings), nl=False)
            for line in start_notes(settings, configured):
                note(line)
            click.echo("setveil: serve --check: every check passed; nothing was connected", err=True)
            status = 0
        else:
            status = run_worker(settings, configured)
    except interrupt.Stopped as stopped:
        click.echo(f"setveil: stopped by {stopped.signal} before the worker started (nothing was read)", err=True)
        status = 0
    sys.exit(status)


def _listen_address(_ctx, _param, host: str) -> str:
    """A --host this machine can listen on, refused by name before the broker starts (QA: an empty
    one let Tansu exit with status 2 "before it listened", and a malformed one was blamed on the
    port: "another broker there? choose another --port")."""
    if host.strip():
        with contextlib.suppress(socket.gaierror, UnicodeError):
            socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
            return host
    raise click.BadParameter(f"{host!r} is not a host name or an IP address to listen on")


@click.command("dev-broker")
@click.option("--port", type=IntRange(1, 65535), default=9092, show_default=True, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, callback=_listen_address,
              help="Address to listen on and advertise.")
def dev_broker(port, host):
    """Run the embedded Kafka-compatible broker (Tansu, memory storage) until Ctrl-C."""
    from .broker import BrokerError, start_tansu

    interrupt.stop_on_signals((signal.SIGTERM,))  # before the broker starts, so it is always stopped
    running = status = None
    try:
        # a stop while Tansu starts is a stop too (QA: Ctrl-C then ended in a traceback, 130)
        running = start_tansu(port, host)
        click.echo(f"Tansu (memory storage) listening on {running.bootstrap}")
        click.echo(f"export SETVEIL_KAFKA_BOOTSTRAP={running.bootstrap}")
        # Waiting on the process rather than for a signal alone: clients of a broker that died would
        # otherwise retry against a closed port while this command still looks alive.
        status = running.wait()
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (interrupt.Stopped): the normal stop, status 0
        pass
    finally:
        if running is not None:
            running.stop()
    if status is None:
        click.echo("broker stopped", err=True)
        return
    assert running is not None  # status is what the running broker ended with
    raise BrokerError(f"the embedded broker (Tansu) on {running.bootstrap} ended by itself ({how_ended(status)}); what it "
                      "held is gone (memory storage)")


#: transactions per second that replay and demo pace their messages to, one range for both. A
#: message of --batch records is followed by a wait of --batch / rate seconds, so any rate above
#: 0 let a message wait about forever (QA: replay --rate 1e-320); at least 1, it waits at most
#: --batch seconds
RATE = FloatRange(min=1)


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("--rate", type=RATE, help="Transactions per second, at least 1 (default: unlimited).")
@click.option("--batch", type=IntRange(min=1), default=1, show_default=True,
              help="Records per message; more than 1 sends msgpack arrays.")
@click.option("--count", type=IntRange(min=1), help="Replay only the first N transactions.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")
@config_option
@set_option
@bootstrap_option
def replay(input_path, rate, batch, count, fmt, config, overrides, bootstrap):
    """Produce INPUT's transactions into the input topic, transaction i with tid i.

    A record's own tid (JSONL, msgpack) is kept instead, and its subject is sent too: a
    subject's records go to one partition, for window.merge_subjects.
    """
    from .replay import ReplayProgress
    from .replay import replay as produce

    settings = resolve_settings(config, overrides, bootstrap, unused_files=MODEL_FILES)
    refuse_model_overrides(overrides, "replay sends INPUT as it is")
    window, subjects, _ = read_window_and_subjects(input_path, fmt)
    # the only command of the service that sees the whole file, as anonymize --merge-subjects does
    warn_subjects_spelt_apart(subjects, input_path, "a worker under window.merge_subjects merges each apart")
    progress = ReplayProgress()
    stats = run(produce(settings, window, batch, rate, count, subjects, progress),
                on_stop=lambda: click.echo(progress.said(settings.topics.input), err=True))
    speed = stats.transactions / stats.seconds if stats.seconds else 0.0
    click.echo(f"{counted(stats.transactions, 'transaction')} in {counted(stats.messages, 'message')} to "
               f"{settings.topics.input} "
               f"in {stats.seconds:.2f} s ({speed:,.0f} transactions/s)", err=True)


@click.command()
@click.option("--out", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the release here, ordered by tid (format from the suffix).")
@click.option("--windows", "windows_out", type=click.Path(dir_okay=False),
              help="With --out, write here the window id of each released transaction, line i for tid i, for "
                   "`setveil verify --windows` to check the release window by window.")
@click.option("--count", type=IntRange(min=1), help="Stop at the window that brings the transactions read to N.")
@click.option("--idle", type=FloatRange(min=0, min_open=True),
              help="Stop after this many seconds without a batch (with --dead-letters, without a dead letter).")
@click.option("--dead-letters", is_flag=True,
              help="Read the dead-letter topic instead: one line per rejected window or unreadable message, "
                   "with its cause and reason (never its contents).")
@config_option
@set_option
@bootstrap_option
def tail(out, windows_out, count, idle, dead_letters, config, overrides, bootstrap):
    """Read the anonymized batches: one line per window, or the release with --out.

    Duplicate window ids (re-deliveries) are dropped. With --out, transaction i of the
    release is the transaction replayed with tid i, as in `setveil anonymize` output.
    With --dead-letters, why windows failed closed and which input messages were dead-lettered.
    """
    from .display import WindowDisplay
    from .tail import WAITING_SECONDS, collect, write_release

    if dead_letters:
        for name, value in (("--out", out), ("--windows", windows_out), ("--count", count)):
            if value is not None:
                raise ParameterError(name, "reads batches; with --dead-letters, --idle S ends tail")
    if windows_out is not None and out is None:
        raise ParameterError("--windows", "names the window of each transaction of the release: give --out too")
    settings = resolve_settings(config, overrides, bootstrap, unused_files=MODEL_FILES)
    refuse_model_overrides(overrides, "tail reads what the workers wrote")
    if dead_letters:
        tail_dead_letters(settings, idle)
        return
    if out is not None:
        check_output(out, "--out")
    if windows_out is not None:
        check_output(windows_out, "--windows")
        distinct_outputs({"--out": out, "--windows": windows_out})
    echo = functools.partial(click.echo, err=out is not None)
    display = WindowDisplay(echo)

    def waiting(collected) -> None:
        click.echo(f"setveil: {collected.transactions:,} of {count:,} transaction{'' if count == 1 else 's'} so far, "
                   f"none in the last {WAITING_SECONDS:g} s: a partition's last transactions, fewer than "
                   "window.min_transactions, wait for more input (setveil_held_transactions on a worker's /metrics), "
                   "and a rejected window is dead-lettered; --idle S ends tail", err=True)

    collected = run(collect(settings, count, idle, keep=out is not None, on_window=display.window,
                            on_waiting=waiting, on_note=note))
    echo(display.summary(collected))
    if out is not None:
        written = write_release(collected.release, out, windows_out)
        click.echo(f"wrote {counted(written, 'transaction')} to {out}" + (f", and the window of each to {windows_out}"
                                                               if windows_out is not None else ""), err=True)


def tail_dead_letters(settings: Settings, idle: float | None) -> None:
    from .deadletters import collect_dead_letters
    from .display import DeadLetterDisplay

    display = DeadLetterDisplay(click.echo)
    collected = run(collect_dead_letters(settings, idle, on_letter=display.letter, on_note=note))
    click.echo(display.summary(collected), err=True)


@click.command()
@click.option("--rate", type=RATE, default=4000, show_default=True,
              help="Transactions per second replayed, at least 1.")
@click.option("--batch", type=IntRange(min=1), default=20, show_default=True, help="Records per message.")
@click.option("--count", type=IntRange(min=1), help="Replay only the first N of the sample's 20,000 transactions.")
@click.option("--window", type=IntRange(min=5), default=1000, show_default=True,
              help="Largest window (window.max_transactions).")
@config_option
@set_option
@bootstrap_option
def demo(rate, batch, count, window, config, overrides, bootstrap):
    """Broker, worker, replay and live tail on a bundled sample; Ctrl-C stops everything.

    Uses the cluster kafka.bootstrap names when it is set (--bootstrap, SETVEIL_KAFKA_BOOTSTRAP,
    --config or --set), else a Kafka container when Docker runs, else the embedded broker. The
    worker anonymizes with (h,k,p)-coherence, h=0.4, k=5, p=3.
    """
    from .demo import run_demo

    pairs = dict(parse_assignments(list(overrides)))
    if bootstrap is not None:  # over --set kafka.bootstrap, as serve's, replay's and tail's is
        pairs["kafka.bootstrap"] = bootstrap
    if option_given("window"):
        # --window wins over --set window.max_transactions, as serve's options win over --set,
        # where the --set size was taken and a --window given with it ignored in silence
        pairs["window.max_transactions"] = window
    interrupt.stop_on_signals()  # SIGTERM stops the worker and the broker as Ctrl-C does
    try:
        status = run_demo(click.echo, rate, batch, count, window, config, pairs)
    except interrupt.Stopped as stopped:
        click.echo("stopped" if stopped.signal == "SIGINT" else f"stopped by {stopped.signal}", err=True)
        sys.exit(stopped.status)
    sys.exit(status)


@click.command("stream")
@click.argument("dataset", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--window", "windows", multiple=True, type=IntRange(min=1), default=(1000, 5000, 20000),
              show_default=True, help="Window size (window.max_transactions); repeatable.")
@click.option("--workers", multiple=True, type=IntRange(1, 16), default=(1,), show_default=True,
              help="Worker processes in the group; repeatable.")
@click.option("--partitions", type=IntRange(min=1), default=2, show_default=True, help="Input partitions.")
@click.option("--batch", type=IntRange(min=1), default=100, show_default=True, help="Records per message.")
@click.option("--count", type=IntRange(min=1), help="Use only the first N transactions.")
@click.option("--public-share", type=FloatRange(0, 1), default=0.2, show_default=True,
              help="δ: share of items public (Xu et al. §4.1).")
@click.option("--h", "h", type=FloatRange(0, 1, min_open=True), default=0.4, show_default=True,
              help="Coherence h (when no -P is given), and the item split's frequency rule.")
@click.option("--k", "k", type=MODEL_COUNT, default=5, show_default=True, help="Coherence k (when no -P).")
@click.option("--p", "p", type=MODEL_COUNT, default=3, show_default=True, help="Coherence p (when no -P).")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Seed of the item split.")
@click.option("--runs", type=IntRange(min=1), default=1, show_default=True,
              help="Runs of each window size and worker count, one row each.")
@click.option("--time-limit", type=FloatRange(0, math.inf, max_open=True), default=0.0, show_default=True,
              help="model.time_limit of the workers (0: windows run in the worker's thread).")
@click.option("--memory-limit", type=IntRange(0, 2**40), default=0, show_default=True,
              help="model.memory_limit of the workers, in MiB (needs --time-limit; 0: no limit, else at least 64).")
@model_options(required=False)
@json_option()
@bootstrap_option
def bench_stream(dataset, windows, workers, partitions, batch, count, public_share, h, k, p, seed, runs, time_limit,
                 memory_limit, model, policy, params, sensitive, public, hierarchy, fanout, json_path, bootstrap):
    """Throughput, window latency and information loss of workers on DATASET.

    The model options are those of `setveil serve` (default: coherence with --h, --k, --p).
    For a model that classifies items, without --sensitive the items are split as in Xu et al.
    §4.1 (--public-share, --seed).
    Uses the cluster --bootstrap or SETVEIL_KAFKA_BOOTSTRAP names, else a Kafka container, else the
    embedded broker.
    """
    from setveil.core.bench import machine

    from .bench import (BenchConfig, refuse_held_partitions, refuse_unused_options, run_bench, security_env,
                        smallest_window)
    from .broker import Broker, broker
    from .kafka import answers
    from .preflight import check_own_broker
    from .replay import pack_unkeyed

    for option, values in (("window", windows), ("workers", workers)):
        refuse_repeats(option, values)  # as bench sanitize speed refuses -n 10 -n 10 (QA)
    # the hints are quoted as click quotes an option in its own errors of this command
    if max(workers) > partitions:
        raise click.BadParameter(f"{max(workers)} workers need at least as many partitions", param_hint="'--partitions'")
    if memory_limit and not time_limit:
        raise click.BadParameter(f"{memory_limit} needs --time-limit too (model.memory_limit needs model.time_limit)",
                                 param_hint="'--memory-limit'")
    if 0 < memory_limit < MEMORY_LIMIT_FLOOR:
        raise click.BadParameter(f"{memory_limit} is less than {MEMORY_LIMIT_FLOOR} MiB ({MEMORY_LIMIT_RATIONALE}); "
                                 "allowed: 0 or at least that", param_hint="'--memory-limit'")
    # the settings of every run but those the benchmark gives; the rest of the environment is not
    # read, but a misspelt variable in it is refused as serve refuses it (QA: ignored in silence)
    refuse_unknown_variables(os.environ)
    settings = load_settings(None, {} if bootstrap is None else {"kafka.bootstrap": bootstrap}, env=security_env())
    check_own_broker(settings)
    model = model or "coherence"
    refuse_unused_options(model, params, sensitive)
    if model == "coherence" and not params:
        params = (f"h={h}", f"k={k}", f"p={p}")
    refuse_unused_files(model, sensitive, public, hierarchy, fanout)
    check_bench_files(json_path, (dataset, sensitive, public, hierarchy))
    classify_items = get_registry().model_class(model).needs_schema
    context = build_context(sensitive, public, hierarchy, fanout)
    refuse_empty_sensitive(context, sensitive)
    if context.schema is None and classify_items:
        # the item split made after reading the data supplies them; validate everything else now
        context = replace(context, schema=ItemSchema(private=frozenset()))
    assignments = parse_assignments(params)
    get_registry().configure(model, policy, assignments, context)
    original = read_window(dataset, format_option=None)
    if count is not None:
        original = original.take(list(range(min(count, len(original)))))
    packed = pack_unkeyed(original, batch, settings.records.max_message_bytes, settings.producer.max_request_bytes)
    scratch = tempfile.TemporaryDirectory(prefix="setveil-bench-stream-")
    if fanout is not None:
        # workers take no --fanout (PER_WINDOW_HIERARCHY): one hierarchy over the dataset, as
        # `setveil hierarchy build` writes it, serves every worker
        hierarchy = str(Path(scratch.name) / "hierarchy.csv")
        Context(fanout=fanout).hierarchy_for(original).write(hierarchy)
    model_args = ["--model", model, *(["--policy", policy] if policy else []),
                  *(["--hierarchy", hierarchy] if hierarchy else []),
                  *(arg for pair in params for arg in ("-P", pair))]
    # the fewest the model needs, as serve's min_transactions = "auto" takes (a user walkthrough: a
    # model without k, rho's, had its windows held till they made --k's 5, coherence's k)
    config = BenchConfig(Path(dataset), original, model_args, " ".join(params), h, smallest_window(model_args),
                         public_share, seed, (sensitive, public), classify_items, batch, packed, partitions,
                         list(windows), list(workers), runs, time_limit, memory_limit)
    refuse_held_partitions(config)
    interrupt.stop_on_signals()  # Ctrl-C too, where no loop runs (a worker starting or stopping)
    started_on = machine()  # the load average as the runs start, not as they end
    try:
        with scratch:
            if settings.given("kafka.bootstrap"):  # --bootstrap, or SETVEIL_KAFKA_BOOTSTRAP as broker() takes it
                # asked before a worker starts, as the demo asks: a cluster that did not answer
                # ended the benchmark after its header with a worker's log and a folder kept for it
                interrupt.run_stoppable(answers(settings))
            opened = broker() if bootstrap is None else contextlib.nullcontext(Broker(settings.kafka.bootstrap,
                                                                                        "external"))
            with opened as running:
                measured = run_bench(running, config, click.echo)
    except interrupt.Stopped as stopped:
        click.echo(f"setveil: stopped by {stopped.signal}; the rows above are the runs measured", err=True)
        sys.exit(stopped.status)
    if json_path:
        rows = [run.json_row() for run in measured]
        write_json(json_path, {"machine": started_on, "rows": rows})


@hookimpl
def setveil_register_commands(register):
    for command in (serve, dev_broker, replay, tail, demo):
        register(command)
    register(bench_stream, group="bench")


def run(coroutine, on_stop: Callable[[], None] = lambda: None) -> Any:
    """Run a command's coroutine; Ctrl-C (status 130) or SIGTERM (143) ends it quietly, its own
    cleanup run first, then ``on_stop`` (which may say how far it got)."""
    quiet_repeats()
    try:
        return interrupt.run_stoppable(coroutine)
    except interrupt.Stopped as stopped:
        on_stop()
        click.echo("interrupted" if stopped.signal == "SIGINT" else f"stopped by {stopped.signal}", err=True)
        sys.exit(stopped.status)
