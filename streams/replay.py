"""Producing a transaction file into the input topic (``setveil replay``).

Transaction i of the file gets tid i, its 0-based position, unless its record (JSONL, msgpack)
has a tid of its own: the tids the core's readers give, so a release collected with ``setveil
tail --out`` lines up with a file without tids exactly as ``setveil anonymize`` output does.
Records carry items, tids and a record's ``subject`` (JSONL, msgpack). ``--batch N`` packs N
records into one msgpack array per message (much less per-message overhead in the worker).
Messages go to the input partitions in turn, except that a subject's records all go to one
partition, the one Kafka's default partitioner gives the subject's text as a message key (and a
message of one record carries that key), so that a worker with ``window.merge_subjects`` can
merge them as it would a keyed producer's; ``--rate`` caps transactions per second. Every message
is made before the first is sent, so that a message the workers would dead-letter as larger than
``records.max_message_bytes`` refuses the replay with nothing sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import msgpack
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.partitioner import murmur2

from setveil.core.errors import ParameterError, counted
from setveil.core.window import Window

from . import kafka
from .codec import message_bytes
from .clientlog import bootstrap_errors_unlogged
from .settings import Settings

INFLIGHT = 512

#: seconds a stopped replay (Ctrl-C, SIGTERM) gives the messages its producer holds to reach the
#: broker before it drops them: plenty for a broker that answers, and a broker that is gone would
#: otherwise hold the stop until producer.request_timeout
STOP_FLUSH_SECONDS = 0.5

#: seconds the producer's sender has, once stopped, to end its requests under way before they are
#: cut short: a broker gone refuses them at once, one that hangs would hold them for
#: producer.request_timeout
SENDER_STOP_SECONDS = 0.5


@dataclass
class ReplayStats:
    transactions: int
    messages: int
    seconds: float


@dataclass
class ReplayProgress:
    """What a replay has got into the input topic so far, for the line a stopped one ends with: an
    operator resuming it needs to know how much of the file the topic holds, and up to where."""
    planned: int | None = None  # transactions to send, once the messages are made
    sent: int = 0  # transactions handed to the producer
    acknowledged: int = 0  # transactions in messages the broker acknowledged
    last_offsets: dict[int, int] = field(default_factory=dict)  # partition: last acknowledged offset

    def settle(self, pending: Sequence[tuple[asyncio.Future, int]]) -> BaseException | None:
        """Count the messages of ``pending`` (each with its transactions) that the broker
        acknowledged; the error of the first that failed, if one did."""
        failed = None
        for future, size in pending:
            if not future.done() or future.cancelled():
                continue
            if future.exception() is not None:
                failed = failed or future.exception()
                continue
            metadata = future.result()
            self.acknowledged += size
            self.last_offsets[metadata.partition] = max(metadata.offset,
                                                        self.last_offsets.get(metadata.partition, -1))
        return failed

    def said(self, topic: str) -> str:
        """One line: how many transactions the broker acknowledged and, per partition, the offset
        of the last; transactions sent without an acknowledgement may be in the topic too."""
        if not self.sent:
            return f"no transaction was sent to {topic}"
        of = f" of {self.planned}" if self.planned is not None else ""
        where = ", ".join(f"partition {partition} to offset {offset}"
                          for partition, offset in sorted(self.last_offsets.items()))
        line = f"{self.acknowledged}{of} transactions acknowledged by the broker in {topic}"
        line += f" ({where})" if where else ""
        unsure = self.sent - self.acknowledged
        return line + (f"; {unsure} more were sent unacknowledged and may be there too" if unsure else "")


def unkeyed_partition(position: int, batch: int, partitions: int) -> int:
    """The partition of the record at ``position`` among the records without a subject: a
    message's worth (``batch``) to each partition in turn."""
    return position // batch % partitions


def messages(window: Window, batch: int, count: int | None = None, partitions: int = 1,
             subjects: Sequence[str | int | None] | None = None, max_bytes: int | None = None,
             max_request_bytes: int | None = None) -> Iterator[tuple[int, bytes | None, int, bytes]]:
    """(partition, key, transactions, value) of each message: one record, or an array of
    ``batch`` records of one partition. A :class:`ParameterError` for a message longer than
    ``max_bytes``, or than ``max_request_bytes`` as the Kafka client counts it."""
    packer = msgpack.Packer(use_bin_type=True)
    advice = "give a smaller --batch" if batch > 1 else "raise that setting"

    def pack(records: list[dict], key: bytes | None = None) -> bytes:
        value = packer.pack(records if batch > 1 else records[0])
        # no tid in the reasons: a record's own may be the producer's id for a person
        if max_bytes is not None and len(value) > max_bytes:
            # a message of one record is no --batch's fault (QA: parameter 'batch' ... raise that setting)
            raise ParameterError("batch" if batch > 1 else "records.max_message_bytes",
                                 f"a message of {counted(len(records), 'record')} would be {len(value)} bytes, over "
                                 f"records.max_message_bytes={max_bytes}, which the workers dead-letter: {advice}")
        # the settings let records.max_message_bytes be producer.max_request_bytes, and a value
        # that fits the one may not fit the other with its framing: the client's refusal came as
        # the broker's, "stopped taking messages after 0 transactions were sent"
        if max_request_bytes is not None:
            framed = message_bytes(key, value, [])
            if framed > max_request_bytes:
                raise ParameterError("producer.max_request_bytes",
                                     f"a message of {counted(len(records), 'record')} would be {framed} bytes as "
                                     "the Kafka client counts it (with its key and framing), over "
                                     f"producer.max_request_bytes={max_request_bytes}, which the client refuses to "
                                     f"send: {advice}")
        return value

    total = len(window) if count is None else min(count, len(window))
    chunks: list[list[dict]] = [[] for _ in range(partitions)]
    unkeyed = 0  # records without a subject so far: a message's worth to each partition in turn
    for position, labels in enumerate(window):
        if position >= total:
            break
        record = {"tid": window.tid(position), "items": labels}
        subject = None if subjects is None else subjects[position]
        if subject is None:
            partition, key = unkeyed_partition(unkeyed, batch, partitions), None
            unkeyed += 1
        else:
            record["subject"] = subject
            key = str(subject).encode()
            partition = (murmur2(key) & 0x7FFFFFFF) % partitions
        chunk = chunks[partition]
        chunk.append(record)
        if len(chunk) == batch:
            key = key if batch == 1 else None
            yield partition, key, batch, pack(chunk, key)
            chunk.clear()
    for partition, chunk in enumerate(chunks):
        if chunk:
            yield partition, None, len(chunk), pack(chunk)


def pack_unkeyed(window: Window, batch: int, max_bytes: int, max_request_bytes: int) -> list[tuple[int, bytes]]:
    """(transactions, value) of each message of ``window``'s records (without subjects), packed
    once, or a :class:`ParameterError` before any broker or worker starts for a message the
    workers would dead-letter, or the Kafka client refuse: ``setveil demo`` and ``bench stream``
    said so only after their wait for the batches that never came (QA as an operator), or as the
    producer's error once a broker ran (review). Records without a subject go to the
    partitions in runs of ``batch``, so their messages are the same however many partitions the
    topic has, and :func:`replay_packed` sends these very bytes."""
    return [(size, value)
            for _, _, size, value in messages(window, batch, max_bytes=max_bytes, max_request_bytes=max_request_bytes)]


def deal(packed: Sequence[tuple[int, bytes]], partitions: int) -> list[tuple[int, bytes | None, int, bytes]]:
    """(partition, key, transactions, value) of each of :func:`pack_unkeyed`'s messages, dealt as
    :func:`messages` deals records without a subject: a message's worth to each partition in turn,
    so message i is the i-th run of records."""
    return [(unkeyed_partition(index, 1, partitions), None, size, value) for index, (size, value) in enumerate(packed)]


async def replay(settings: Settings, window: Window, batch: int = 1, rate: float | None = None,
                 count: int | None = None, subjects: Sequence[str | int | None] | None = None,
                 progress: ReplayProgress | None = None) -> ReplayStats:
    """Send ``window``'s transactions; ``progress`` follows what reached the topic, for a caller
    whose replay is stopped before this returns."""
    partitions = await _input_partitions(settings)
    planned = list(messages(window, batch, count, partitions, subjects, settings.records.max_message_bytes,
                            settings.producer.max_request_bytes))
    return await _send(settings, planned, rate, progress)


async def replay_packed(settings: Settings, packed: Sequence[tuple[int, bytes]],
                        rate: float | None = None) -> ReplayStats:
    """Send :func:`pack_unkeyed`'s messages as :func:`replay` sends their window's: the bytes
    checked against ``records.max_message_bytes`` are the bytes sent, packed once."""
    return await _send(settings, deal(packed, await _input_partitions(settings)), rate)


async def _input_partitions(settings: Settings) -> int:
    counts = await kafka.ensure_topics(settings, [settings.topics.input])
    return counts[settings.topics.input]


async def _send(settings: Settings, planned: list[tuple[int, bytes | None, int, bytes]],
                rate: float | None, progress: ReplayProgress | None = None) -> ReplayStats:
    producer = kafka.producer(settings, linger_ms=max(settings.producer.linger_ms, 5))
    progress = ReplayProgress() if progress is None else progress
    progress.planned = sum(size for _, _, size, _ in planned)
    sent_messages = 0
    pending: list[tuple[asyncio.Future, int]] = []
    try:
        # the topic was there a moment ago, but a broker gone since (while a large file's messages
        # were made, say) failed the start outside the handler below: a traceback, aiokafka's own
        # ERROR line above it and an unclosed producer (QA, under load)
        with bootstrap_errors_unlogged():
            await kafka.start_client(producer.start(), producer.stop)
        started = time.monotonic()
        for partition, key, size, value in planned:
            delivery = await producer.send(settings.topics.input, value, key=key, partition=partition)
            # the first error ends the replay; the others, left to fail unseen, would each be logged
            # as never retrieved
            delivery.add_done_callback(_seen)
            pending.append((delivery, size))
            progress.sent += size
            sent_messages += 1
            if len(pending) >= INFLIGHT:
                await _delivered(pending, progress)
            if rate is not None:
                ahead = progress.sent / rate - (time.monotonic() - started)
                if ahead > 0:
                    await _delivered(pending, progress)
                    await asyncio.sleep(ahead)
        await _delivered(pending, progress)
    except KafkaError as exc:
        # aiokafka's own error ended the command in a traceback
        held = "; the input topic may hold some of them" if progress.sent else ""
        await _give_up(producer)
        raise kafka.BrokerUnavailable(
            f"the broker at {settings.kafka.bootstrap} (kafka.bootstrap) stopped taking messages after {progress.sent} "
            f"transactions were sent ({type(exc).__name__}){held}") from None
    except asyncio.CancelledError:
        await _flush_briefly(producer)
        progress.settle(pending)  # a message the stop dropped failed: it counts as not acknowledged
        raise
    finally:
        await producer.stop()
    return ReplayStats(progress.sent, sent_messages, time.monotonic() - started)


async def _delivered(pending: list[tuple[asyncio.Future, int]], progress: ReplayProgress) -> None:
    """Wait for ``pending``'s messages to be acknowledged, count them and clear ``pending``; the
    first one's error when one fails. Awaited with ``asyncio.wait``, not ``gather``: a stop's
    cancellation of gather cancelled the messages' futures, and what the stop's flush then
    delivered could not be counted."""
    if pending:
        await asyncio.wait([future for future, _ in pending], return_when=asyncio.FIRST_EXCEPTION)
    failed = progress.settle(pending)
    pending.clear()
    if failed is not None:
        raise failed


def _seen(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()


async def _flush_briefly(producer: AIOKafkaProducer) -> None:
    """Deliver what the producer holds within :data:`STOP_FLUSH_SECONDS`, then give the rest up.
    Its stop flushes without a bound: with the broker gone, a stopped replay waited for it until
    the signal's grace ran out (5 s, interrupt.STOP_GRACE_SECONDS) and ended on that."""
    try:
        await asyncio.wait_for(producer.flush(), STOP_FLUSH_SECONDS)
    except TimeoutError:
        await _give_up(producer)


async def _give_up(producer: AIOKafkaProducer) -> None:
    """Stop the producer's sender, so that the producer's stop, which waits for its messages to be
    delivered or for its sender to end, ends at once (aiokafka has no call for it). Failing the
    messages instead raced the sender, whose request under way puts its batch back to be sent
    again (a KeyError in aiokafka), and left errors that asyncio logged as never retrieved."""
    with contextlib.suppress(TimeoutError):
        # the timeout cancels the sender's wait for its requests, and with it the requests
        await asyncio.wait_for(producer._sender.close(), SENDER_STOP_SECONDS)
