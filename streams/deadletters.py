"""Reading the dead-letter topic back (``setveil tail --dead-letters``): why windows failed closed
and which input messages could not be read.

Only the headers and a rejected window's reference are read; a record dead letter's value (the
producer's original bytes, which may hold transactions) is never decoded or shown. Dead letters
are deduplicated by ``ce_id`` as docs/batch-format.md tells consumers to.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import msgpack
from . import kafka
from .codec import REJECTED_RECORD_TYPE, REJECTED_WINDOW_TYPE, is_integer
from .settings import Settings


@dataclass(frozen=True)
class DeadLetter:
    """One dead letter: ``kind`` is ``window`` or a record's kind (``malformed``, ...); ``cause``
    is a window's cause (empty for a record); ``where`` is the ``ce_id`` (topic/partition/offsets)."""

    kind: str
    where: str
    cause: str
    reason: str
    transactions: int | None


@dataclass
class DeadLetters:
    letters: int = 0
    duplicates: int = 0
    windows: Counter = field(default_factory=Counter)
    records: Counter = field(default_factory=Counter)
    unknown: int = 0


async def collect_dead_letters(settings: Settings, idle: float | None = None,
                               on_letter: Callable[[DeadLetter], None] | None = None,
                               stop: asyncio.Event | None = None,
                               on_note: Callable[[str], None] | None = None) -> DeadLetters:
    """Read ``topics.dlq`` from its start until ``idle`` seconds pass without a dead letter, or
    ``stop``; ``on_note`` is called with what :func:`.kafka.fetch` notes."""
    topic = settings.topics.dlq
    seen: set[str] = set()
    out = DeadLetters()
    last = time.monotonic()
    async with kafka.reading_from_start(settings, topic, "dead-letter", "topics.dlq") as consumer:
        while not (stop is not None and stop.is_set()):
            batch = await kafka.fetch(consumer, on_note)
            now = time.monotonic()
            if not batch:
                if idle is not None and now - last > idle:
                    break
                continue
            last = now
            for messages in batch.values():
                for message in messages:
                    letter = read_dead_letter(dict(message.headers or ()), message.value)
                    if take(letter, seen, out) and on_letter is not None:
                        on_letter(letter)
    return out


def missing(name: str) -> str:
    """What stands for header ``name`` where a dead letter lacks it, or has it empty or null: a
    message someone else wrote to the topic. A blank field read as a value setveil wrote empty."""
    return f"(no {name})"


def read_dead_letter(headers: dict[str, bytes | None], value: bytes | None) -> DeadLetter:
    """A dead letter from its headers; only a rejected window's value (a reference) is decoded.
    A header its kind always has is :func:`missing` when it is not there; a lacking ``ce_id``
    stays empty, as it says the letter is no copy of another (:func:`take`)."""

    def header(name: str) -> str:
        return (headers.get(name) or b"").decode("utf-8", "replace")  # a header's value may be null

    def expected(name: str) -> str:
        return header(name) or missing(name)

    ce_type, where = header("ce_type"), header("ce_id")
    if ce_type == REJECTED_WINDOW_TYPE:
        return DeadLetter("window", where, expected("setveil_cause"), expected("setveil_reason"),
                          _window_transactions(value))
    if ce_type == REJECTED_RECORD_TYPE:
        return DeadLetter(expected("setveil_kind"), where, "", expected("setveil_reason"), None)
    return DeadLetter("unknown", where, "", f"a message of ce_type {kafka.cut(ce_type or '(none)')}, not a dead "
                      "letter this version of setveil writes", None)


def _window_transactions(value: bytes | None) -> int | None:
    try:
        reference = msgpack.unpackb(value or b"", raw=False)
    except (ValueError, msgpack.UnpackException):
        return None
    transactions = reference.get("transactions") if isinstance(reference, dict) else None
    return transactions if is_integer(transactions) else None


def take(letter: DeadLetter, seen: set[str], out: DeadLetters) -> bool:
    """Count ``letter`` unless its ``ce_id`` was seen (a re-delivery); whether it was counted.
    A letter without a ``ce_id`` (not one setveil wrote) is no copy of another."""
    if letter.where:
        if letter.where in seen:
            out.duplicates += 1
            return False
        seen.add(letter.where)
    out.letters += 1
    if letter.kind == "window":
        out.windows[letter.cause] += 1
    elif letter.kind == "unknown":
        out.unknown += 1
    else:
        out.records[letter.kind] += 1
    return True
