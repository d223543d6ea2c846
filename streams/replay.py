"""Producing a transaction file into the input topic (``setveil replay``).

Transaction i of the file gets tid i, its 0-based position, unless its record (JSONL, msgpack)
has a tid of its own: the tids the core's readers give, so a release collected with ``setveil
tail --out`` lines up with a file without tids exactly as ``setveil anonymize`` output does.
Records carry items and tids only: a ``subject`` of the file is not sent (the core's windows
hold none), so ``window.merge_subjects`` needs a producer of its own. ``--batch N`` packs N
records into one msgpack array per message (much less per-message overhead in the worker);
messages go to the input partitions in turn; ``--rate`` caps transactions per second.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass

import msgpack
from aiokafka.errors import KafkaError

from setveil.core.window import Window

from . import kafka
from .settings import Settings

INFLIGHT = 512


@dataclass
class ReplayStats:
    transactions: int
    messages: int
    seconds: float


def messages(window: Window, batch: int, count: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(transactions, value) of each message: one record, or an array of ``batch`` records."""
    pack = msgpack.Packer(use_bin_type=True).pack
    total = len(window) if count is None else min(count, len(window))
    chunk: list[dict] = []
    for position, labels in enumerate(window):
        if position >= total:
            break
        chunk.append({"tid": window.tid(position), "items": labels})
        if len(chunk) == batch:
            yield len(chunk), pack(chunk if batch > 1 else chunk[0])
            chunk = []
    if chunk:
        yield len(chunk), pack(chunk if batch > 1 else chunk[0])


async def replay(settings: Settings, window: Window, batch: int = 1, rate: float | None = None,
                 count: int | None = None) -> ReplayStats:
    counts = await kafka.ensure_topics(settings, [settings.topics.input])
    partitions = counts[settings.topics.input]
    producer = kafka.producer(settings, linger_ms=max(settings.producer.linger_ms, 5))
    await producer.start()
    sent = sent_messages = 0
    started = time.monotonic()
    pending: list[asyncio.Future] = []
    try:
        for index, (size, value) in enumerate(messages(window, batch, count)):
            pending.append(await producer.send(settings.topics.input, value, partition=index % partitions))
            sent += size
            sent_messages += 1
            if len(pending) >= INFLIGHT:
                await asyncio.gather(*pending)
                pending.clear()
            if rate is not None:
                ahead = sent / rate - (time.monotonic() - started)
                if ahead > 0:
                    await asyncio.gather(*pending)
                    pending.clear()
                    await asyncio.sleep(ahead)
        await asyncio.gather(*pending)
    except KafkaError as exc:
        # aiokafka's own error ended the command in a traceback
        raise kafka.BrokerUnavailable(
            f"the broker at {settings.kafka.bootstrap} (kafka.bootstrap) stopped taking messages after {sent} "
            f"transactions were sent ({type(exc).__name__}); the input topic may hold some of them") from None
    finally:
        await producer.stop()
    return ReplayStats(sent, sent_messages, time.monotonic() - started)
