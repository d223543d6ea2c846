"""One window through the core's fail-closed path, into a batch or a rejection (docs/operations.md,
"Delivery guarantees").

The records of a cut become a columnar :class:`~setveil.core.window.Window` (optionally with
each subject's transactions merged into one, since the papers assume one transaction per
individual), :meth:`setveil.core.engine.Pipeline.run` anonymizes and independently checks it
with a generator seeded by the run's seed and the window id, and the outcome is encoded: a
``setveil.batch/1`` message, or, when the pipeline raised
:class:`~setveil.core.errors.WindowRejected`, a ``setveil.rejected-window/1`` reference for
the dead-letter topic. Nothing here touches Kafka, so it runs in a worker thread.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from setveil.core.engine import Pipeline, notify, user_stop, window_rng
from setveil.core.errors import WindowRejected
from setveil.core.labeltext import label_folds
from setveil.core.plugins import Configured
from setveil.core.schema import misspelt_lines, misspelt_reason
from setveil.core.subjects import merge_records
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window, detached

from . import causes, codec
from .codec import MessageRecords
from .windowing import Cut, Message


@dataclass
class Built:
    """A window's transactions and what each released transaction carries besides its items."""

    window: Window
    fields: list[dict[str, Any]]
    records: int


@dataclass
class Prepared:
    ref: codec.WindowRef
    built: Built


@dataclass
class Outcome:
    ref: codec.WindowRef
    value: bytes
    headers: list[tuple[str, bytes]]
    transactions: int
    emitted: bool
    report: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    cause: str | None = None


def default_tid(partition: int, offset: int, index: int, single: bool) -> str:
    """The tid of a record that has none: where it is in the log."""
    return f"{partition}:{offset}" if single else f"{partition}:{offset}:{index}"


def build_window(cut: Cut, partition: int, merge_subjects: bool) -> Built:
    invalid = cut.repeated_tids
    kept = [message for message in cut.messages if message.offset not in invalid]
    columns = [message.records for message in kept]
    subjects = [*itertools.chain.from_iterable(records.subjects for records in columns)] if merge_subjects else []
    if subjects.count(None) != len(subjects):  # "" and 0 are subjects too
        transactions, fields = merge_records(zip(_tids(kept, partition),
                                                 itertools.chain.from_iterable(map(MessageRecords.items, columns)),
                                                 subjects))
        lengths = np.fromiter(map(len, transactions), dtype=np.int64, count=len(transactions))
        labels = itertools.chain.from_iterable(transactions)
        tids = [extra["tid"] for extra in fields]
    else:
        # each record a transaction of its own: the messages' columns joined, where each record's
        # items were a list of its own that merge_records went through one by one in Python
        tids = _tids(kept, partition)
        fields = [{"tid": tid} for tid in tids]
        lengths = np.fromiter(itertools.chain.from_iterable(records.lengths for records in columns), dtype=np.int64,
                              count=len(fields))
        labels = itertools.chain.from_iterable(records.labels for records in columns)
    # labels are numbered as they first occur, in C: the labels of a record are unique (decode_message checks)
    numbered: defaultdict[str, int] = defaultdict(itertools.count().__next__)
    ids = np.fromiter(map(numbered.__getitem__, labels), dtype=np.int32, count=int(lengths.sum()))
    # the numbering is the vocabulary's map, its labels (str as decoded) in the order of their ids: a
    # Vocabulary made of them checked each label's type and mapped them again
    window = Window.from_flat(Vocabulary.snapshot(tuple(numbered), numbered), lengths, ids, tids)
    return Built(window, fields, sum(map(len, columns)))


def _tids(messages: list[Message], partition: int) -> list[Any]:
    """The tid of each record of ``messages``: its own, or where it is in the log (:func:`default_tid`)."""
    tids: list[Any] = []
    for message in messages:
        given = message.records.tids
        if None in given:
            single = len(given) == 1
            given = [default_tid(partition, message.offset, index, single) if tid is None else tid
                     for index, tid in enumerate(given)]
        tids += given
    return tids


def model_map(configured: Configured) -> dict[str, Any]:
    """What a batch or a rejected window says of the model that made it."""
    return {
        "name": configured.model.name,
        "policy": configured.policy.name,
        "parameters": configured.shown_params(),
        "context": configured.digests(),
    }


class WindowProcessor:
    def __init__(self, pipeline: Pipeline, seed: int, merge_subjects: bool, source: str):
        self.pipeline = pipeline
        self.seed = seed
        self.merge_subjects = merge_subjects
        self.source = source
        self.model_map = model_map(pipeline.configured)

    def process(self, topic: str, partition: int, cut: Cut) -> Outcome:
        return self.run(self.prepare(topic, partition, cut))

    def prepare(self, topic: str, partition: int, cut: Cut) -> Prepared:
        """The window's transactions and reference: what :meth:`run` needs, free of Kafka handles."""
        return Prepared(self._ref(topic, partition, cut), build_window(cut, partition, self.merge_subjects))

    def run(self, prepared: Prepared) -> Outcome:
        ref, built = prepared.ref, prepared.built
        if reason := self._misspelt(built.window):
            return self.rejected(prepared, reason, causes.ERROR)
        try:
            outcome = self.pipeline.run(built.window, window_rng(self.seed, ref.id))
        except WindowRejected as exc:
            # an Infeasible raised by the checker or the loss is their error, not the model's refusal
            cause = causes.INFEASIBLE if exc.refused else causes.ERROR if exc.cause is not None else causes.CHECK_FAILED
            return self._rejected(ref, exc.reason, cause, len(built.window))
        report = outcome.report
        released = outcome.release.window
        model = self.pipeline.model
        metrics = {
            "transactions": report["transactions"],
            "records": built.records,
            "items_in": report["items_before"],
            "items_out": report["items_after"],
            "information_loss": report["info_loss"],
            "loss_metric": model.loss_metric,
            "anonymize_seconds": report["anonymize_seconds"],
            "verify_seconds": report["verify_seconds"],
        }
        value = codec.encode_released(ref, self.model_map, report["verified"], metrics, built.fields,
                                      released)
        headers = codec.cloudevents_headers(codec.BATCH_TYPE, ref.id, self.source)
        return Outcome(ref, value, headers, len(built.window), True, report=report)

    def failed(self, topic: str, partition: int, cut: Cut, reason: str, cause: str = causes.ERROR,
               closed: float | None = None) -> Outcome:
        """The rejection of a window that broke, or may not be released, outside the pipeline;
        ``closed``: when the worker began to anonymize it, if it did (now otherwise)."""
        try:
            window = build_window(cut, partition, self.merge_subjects).window
        except Exception:  # the service error may be this very step; observers get no window then
            window = None
        self._observe_rejection(window, reason)
        # the window's transactions, as every other rejection counts them (QA as a consumer: its
        # records, which merge_subjects makes more, could not be told apart); its records when
        # there is no window
        transactions = cut.transactions if window is None else len(window)
        return self._rejected(self._ref(topic, partition, cut, closed), reason, cause, transactions)

    def rejected(self, prepared: Prepared, reason: str, cause: str) -> Outcome:
        """The rejection of a prepared window that the pipeline did not finish."""
        self._observe_rejection(prepared.built.window, reason)
        return self._rejected(prepared.ref, reason, cause, len(prepared.built.window))

    def close(self) -> None:
        """Nothing to release: windows run in the caller's thread."""

    def _misspelt(self, window: Window) -> str | None:
        """Why the window may not be released when an item list names, by a line, an item the
        window spells otherwise, only or as well (``hiv`` for ``HIV``; a byte-order mark before
        some records' ``HIV``, :func:`~setveil.core.schema.misspelt`): the item meant would be
        released as unlisted, a sensitive one unprotected, while the release passes
        its check. ``setveil anonymize`` refuses such a list for its input; a worker sees its input
        one window at a time. Line numbers only, no labels."""
        schema = self.pipeline.configured.model.context.schema
        if schema is None or not (schema.private or schema.public):
            return None
        # one fold of the window's labels serves both lists' checks
        held_folds, listed = label_folds(window.vocab.labels), schema.listed
        for setting, labels, first_lines, consequence in (
                ("model.sensitive", schema.private, schema.private_lines, "released unprotected"),
                ("model.public", schema.public, schema.public_lines, "left out of what the attacker may know")):
            if labels and (lines := misspelt_lines(labels, first_lines, window.vocab, listed, held_folds)):
                return misspelt_reason(f"the list of {setting}", lines, f"which would be {consequence}",
                                       "list it as the input spells it, each spelling the input uses")
        return None

    def _ref(self, topic: str, partition: int, cut: Cut, closed: float | None = None) -> codec.WindowRef:
        # a message dead-lettered for a repeated tid is no message of the window's, as the batch's
        # window.messages says of dead letters: counted, it was counted twice by a reconciliation
        windowed = len(cut.messages) - len(cut.repeated_tids)
        return codec.WindowRef(topic, partition, cut.first_offset, cut.last_offset, windowed,
                               cut.messages[0].received, time.time() if closed is None else closed)

    def _observe_rejection(self, window: Window | None, reason: str) -> None:
        # Pipeline.run tells the observers of the rejections it makes; these are the others.
        notify(self.pipeline.hook.setveil_window_rejected, window=None if window is None else detached(window)[0],
               model=self.pipeline.model, reason=reason)

    def _rejected(self, ref: codec.WindowRef, reason: str, cause: str, transactions: int) -> Outcome:
        value, headers = codec.rejected_window_message(ref, self.model_map, reason, cause, transactions, self.source)
        return Outcome(ref, value, headers, transactions, False, reason=reason, cause=cause)


class Processes(Protocol):
    """What anonymizes a worker's windows: a :class:`WindowProcessor`, or the window process's."""

    def process(self, topic: str, partition: int, cut: Cut) -> Outcome: ...

    def failed(self, topic: str, partition: int, cut: Cut, reason: str, cause: str = causes.ERROR,
               closed: float | None = None) -> Outcome: ...


def process_in_thread(processor: Processes, topic: str, partition: int, cut: Cut) -> Outcome:
    """The outcome of a window anonymized in the worker's window thread (or handed from it to
    the window process): what breaks outside the pipeline fails the window closed too. A stop
    raised by plugin code in this thread, which no Ctrl-C reaches, the pipeline and the
    observers' caller take as that code's error (:func:`~setveil.core.engine.user_stop`)."""
    began = time.time()
    try:
        return processor.process(topic, partition, cut)
    except BaseException as exc:  # a bug outside the pipeline still must not emit the window
        # plugin code runs here outside the pipeline too (a model's loss_metric, an outcome the
        # window process sends unpickled): its sys.exit() ended the worker at this window
        if user_stop(exc):
            raise
        return processor.failed(topic, partition, cut, f"service error: {type(exc).__name__}", closed=began)
