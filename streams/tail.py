"""Reading the batches back (``setveil tail``): live per-window summaries, or the release.

Batches are read from the start of every output partition without a consumer group. A batch
whose window id was seen already is a re-delivery (at-least-once) and is dropped. With
``out`` the released transactions are written ordered by tid, one line each, so that a
release of a replayed file lines up with that file exactly as ``setveil anonymize`` output
does (an emptied transaction is an empty line); that needs integer tids ``0..n-1`` each
exactly once, as ``setveil replay`` numbers them.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from setveil.core.formats import render_window
from setveil.core.output import text_bytes, write_outputs

from . import kafka
from .codec import BATCH_SCHEMA, BATCH_TYPE, REJECTED_RECORD_TYPE, REJECTED_WINDOW_TYPE, decode_batch, is_integer
from .released import Released, ReleaseError
from .settings import Settings


@dataclass
class WindowSummary:
    """One batch: ``opened`` is when its first message arrived, ``closed`` when the worker began
    to anonymize it (when it was cut, or later when it waited for the windows ahead of it, as
    docs/batch-format.md says of ``window.closed``), ``emitted`` its Kafka timestamp;
    ``latency`` = emitted - opened."""

    id: str
    partition: int
    transactions: int
    information_loss: float
    opened: float
    closed: float
    emitted: float
    verified: bool

    @property
    def latency(self) -> float:
        return self.emitted - self.opened


@dataclass
class Collected:
    windows: int = 0
    duplicates: int = 0
    transactions: int = 0
    items_in: int = 0
    #: the windows' information loss, each weighted by its input item occurrences
    weighted_loss: float = 0.0
    started: float = field(default_factory=time.monotonic)
    latencies: list[float] = field(default_factory=list)
    #: the released transactions, when kept
    release: Released = field(default_factory=Released)

    @property
    def information_loss(self) -> float:
        """The model's measure over the whole release: every model setveil ships measures a mean
        over the input's item occurrences (S/N, NCP), so the windows' measures weighted by their
        occurrences make the release's, for generalization as for suppression."""
        return 0.0 if self.items_in == 0 else self.weighted_loss / self.items_in


#: seconds without a batch, short of ``count``, before tail says what may be holding the rest
WAITING_SECONDS = 20.0


async def collect(settings: Settings, count: int | None = None, idle: float | None = None, keep: bool = False,
                  on_window: Callable[[WindowSummary, Collected], None] | None = None,
                  stop: asyncio.Event | None = None, on_waiting: Callable[[Collected], None] | None = None,
                  waiting: float = WAITING_SECONDS, on_note: Callable[[str], None] | None = None) -> Collected:
    """Read batches until ``count`` transactions, ``idle`` seconds without one, or ``stop``.
    ``on_waiting`` is called once per quiet spell of ``waiting`` seconds while short of ``count``;
    ``on_note`` with what :func:`.kafka.fetch` notes."""
    seen: set[str] = set()
    out = Collected()
    last = time.monotonic()
    told = False

    def enough() -> bool:
        return count is not None and out.transactions >= count

    async with kafka.reading_from_start(settings, settings.topics.output, "output", "topics.output") as consumer:
        while not enough():
            if stop is not None and stop.is_set():
                break
            batch = await kafka.fetch(consumer, on_note)
            now = time.monotonic()
            if not batch:
                if idle is not None and now - last > idle:
                    break
                if count is not None and on_waiting is not None and not told and now - last > waiting:
                    on_waiting(out)
                    told = True
                continue
            last, told = now, False
            for message in (message for messages in batch.values() for message in messages):
                if enough():
                    break  # a fetch may hold more windows than --count asks for: the rest are not shown
                decoded = _batch_of(message)
                if not _readable(decoded):
                    raise _unreadable(message)
                try:  # a transaction's own fields, which --out reads
                    summary = _take(decoded, message.timestamp / 1000, seen, out, keep)
                except (KeyError, TypeError, AttributeError):
                    raise _unreadable(message) from None
                if summary is not None and on_window is not None:
                    on_window(summary, out)
    return out


def _batch_of(message) -> dict[str, Any]:
    """The message's batch. Another kind of message ends tail, as docs/batch-format.md
    ("Versioning") tells every consumer: a batch of a newer schema skipped would leave the
    release short, or a window missing from the counts, without a word. Its ce_type is read
    before its value, so a message of another type is named by what it is, a dead letter or
    another producer's, rather than by why its value does not decode, and its value is never
    shown."""
    ce_type = (dict(message.headers or ()).get("ce_type") or b"").decode("utf-8", "replace")
    if ce_type and ce_type != BATCH_TYPE:
        raise _not_a_batch(message, ce_type, _kind_of(ce_type))
    try:
        return decode_batch(message.value)
    except (ValueError, msgpack.UnpackException):
        if message.value is None:  # a tombstone, which no setveil writes to the output topic, newer or not
            why = "its value is null"
        elif not message.value:
            why = "its value has no bytes"
        elif ce_type:
            why = f"its value is not the map its ce_type {BATCH_TYPE} says"
        else:
            why = "every message setveil writes has a ce_type: another producer wrote it"
        raise _not_a_batch(message, ce_type, why) from None


def _kind_of(ce_type: str) -> str:
    """What a message of ``ce_type``, not a batch's, is: the reason tail gives for stopping at it."""
    if ce_type in (REJECTED_WINDOW_TYPE, REJECTED_RECORD_TYPE):
        return "it is a dead letter, which setveil tail --dead-letters reads from topics.dlq"
    if ce_type.startswith("org.setveil."):
        return "a newer setveil may have written it"
    return "another producer wrote it"


def _not_a_batch(message, ce_type: str, why: str) -> ReleaseError:
    shown = kafka.cut(ce_type or "(none)")
    return ReleaseError(f"{_where(message)} is not a {BATCH_SCHEMA} message (ce_type {shown}): {why}; "
                        "tail stops rather than skip it")


def _readable(batch: dict[str, Any]) -> bool:
    """Whether the fields tail counts have the types docs/batch-format.md gives: a dict of
    transactions has a length too, and a string loss times a huge count is a MemoryError."""
    window, metrics, transactions = batch.get("window"), batch.get("metrics"), batch.get("transactions")
    return (isinstance(window, dict) and isinstance(metrics, dict) and isinstance(transactions, list)
            and all(isinstance(transaction, dict) for transaction in transactions)
            and isinstance(window.get("id"), str) and is_integer(window.get("partition"))
            and all(_real(value) for value in (window.get("opened"), window.get("closed"),
                                               metrics.get("information_loss")))
            and is_integer(metrics.get("items_in")) and isinstance(batch.get("verified"), bool))


def _unreadable(message) -> ReleaseError:
    return ReleaseError(f"{_where(message)} is a {BATCH_SCHEMA} message without the fields, or the types, that "
                        "docs/batch-format.md gives; tail stops rather than skip it")


def _real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _where(message) -> str:
    return f"{message.topic}/{message.partition}/{message.offset}"


def _take(batch: dict[str, Any], emitted: float, seen: set[str], out: Collected, keep: bool) -> WindowSummary | None:
    """Count one batch; ``emitted`` is its Kafka timestamp (when the worker produced it)."""
    window, metrics = batch["window"], batch["metrics"]
    if window["id"] in seen:
        out.duplicates += 1
        return None
    seen.add(window["id"])
    transactions = batch["transactions"]
    out.windows += 1
    out.transactions += len(transactions)
    out.items_in += metrics["items_in"]
    out.weighted_loss += metrics["information_loss"] * metrics["items_in"]
    out.latencies.append(emitted - window["opened"])
    if keep:
        out.release.add(window["id"], transactions)
    return WindowSummary(window["id"], window["partition"], len(transactions), metrics["information_loss"],
                         window["opened"], window["closed"], emitted, batch["verified"])


def write_release(release: Released, path: str | os.PathLike, windows_path: str | os.PathLike | None = None) -> int:
    """Write the release ordered by tid, which must run 0..n-1, and, to ``windows_path``, the id
    of the window that released each of its transactions, one per line: what ``setveil verify
    --windows`` reads to check a release window by window. The union of a long stream's windows
    is safe by each model's union property, and checking it whole can cost more than the machine
    has (a soak: the ``rho`` checker of 1.49 M transactions ran out of 24 GiB). Both are written,
    or neither. Returns the number of transactions."""
    window, windows = release.numbered()
    if windows_path is not None:
        _refuse_unwritable_ids(windows)
    outputs = [(path, render_window(window, path))]
    if windows_path is not None:
        outputs.append((windows_path, text_bytes(windows_path, "".join(f"{name}\n" for name in windows))))
    write_outputs(outputs)
    return len(window)


def _refuse_unwritable_ids(windows: list[str]) -> None:
    """Refuse, before anything is written, a window id that would not be read back as the one line
    ``setveil verify --windows`` pairs with each transaction: a line end in it makes two lines (any
    producer may write the output topic, and a worker's ids are topic/partition/offsets), and verify
    strips a line and refuses an empty one."""
    for name in dict.fromkeys(windows):
        if not name.isprintable():
            problem = "holds a character that is not printable (a line end, say)"
        elif not name.strip():
            problem = "is empty or blank"
        elif name != name.strip():
            problem = "has blanks at its ends"
        else:
            continue
        raise ReleaseError(f"--windows: window id {kafka.cut(name)!r} {problem}, so it cannot be written as the one "
                           "line of each of its transactions that verify --windows reads; nothing written: give --out "
                           "alone")
