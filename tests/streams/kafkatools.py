"""Test-side Kafka access: produce raw messages, read whole topics, wait on conditions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgpack
from aiokafka import TopicPartition

from setveil.streams import kafka
from setveil.streams.settings import Settings
from setveil.streams.windowlog import WindowLogReader


@dataclass
class Read:
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: dict[str, str]
    timestamp: float


def headers_dict(headers: Sequence[tuple[str, bytes]] | None) -> dict[str, str]:
    return {name: value.decode("utf-8", "replace") for name, value in (headers or ())}


def wait_until(predicate: Callable[[], object], timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


async def send(settings: Settings, topic: str, messages: Sequence[tuple[int, bytes | None, int | None]],
               compression: str | None = None) -> None:
    """Send messages, each (partition, value, its Kafka timestamp in ms or None for the producer's
    clock), to ``topic``, in order, and wait for every acknowledgement; ``compression``: the
    producer's codec, if not the one producer.compression names."""
    await kafka.ensure_topics(settings, [topic])
    codec = {} if compression is None else {"compression_type": compression}
    producer = kafka.producer(settings, linger_ms=5, **codec)
    await producer.start()
    try:
        futures = [await producer.send(topic, value, partition=partition, timestamp_ms=emitted)
                   for partition, value, emitted in messages]
        await asyncio.gather(*futures)
    finally:
        await producer.stop()


def produce(settings: Settings, values: Sequence[bytes], partition: int | Callable[[int], int] = 0,
            compression: str | None = None) -> None:
    """Send raw message values to the input topic, in order, and wait for every acknowledgement
    (:func:`send`)."""
    targets = [partition(index) if callable(partition) else partition for index in range(len(values))]
    messages = [(target, value, None) for target, value in zip(targets, values)]
    asyncio.run(send(settings, settings.topics.input, messages, compression))


def records(transactions: Sequence[Sequence[str]], first_tid: int = 0, batch: int = 1) -> list[bytes]:
    """Message values holding the transactions (tid = position), ``batch`` records per message."""
    out = []
    for start in range(0, len(transactions), batch):
        chunk = [{"tid": first_tid + start + i, "items": list(t)} for i, t in enumerate(transactions[start:start + batch])]
        out.append(msgpack.packb(chunk if batch > 1 else chunk[0]))
    return out


def committed(settings: Settings) -> int:
    """The group's committed offset of input partition 0, where a worker's delivery would begin
    (the partition's first offset when none is)."""

    async def read() -> int:
        reader = WindowLogReader(settings, 1)
        try:
            return await reader.resume_offset(0)
        finally:
            await reader.stop()

    return asyncio.run(read())


def read_topic(settings: Settings, topic: str, timeout: float = 5.0) -> list[Read]:
    """Every message of ``topic`` now in the log (all partitions, from the beginning)."""

    async def run():
        counts = await kafka.ensure_topics(settings, [topic])
        consumer = kafka.consumer(settings, group_id=None, enable_auto_commit=False,
                                  max_partition_fetch_bytes=64 << 20)
        await consumer.start()
        try:
            tps = [TopicPartition(topic, p) for p in range(counts[topic])]
            consumer.assign(tps)
            ends = await kafka.partition_ends(consumer, tps)
            await consumer.seek_to_beginning(*tps)
            out: list[Read] = []
            deadline = asyncio.get_running_loop().time() + timeout
            while [tp for tp in tps if await consumer.position(tp) < ends[tp]]:
                if asyncio.get_running_loop().time() > deadline:
                    raise AssertionError(f"could not read {topic} to its end")
                batch = await consumer.getmany(timeout_ms=200)
                for tp, messages in batch.items():
                    out.extend(Read(tp.partition, m.offset, m.key, m.value, headers_dict(m.headers), m.timestamp / 1000)
                               for m in messages if m.offset < ends[tp])
            return out
        finally:
            await consumer.stop()

    return asyncio.run(run())
