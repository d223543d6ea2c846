"""The window log: where each window of each input partition ended (docs/operations.md,
"Delivery guarantees").

Offsets are committed only after a window's batch is acknowledged, so a crash or a rebalance
re-delivers every window emitted since the last commit. Windows are cut partly by time, so
re-reading would cut them elsewhere and a consumer would see the same transactions under a
new window id. Before a window is emitted (or dead-lettered), its ``[first, last]`` offsets are
written here and acknowledged; a worker taking over a partition reads the records of that
partition with ``last`` at or after its starting offset and cuts there again
(:meth:`.windowing.Windower.plan`). Only windows that may have been emitted constrain the
cut, and the log is read from its end backwards, so the read is short.

Records are keyed by the input partition (``b"7"``) and written to that partition of the log
when it has one (modulo its partition count otherwise); readers filter on the key. A cut
point beyond the input partition's end is left over from a deleted and re-created input
topic and is ignored.

A read that fails as a broker out of reach makes it fail (a connection refused or closed, a
request not answered) is tried again until ``producer.request_timeout`` has passed since it
began, as a send is; past it the read raises :class:`BrokerSilent` and the worker stops with the
ERROR line of a send not acknowledged (docs/operations.md, "Endpoints"), rather than at once
(QA as an operator: a broker gone just as a partition's first message arrived).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgpack
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from setveil.core.errors import counted

from .codec import is_integer
from .kafka import _admin, consumer, fetch_failure, out_of_reach, partition_ends, start_client
from .settings import Settings

log = logging.getLogger("setveil.streams")

FIRST_READ = 16
STOP_WAIT = 5.0
#: seconds between the attempts of a read that failed as a broker out of reach makes it fail
RETRY_SECONDS = 0.5

T = TypeVar("T")


class WindowLogError(RuntimeError):
    """The window log could not be read: the partition must not be windowed without it."""


class BrokerSilent(WindowLogError):
    """A read of ``topic`` failed, attempt after attempt, for ``producer.request_timeout``;
    ``failure`` names the type of error the attempts failed with."""

    def __init__(self, topic: str, failure: str):
        super().__init__(f"a read of {topic} failed ({failure}) for producer.request_timeout")
        self.topic, self.failure = topic, failure


class UnreadableEntry(WindowLogError):
    """An entry of an input partition's window log is not the ``[first, last]`` offsets a worker
    writes (another producer's, or damaged): the worker stops naming it, where it stopped "after an
    unexpected FormatError" with no word of where, on every restart."""

    def __init__(self, topic: str, log_partition: int, offset: int, input_partition: int):
        super().__init__(f"window log {topic}/{log_partition}/{offset}: the entry of input partition "
                         f"{input_partition} is not the [first, last] offsets a worker writes (another producer's, "
                         "or damaged), and a partition is not windowed without its log; stopping")


def encode_entry(first: int, last: int) -> bytes:
    return msgpack.packb([first, last])


def decode_entry(value: bytes | None) -> tuple[int, int] | None:
    """The ``(first, last)`` of an entry :func:`encode_entry` wrote, or None for any other value."""
    try:
        entry = msgpack.unpackb(value)
    except (ValueError, TypeError, msgpack.UnpackException):  # TypeError: a null value
        return None
    if isinstance(entry, list) and len(entry) == 2 and all(map(is_integer, entry)) and 0 <= entry[0] <= entry[1]:
        return entry[0], entry[1]
    return None


def log_partition(input_partition: int, log_partitions: int) -> int:
    return input_partition % log_partitions


class WindowLogReader:
    """Reads cut points back; one consumer without a group, shared by a worker's partitions."""

    def __init__(self, settings: Settings, log_partitions: int):
        self.topic = settings.topics.windows
        self.input_topic = settings.topics.input
        self.log_partitions = log_partitions
        self.settings = settings
        self.timeout = settings.producer.request_timeout
        self._consumer: AIOKafkaConsumer | None = None
        self._admin: AIOKafkaAdminClient | None = None
        self._stopped = False
        # Partitions opened at the same time share the reader; one read at a time.
        self._lock = asyncio.Lock()

    async def _start(self) -> tuple[AIOKafkaConsumer, AIOKafkaAdminClient]:
        """The reader's consumer and admin client, started on first use."""
        # A client is kept only while the reader is not stopped: one left behind by a stopping
        # worker was logged as "Unclosed AIOKafkaConsumer" (QA).
        self._check_running()
        if self._consumer is None:
            # aiokafka's 40 s for an offsets lookup would outlast producer.request_timeout
            reader = consumer(self.settings, enable_auto_commit=False, group_id=None,
                              request_timeout_ms=int(self.timeout * 1000))
            await start_client(reader.start(), reader.stop)
            self._consumer = reader
        if self._admin is None:
            self._admin = await _admin(self.settings, self.timeout)
        if self._stopped:  # stop() gave up waiting for this read: close what it started
            await self._close()
            self._check_running()
        return self._consumer, self._admin

    def _check_running(self) -> None:
        if self._stopped:
            raise WindowLogError("the window log reader has stopped (the worker is stopping)")

    async def stop(self) -> None:
        """Close the clients once a read under way has ended (up to ``STOP_WAIT`` seconds: a
        client closed under a read left the read waiting 40 s for an answer, or a connection
        open); reads after this raise :class:`WindowLogError`."""
        self._stopped = True
        try:
            await asyncio.wait_for(self._lock.acquire(), STOP_WAIT)
        except asyncio.TimeoutError:
            await self._close()
        else:
            try:
                await self._close()
            finally:
                self._lock.release()

    async def _close(self) -> None:
        if self._consumer is not None:
            reader, self._consumer = self._consumer, None
            try:
                await reader.stop()
            except KafkaError as exc:
                # aiokafka's Fetcher.close() raises again the error its fetch task ended on, which
                # aiokafka logged then; the worker is stopping, and the admin client is closed next
                log.warning("the window log reader's fetcher had ended on %s", fetch_failure(exc))
        if self._admin is not None:
            admin, self._admin = self._admin, None
            await admin.close()

    async def resume_offset(self, input_partition: int) -> int:
        """Where the group's delivery of ``input_partition`` must begin: its committed offset, or
        the partition's first offset when nothing is committed (or retention removed it)."""
        async def read() -> int:
            reader, admin = await self._start()
            tp = TopicPartition(self.input_topic, input_partition)
            first = (await reader.beginning_offsets([tp]))[tp]
            offsets = await admin.list_consumer_group_offsets(self.settings.consumer.group_id, partitions=[tp])
            committed = offsets.get(tp)
            return first if committed is None or committed.offset < 0 else max(committed.offset, first)

        return await self._answered(self.input_topic, read)

    async def first_offset(self, input_partition: int, start: int) -> int:
        """The offset of the first record of ``input_partition`` at or after ``start`` (offsets
        without one hold transaction markers, or were compacted away)."""
        async def read() -> int:
            reader, _ = await self._start()
            tp = TopicPartition(self.input_topic, input_partition)
            reader.assign([tp])
            reader.seek(tp, start)
            while True:  # a record is there (one past it was delivered); the broker may not answer
                batch = await reader.getmany(tp, timeout_ms=1000, max_records=1)
                if batch.get(tp):
                    return batch[tp][0].offset

        return await self._answered(self.input_topic, read)

    async def cut_points(
        self, input_partition: int, start: int, input_end: int | None
    ) -> tuple[list[int], tuple[int, int] | None]:
        """Ends of the windows of ``input_partition`` that end at or after offset ``start``
        (``input_end`` is the partition's high watermark, None when unknown: nothing is dropped),
        and the ``(first, last)`` of a logged window that began before ``start`` and ends at or
        after it, or None."""
        async def read() -> tuple[list[int], tuple[int, int] | None]:
            reader, _ = await self._start()
            return await self._cut_points(reader, input_partition, start, input_end)

        return await self._answered(self.topic, read)

    async def _answered(self, topic: str, read: Callable[[], Awaitable[T]]) -> T:
        """``read()`` (of ``topic``), one read at a time, tried again while it fails as a broker
        out of reach makes it fail, until ``producer.request_timeout`` has passed; then
        :class:`BrokerSilent`. An attempt still under way then is cut short (a client's start
        ends first and is closed, see :func:`.kafka.start_client`)."""
        async with self._lock:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.timeout
            failure = ""
            while True:
                try:
                    return await asyncio.wait_for(read(), deadline - loop.time())
                except Exception as exc:
                    if not out_of_reach(exc):
                        raise
                    self._check_running()
                    first = not failure
                    # the last attempt, cut short at the deadline, says less than what failed before it
                    if first or not isinstance(exc, TimeoutError):
                        failure = type(exc).__name__
                if first and loop.time() < deadline:
                    log.warning("window log reader: a read of %s failed (%s); retrying for up to "
                                "producer.request_timeout=%g s", topic, failure, self.timeout)
                await asyncio.sleep(max(min(RETRY_SECONDS, deadline - loop.time()), 0))
                if loop.time() >= deadline:
                    raise BrokerSilent(topic, failure)

    async def _cut_points(
        self, reader: AIOKafkaConsumer, input_partition: int, start: int, input_end: int | None
    ) -> tuple[list[int], tuple[int, int] | None]:
        tp = TopicPartition(self.topic, log_partition(input_partition, self.log_partitions))
        reader.assign([tp])
        end = (await partition_ends(reader, [tp]))[tp]
        key = str(input_partition).encode()
        span = FIRST_READ
        while True:
            begin = max(end - span, 0)
            entries = await self._read(reader, tp, begin, end, key)
            if begin == 0 or (entries and entries[0][1] < start):
                break
            span *= 4
        straddled = max(((first, last) for first, last in entries if first < start <= last), default=None)
        points = sorted({last for first, last in entries if start <= last})
        stale = [p for p in points if input_end is not None and p >= input_end]
        if stale:
            log.warning("window log %s: partition %d has %s beyond the input's end; ignored (was the input topic "
                        "re-created?)", self.topic, input_partition, counted(len(stale), "cut point"))
        return [p for p in points if p not in stale], straddled

    async def _read(
        self, reader: AIOKafkaConsumer, tp: TopicPartition, begin: int, end: int, key: bytes
    ) -> list[tuple[int, int]]:
        entries: list[tuple[int, int]] = []
        if begin >= end:
            return entries
        reader.seek(tp, begin)
        position = begin
        while position < end:  # until the broker answers, or _answered gives up
            batch = await reader.getmany(tp, timeout_ms=1000)
            for message in batch.get(tp, ()):
                position = message.offset + 1
                if message.key == key and message.offset < end:
                    entry = decode_entry(message.value)
                    if entry is None:
                        raise UnreadableEntry(self.topic, tp.partition, message.offset, int(key))
                    entries.append(entry)
            if not batch:
                position = await reader.position(tp)
        return entries
