"""A third party's plugin that fails in every way a window can: the service emits nothing raw,
dead-letters the window with its reason and keeps going, and commits only windows released or
dead-lettered (docs/operations.md, "Delivery guarantees").

The plugin is installed as a distribution would be, by an entry point of group ``setveil`` on
the worker's path, and registers model ``faulty`` (no released transaction holds more than m
items) and an implementation of ``setveil_anonymize_window``. A window holding the label
``trigger=<kind>`` makes its model, its checker or its hook fail that way; other windows are
released as the model says. The faults' messages quote a label of the window, which must reach
neither topic nor the log.
"""

from __future__ import annotations

import importlib
import os
import sys
import textwrap
import time
from pathlib import Path

import msgpack
import pytest

from setveil.core.cli import configure
from setveil.core.engine import Pipeline
from setveil.core import plugins
from setveil.core.plugins import get_plugin_manager
from setveil.core.records import Record
from setveil.streams.codec import BATCH_TYPE, REJECTED_WINDOW_TYPE, decode_batch
from setveil.streams.isolation import IsolatedProcessor
from setveil.streams.process import WorkerProcess
from setveil.streams.processor import WindowProcessor, process_in_thread
from setveil.streams.windowing import Cut, Message

from .kafkatools import committed, produce, read_topic, wait_until

PLUGIN = "setveil_faulty"

SOURCE = '''
"""Model 'faulty': no released transaction holds more than m items; a window holding the label
trigger=<kind> fails as <kind> says, in anonymize, in the checker or in setveil_anonymize_window."""

import os
import signal
import sys
import time

import numpy as np

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, Window, hookimpl
from setveil.core.errors import Infeasible

SECRET = "secret-diagnosis"


def fault(window):
    return next((label[len("trigger="):] for label in window.vocab.labels if label.startswith("trigger=")), None)


class Longest(Policy):
    model = "faulty"
    name = "longest"
    summary = "keep the first m items of a transaction"


class Faulty(PrivacyModel):
    name = "faulty"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1),)
    default_policy = "longest"
    policy_base = Longest

    def anonymize(self, window, policy, rng):
        kind = fault(window)
        m = self.params["m"]
        if kind == "raise":
            raise RuntimeError(f"the model met {SECRET} in {list(window)[0]}")
        if kind == "infeasible":
            raise Infeasible("no release of this window holds at most m items")
        if kind == "memory":
            raise MemoryError(SECRET)
        if kind == "exit":
            sys.exit(f"giving up on {SECRET}")
        if kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if kind == "hang":
            time.sleep(600)
        if kind == "raw":
            return Release(window)
        rows = [labels[:m] for labels in window]
        if kind == "foreign":  # transactions of the window, each at another's place
            rows = rows[1:] + rows[:1]
        if kind == "add":
            rows[0] = rows[0][:m - 1] + [SECRET]
        return Release(Window.from_transactions(rows).relabel(window.vocab))

    def __setstate__(self, state):
        # as a window process receives the model: one that cannot load there once this file exists
        if os.path.exists(os.environ.get("FAULTY_CANNOT_LOAD_AFTER", "/nonexistent")):
            os._exit(3)
        self.__dict__.update(state)

    @property
    def loss_metric(self):
        # read as each batch is made, after the pipeline
        if os.environ.get("FAULTY_LOSS_METRIC_EXITS"):
            sys.exit(f"giving up on {SECRET}")
        return "share of item occurrences suppressed"

    def violations(self, original, release):
        kind = fault(original)
        if kind == "checker-raise":
            raise ValueError(f"the checker met {SECRET}")
        if kind == "checker-hang":
            time.sleep(600)
        if kind == "checker-none":
            return None
        if kind == "checker-rejects":
            return [Violation("refused", "the checker refuses every release of this window")]
        m = self.params["m"]
        long = np.flatnonzero(release.lengths > m)
        return [Violation("too-long", f"{len(long)} transaction(s) hold more than m={m} items", (), int(long[0]))] \\
            if len(long) else []


@hookimpl
def setveil_register_privacy_models(register):
    register(Faulty)


@hookimpl
def setveil_register_policies(register):
    register(Longest)


@hookimpl
def setveil_anonymize_window(model, policy, window, rng):
    kind = fault(window)
    if kind == "hook-raw":
        return Release(window)
    if kind == "hook-raise":
        raise KeyError(SECRET)
    return None


@hookimpl
def setveil_window_rejected(window, model, reason):
    if window is not None and fault(window) == "observer-interrupt":
        raise KeyboardInterrupt
'''

SECRET = "secret-diagnosis"
M = 2
#: transactions of a window: each window is one message of this many records
WINDOW = 4
HOOK = " (setveil_anonymize_window is also implemented by plugin 'faulty')"
TOO_LONG = f"too-long: 4 transaction(s) hold more than m={M} items{HOOK}"
ADDED = ("added-item: {} not in the original transaction at the same position (a release keeps the window's "
         f"order){HOOK}")
#: each fault, with the cause and the reason of its window's dead letter, in whichever process it runs
REASONS = {
    "raise": ("error", "model error: RuntimeError"),
    "infeasible": ("infeasible", "infeasible: no release of this window holds at most m items"),
    "memory": ("error", "model error: MemoryError (out of memory)"),
    "exit": ("error", "model error: SystemExit"),
    "raw": ("check-failed", f"release failed the faulty check: 1 violation; first: {TOO_LONG}"),
    "foreign": ("check-failed", "release failed the faulty check: 1 violation; first: "
                                + ADDED.format("3 released occurrences are")),
    "add": ("check-failed", "release failed the faulty check: 1 violation; first: "
                            + ADDED.format("1 released occurrence is")),
    "checker-raise": ("error", "checker error: ValueError"),
    "checker-none": ("error", "checker error: model 'faulty': its checker returned a NoneType, not an iterable of "
                              "Violations (yield each one, or return a list, empty when the release holds)"),
    "checker-rejects": ("check-failed", "release failed the faulty check: 1 violation; first: refused: the checker "
                                        f"refuses every release of this window{HOOK}"),
    "hook-raw": ("check-failed", f"release failed the faulty check: 1 violation; first: {TOO_LONG}"),
    "hook-raise": ("error", "plugin error: plugin 'faulty' raised KeyError"),
}


#: the release of transactions(None): the first m items of each, in the order the window first names them
RELEASED = [["purchase0", "purchase1"], ["purchase1", "purchase2"], ["purchase2", "purchase3"],
            ["purchase0", "purchase3"]]

TIME_LIMIT = 2.0
#: and those only a window process survives
CHILD_REASONS = {
    **REASONS,
    "hang": ("timeout", f"time limit: not anonymized and checked within model.time_limit={TIME_LIMIT:g} s"),
    "checker-hang": ("timeout", f"time limit: not anonymized and checked within model.time_limit={TIME_LIMIT:g} s"),
    "kill": ("error", "service error: the anonymizing process died (killed by signal 9, SIGKILL, which the kernel's "
                      "OOM killer sends)"),
}


def install(folder: Path) -> Path:
    """The plugin, installed in ``folder`` as pip would install a distribution: its module and a
    dist-info whose entry point names it. ``folder``, on the path, is all a worker needs."""
    folder.mkdir(exist_ok=True)
    (folder / f"{PLUGIN}.py").write_text(textwrap.dedent(SOURCE))
    info = folder / f"{PLUGIN}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PLUGIN}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[setveil]\nfaulty = {PLUGIN}\n")
    return folder


def transactions(kind: str | None) -> list[list[str]]:
    """A window of ``WINDOW`` transactions of 3 items each, holding ``trigger=<kind>`` in its first."""
    rows = [[f"purchase{(i + j) % 5}" for j in range(3)] for i in range(WINDOW)]
    if kind is not None:
        rows[0] = rows[0][:2] + [f"trigger={kind}"]
    return rows


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The plugin installed on this process's path, found through its entry point as setveil finds
    every distribution's; forgotten afterwards, with the manager that loaded it."""
    folder = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    plugins.reset()
    yield folder
    plugins.reset()
    sys.modules.pop(PLUGIN, None)


def cut_of(rows: list[list[str]], first_tid: int = 0, offset: int = 0) -> Cut:
    """One message of ``rows``, tids from ``first_tid``, as a window's cut."""
    return Cut([Message(offset, [Record(items, tid=first_tid + i) for i, items in enumerate(rows)], 100.0)])


def faulty_processor(time_limit: float = 0.0):
    configured = configure("faulty", None, [f"m={M}"], None, None, None, None)
    if time_limit:
        return IsolatedProcessor(configured, 3, False, "test", True, time_limit)
    return WindowProcessor(Pipeline(configured, get_plugin_manager()), 3, False, "test")


def assert_no_contents(value: bytes, headers) -> None:
    """A dead letter that is a reference alone: no label of the window, nor the faults' secret."""
    everything = value + b"".join(name.encode() + (raw if isinstance(raw, bytes) else raw.encode())
                                  for name, raw in headers)
    for label in (SECRET, "purchase", "trigger="):
        assert label.encode() not in everything, label


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_each_fault_of_a_third_partys_plugin_fails_its_window_closed_in_the_window_thread(installed, kind):
    worker = faulty_processor()
    outcome = process_in_thread(worker, "in", 0, cut_of(transactions(kind)))
    assert not outcome.emitted
    assert (outcome.cause, outcome.reason) == REASONS[kind]
    reference = msgpack.unpackb(outcome.value)
    assert set(reference) == {"schema", "window", "model", "reason", "cause", "transactions"}
    assert (reference["cause"], reference["reason"], reference["transactions"]) == (*REASONS[kind], WINDOW)
    assert_no_contents(outcome.value, outcome.headers)
    good = process_in_thread(worker, "in", 0, cut_of(transactions(None), WINDOW, 1))
    assert good.emitted, good.reason
    assert [t["items"] for t in decode_batch(good.value)["transactions"]] == RELEASED


def test_each_fault_of_a_third_partys_plugin_fails_its_window_closed_in_the_window_process(installed):
    # one window process for every fault, as a worker under model.time_limit has: after each, the
    # next window is released, by the same child or by the one that replaced it
    worker = faulty_processor(TIME_LIMIT)
    try:
        for index, kind in enumerate(sorted(CHILD_REASONS)):
            outcome = process_in_thread(worker, "in", 0, cut_of(transactions(kind), 2 * index * WINDOW, 2 * index))
            assert not outcome.emitted
            assert (kind, outcome.cause, outcome.reason) == (kind, *CHILD_REASONS[kind])
            assert msgpack.unpackb(outcome.value)["transactions"] == WINDOW
            assert_no_contents(outcome.value, outcome.headers)
            good = process_in_thread(worker, "in", 0,
                                     cut_of(transactions(None), (2 * index + 1) * WINDOW, 2 * index + 1))
            assert good.emitted, (kind, good.reason)
            assert [t["items"] for t in decode_batch(good.value)["transactions"]] == RELEASED
    finally:
        worker.close()


class _Abandon(BaseException):
    """A plugin's own stop, no Exception."""


@pytest.mark.parametrize("stop", [SystemExit, _Abandon])
def test_a_stop_raised_by_plugin_code_after_the_pipeline_fails_the_window_closed(installed, stop):
    # A model's loss_metric, read as the batch is made, is plugin code that runs after the pipeline
    # in the window thread: its sys.exit() there ended the window thread's call, then the worker
    # (an asyncio task re-raises SystemExit out of the event loop), and every restart met the window.
    class Exits(importlib.import_module(PLUGIN).Faulty):
        @property
        def loss_metric(self):
            raise stop(f"giving up on {SECRET}")

    configured = configure("faulty", None, [f"m={M}"], None, None, None, None)
    configured.model = Exits(configured.model.params, configured.model.context)
    worker = WindowProcessor(Pipeline(configured, get_plugin_manager()), 3, False, "test")
    outcome = process_in_thread(worker, "in", 0, cut_of(transactions(None)))
    assert not outcome.emitted
    assert (outcome.cause, outcome.reason) == ("error", f"service error: {stop.__name__}")
    assert_no_contents(outcome.value, outcome.headers)


def test_a_stop_raised_by_plugin_code_after_the_pipeline_in_the_window_process_fails_only_its_window(
        installed, monkeypatch, capfd):
    # There it ended the window process, whose exit printed the plugin's message (which may quote
    # the data) to the worker's log, and whose death was reported as the OOM killer's SIGKILL
    monkeypatch.setenv("FAULTY_LOSS_METRIC_EXITS", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(installed), os.environ.get("PYTHONPATH")])))
    worker = faulty_processor(TIME_LIMIT)
    try:
        child = worker._child
        outcome = process_in_thread(worker, "in", 0, cut_of(transactions(None)))
        assert worker._child is child and child.is_alive(), "the window process did not live on"
    finally:
        worker.close()
    assert not outcome.emitted
    assert (outcome.cause, outcome.reason) == ("error", "service error: SystemExit")
    assert SECRET not in capfd.readouterr().err


def test_a_window_whose_new_window_process_cannot_start_says_so(installed, monkeypatch, tmp_path):
    # The window process replaced after a death (an OOM kill here) could not start: each window
    # was dead-lettered as 'service error: RuntimeError', which told the operator nothing of why
    cannot_load = tmp_path / "cannot-load"
    monkeypatch.setenv("FAULTY_CANNOT_LOAD_AFTER", str(cannot_load))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(installed), os.environ.get("PYTHONPATH")])))
    worker = faulty_processor(TIME_LIMIT)
    try:
        cannot_load.touch()
        worker._child.kill()
        outcomes = [process_in_thread(worker, "in", 0, cut_of(transactions(None), WINDOW * i, i)) for i in range(2)]
    finally:
        worker.close()
    for outcome in outcomes:
        assert not outcome.emitted
        assert (outcome.cause, outcome.reason) == (
            "error", "service error: the anonymizing process did not start (exit status 3)")


@pytest.fixture
def faulty_worker(installed, tmp_path, monkeypatch):
    """Start ``setveil serve --model faulty`` with the plugin installed on its path (the workers
    are stopped afterwards)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(installed), os.environ.get("PYTHONPATH")])))
    workers: list[WorkerProcess] = []

    def start(settings) -> WorkerProcess:
        worker = WorkerProcess(settings, ["--model", "faulty", "-P", f"m={M}"], tmp_path / f"worker-{len(workers)}.log")
        workers.append(worker.start())
        worker.wait_ready()
        return worker

    yield start
    for worker in workers:
        worker.stop()


def window_settings(make_settings, **changes):
    """One partition, cut into windows of one message of ``WINDOW`` records each."""
    return make_settings(topics__partitions=1, window__max_transactions=WINDOW, window__min_transactions=WINDOW,
                         window__max_seconds=0.2, **changes)


def values(kinds: list[str | None]) -> list[bytes]:
    """A message for each window of ``kinds``: tids 4i to 4i + 3 for the i-th."""
    return [msgpack.packb([{"tid": WINDOW * i + j, "items": items} for j, items in enumerate(transactions(kind))])
            for i, kind in enumerate(kinds)]


def assert_fail_closed(settings, kinds: list[str | None], reasons: dict) -> None:
    """The output topic holds one verified batch of each window without a fault, released as the
    model says, and nothing else; the dead-letter topic one reference of each window with a fault,
    with its reason and cause, and nothing else; no label of a faulty window reaches either."""
    output = read_topic(settings, settings.topics.output)
    assert all(message.headers["ce_type"] == BATCH_TYPE for message in output)
    released = {decode_batch(message.value)["window"]["id"]: decode_batch(message.value) for message in output}
    assert len(released) == len(output), "a window released twice"
    good = [offset for offset, kind in enumerate(kinds) if kind is None]
    assert sorted(released) == sorted(f"{settings.topics.input}/0/{offset}-{offset}" for offset in good)
    for offset in good:
        batch = released[f"{settings.topics.input}/0/{offset}-{offset}"]
        assert batch["verified"] is True
        assert [t["tid"] for t in batch["transactions"]] == list(range(WINDOW * offset, WINDOW * offset + WINDOW))
        assert [t["items"] for t in batch["transactions"]] == RELEASED
    letters = read_topic(settings, settings.topics.dlq)
    assert all(message.headers["ce_type"] == REJECTED_WINDOW_TYPE for message in letters)
    found = {message.headers["ce_id"]: (message.headers["setveil_cause"], message.headers["setveil_reason"])
             for message in letters}
    assert len(found) == len(letters), "a window dead-lettered twice"
    assert found == {f"{settings.topics.input}/0/{offset}-{offset}": reasons[kind]
                     for offset, kind in enumerate(kinds) if kind is not None}
    for message in letters:
        reference = msgpack.unpackb(message.value)
        assert set(reference) == {"schema", "window", "model", "reason", "cause", "transactions"}
        assert reference["transactions"] == WINDOW
        assert_no_contents(message.value, list(message.headers.items()))


def each_fault_between_good_windows(faults) -> list[str | None]:
    return [None] + [kind for fault in faults for kind in (fault, None)]


@pytest.mark.slow
@pytest.mark.parametrize("time_limit", [0.0, TIME_LIMIT])
def test_a_worker_dead_letters_each_fault_of_a_third_partys_plugin_and_goes_on(make_settings, faulty_worker,
                                                                                time_limit):
    reasons = CHILD_REASONS if time_limit else REASONS
    kinds = each_fault_between_good_windows(sorted(reasons))
    settings = window_settings(make_settings, model__time_limit=time_limit)
    worker = faulty_worker(settings)
    produce(settings, values(kinds))
    emitted, rejected = kinds.count(None), len(kinds) - kinds.count(None)
    wait_until(lambda: committed(settings) == len(kinds), 120, "every window released or dead-lettered, and committed")
    samples = worker.metrics()
    assert samples["setveil_windows_emitted_total"] == emitted
    assert sum(value for name, value in samples.items()
               if name.startswith("setveil_windows_rejected_total{")) == rejected
    assert_fail_closed(settings, kinds, reasons)
    assert worker.stop(timeout=30) == 0
    log = worker.log_text()
    assert SECRET not in log and "purchase" not in log and "trigger=" not in log
    assert "Traceback" not in log and "[ERROR]" not in log


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["hang", "kill"])
def test_a_window_that_hangs_or_kills_a_worker_without_a_time_limit_is_not_committed(make_settings, faulty_worker,
                                                                                    kind):
    # Without model.time_limit the window runs in the worker: a model that hangs holds it, one that
    # kills its process kills the worker. Either way nothing of the window or after it is committed,
    # so the worker restarted under a time limit dead-letters it and releases the rest.
    kinds = [None, None, kind, None]
    settings = window_settings(make_settings)
    first = faulty_worker(settings)
    produce(settings, values(kinds)[:2])
    wait_until(lambda: committed(settings) == 2, 60, "the two windows before the fault committed")
    produce(settings, values(kinds)[2:])
    if kind == "hang":
        time.sleep(3)  # Faust commits every 0.5 s (consumer.commit_interval)
        assert first.process.poll() is None
        assert first.stop(timeout=30) == 0
    else:
        wait_until(lambda: first.process.poll() is not None, 30, "the worker killed by its model")
        assert first.process.returncode == -9
    assert committed(settings) == 2
    assert_fail_closed(settings, kinds[:2], {})
    second = faulty_worker(settings.replace(model__time_limit=TIME_LIMIT))
    wait_until(lambda: committed(settings) == len(kinds), 60, "the fault dead-lettered and the last window released")
    assert_fail_closed(settings, kinds, CHILD_REASONS)
    assert second.stop(timeout=30) == 0


@pytest.mark.slow
def test_an_observer_that_raises_a_stop_on_a_window_the_service_fails_itself_changes_nothing(make_settings,
                                                                                               faulty_worker):
    # An observer raising KeyboardInterrupt is its plugin's error in a worker, logged and changing
    # nothing (docs/plugins.md): no Ctrl-C reaches a worker's code, Faust takes the signals. A
    # window the service fails itself (too large a batch here) was observed on the event loop,
    # in the main thread, where it stopped the worker, and every restart met the same window.
    settings = make_settings(topics__partitions=1, window__max_transactions=200, window__min_transactions=200,
                             producer__max_request_bytes=4096, records__max_message_bytes=1024)
    worker = faulty_worker(settings)
    rows = [[f"purchase{i % 50}", f"purchase{50 + i % 7}"] for i in range(400)]
    rows[0] = [*rows[0], "trigger=observer-interrupt"]
    produce(settings, [msgpack.packb([{"tid": tid, "items": rows[tid]} for tid in range(start, start + 10)])
                       for start in range(0, 400, 10)])
    wait_until(lambda: committed(settings) == 40, 60, "both windows dead-lettered as oversize, and committed")
    letters = read_topic(settings, settings.topics.dlq)
    assert [(m.headers["ce_id"], m.headers["setveil_cause"]) for m in letters] == [
        (f"{settings.topics.input}/0/0-19", "oversize"), (f"{settings.topics.input}/0/20-39", "oversize")]
    assert read_topic(settings, settings.topics.output) == []
    assert worker.process.poll() is None
    assert worker.stop(timeout=30) == 0
    assert "observer faulty of setveil_window_rejected raised KeyboardInterrupt; the window's outcome stands" in \
        worker.log_text()


@pytest.mark.slow
@pytest.mark.parametrize("time_limit", [0.0, TIME_LIMIT])
def test_a_worker_dead_letters_windows_whose_plugin_code_exits_after_the_pipeline_and_goes_on(
        make_settings, faulty_worker, monkeypatch, time_limit):
    # the model's loss_metric exits as each batch is made: in the window thread it ended the worker,
    # which met the window again on every restart; in the window process it printed its message
    monkeypatch.setenv("FAULTY_LOSS_METRIC_EXITS", "1")
    kinds = ["raw", None, None]
    settings = window_settings(make_settings, model__time_limit=time_limit)
    worker = faulty_worker(settings)
    produce(settings, values(kinds))
    wait_until(lambda: committed(settings) == len(kinds), 60, "every window dead-lettered, and committed")
    exited = ("error", "service error: SystemExit")
    assert_fail_closed(settings, [kind or "exited" for kind in kinds], {**REASONS, "exited": exited})
    assert worker.process.poll() is None
    assert worker.stop(timeout=30) == 0
    assert SECRET not in worker.log_text()
