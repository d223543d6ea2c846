"""Kafka clients configured from the settings: security passthrough and topic creation.

Every client the service opens (Faust's, the window-log reader, replay, tail, the demo) gets
the same bootstrap servers and TLS/SASL options, built here once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import faust
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka import client as aiokafka_client
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.client import ConnectionGroup
from aiokafka.conn import CloseReason
from aiokafka.consumer import fetcher, group_coordinator
from aiokafka.errors import KafkaConnectionError, KafkaError, KafkaTimeoutError, TopicAlreadyExistsError
from aiokafka.helpers import create_ssl_context
from aiokafka.protocol.group import LeaveGroupRequest

from setveil.core.errors import SetveilError, counted

from .clientlog import bootstrap_errors_unlogged
from .headers import names_not_utf8, tolerate_header_names
from .settings import Settings

log = logging.getLogger("setveil.streams")


class BrokerUnavailable(SetveilError):
    """No broker answered at the bootstrap servers."""


def out_of_reach(exc: BaseException) -> bool:
    """Whether ``exc`` is how a request fails while the broker is down or out of reach: worth
    trying again. An error the broker answered for good (authorization, say) is not."""
    if isinstance(exc, KafkaError):
        # aiokafka's KafkaTimeoutError (an offsets lookup not answered) is not marked retriable
        return exc.retriable or isinstance(exc, KafkaTimeoutError)
    return isinstance(exc, (BrokerUnavailable, TimeoutError, ConnectionError))


def fetch_failure(exc: BaseException) -> str:
    """What a fetch task that ended on ``exc`` ended on, by type only: aiokafka wraps the error in
    ``KafkaError("Unexpected error during data retrieval")``, and a message may quote data."""
    kind = type(exc.__cause__ or exc)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


_fetcher_close = fetcher.Fetcher.close


async def _close_fetcher(self: fetcher.Fetcher) -> None:
    """aiokafka's ``Fetcher.close``, with the fetch requests it cancels ended even when one
    was waiting out its retry backoff after a failed fetch."""
    try:
        await _fetcher_close(self)
    except asyncio.CancelledError:
        closing = asyncio.current_task()
        if closing is not None and closing.cancelling():
            raise  # the close itself was cancelled
        for request in self._pending_tasks:
            request.cancel()
        await asyncio.gather(*self._pending_tasks, return_exceptions=True)


def close_fetchers_quietly() -> None:
    """Let every consumer of the process stop while its broker is gone (again: no change).

    aiokafka's ``Fetcher.close`` cancels the fetch requests under way and awaits each one
    unguarded; a request that failed (the broker gone) waits out its retry backoff unguarded too,
    so the cancellation came out of ``close``. The consumer's stop ended there, its client left
    open, and Faust's consumer thread died with a traceback ("Exception in thread") on every stop
    of a worker whose broker was gone (found by a QA pass of a broker that goes away)."""
    fetcher.Fetcher.close = _close_fetcher


#: the member id of a JoinGroup request before the broker has given one (every version's)
UNKNOWN_MEMBER_ID = ""

#: the group coordinators whose routine is in a join of the group (JoinGroup, then SyncGroup)
_joining: weakref.WeakSet[group_coordinator.GroupCoordinator] = weakref.WeakSet()

_perform_group_join = group_coordinator.CoordinatorGroupRebalance.perform_group_join
_coordinator_close = group_coordinator.GroupCoordinator.close


async def _watched_join(self: group_coordinator.CoordinatorGroupRebalance):
    """aiokafka's join of the group, its coordinator in ``_joining`` meanwhile; none once the
    coordinator is closing (its close awaits the routine, which then ends instead of joining)."""
    coordinator = self._coordinator
    if coordinator._closing.done():
        return None  # as a failed join returns
    _joining.add(coordinator)
    try:
        return await _perform_group_join(self)
    finally:
        _joining.discard(coordinator)


async def _close_coordinator(self: group_coordinator.GroupCoordinator) -> None:
    """aiokafka's ``GroupCoordinator.close``, a join under way cancelled first instead of awaited.

    The member owns no partitions while it joins, so there is nothing to commit. It leaves the
    group: through aiokafka's close once the join had got a generation, else here."""
    task = self._coordination_task
    if self in _joining and not self._closing.done() and not task.done():
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            closing = asyncio.current_task()
            if closing is not None and closing.cancelling():
                raise  # the close itself was cancelled
        # The request stays on its connection, whose requests a broker answers in order (the Kafka
        # protocol's promise): the LeaveGroup request that follows waited for the join's answer.
        connection = self._client._conns.pop((self.coordinator_id, ConnectionGroup.COORDINATION), None)
        if connection is not None:
            connection.close(reason=CloseReason.SHUTDOWN)
        if self.generation < 0 and self.member_id != UNKNOWN_MEMBER_ID:
            await _leave_before_a_generation(self)
    await _coordinator_close(self)


def _leave_group_request(group_id: str, member_id: str):
    # aiokafka 0.11 names a request by the list of its versions (v1, as its own leave sends to a
    # broker of 0.11 or later), 0.12 and later by one class that picks the version
    if isinstance(LeaveGroupRequest, list):
        return LeaveGroupRequest[1](group_id, member_id)
    return LeaveGroupRequest(group_id, member_id)


async def _leave_before_a_generation(coordinator: group_coordinator.GroupCoordinator) -> None:
    """Leave the group that ``coordinator``'s join, cut short, had given a member id (a broker's
    first answer to a join gives one) and no generation yet, which aiokafka's close leaves only
    from. Kafka completes a forming group without a member that left it; one that stays is waited
    for until its session times out. Tansu 0.6 answers the leave without an error and forms the
    group with the member all the same (the next worker in the group was ready about 21 s after its
    start either way, session timeout 10 s). A best effort, as aiokafka's own leave."""
    try:
        await coordinator._send_req(_leave_group_request(coordinator.group_id, coordinator.member_id))
    except KafkaError as err:
        log.warning("leaving the group as the worker stopped while it joined failed (%s); the broker "
                    "expels it after consumer.session_timeout", type(err).__name__)


def stop_joins_promptly() -> None:
    """Let every consumer of the process stop while it joins its group, without waiting for the join.

    aiokafka's ``GroupCoordinator.close`` awaits its coordination routine, and a broker holds a
    JoinGroup request until every member of the group has joined or been expelled, and a SyncGroup
    request until the group's leader has assigned: a worker stopped while it joined the group of one
    that had been killed waited for that one's session timeout, until its stop watchdog ended it
    after 10 s blaming the broker (1 of 15 SIGTERMs 0.1 s after /healthz first answered); a worker
    joining a new group on Tansu waited half its session timeout (stops took 5.5-6.7 s)."""
    group_coordinator.CoordinatorGroupRebalance.perform_group_join = _watched_join
    group_coordinator.GroupCoordinator.close = _close_coordinator


_create_conn = aiokafka_client.create_conn


async def _connect_unbracketed(host: str, port: int, **options: Any):
    """aiokafka's connection to a broker, at the address inside ``host``'s brackets if it has them."""
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return await _create_conn(host, port, **options)


# Tansu 0.6 gives its host in its metadata and coordinator answers as its advertised listener URL
# writes it, "[::1]" for tcp://[::1]:9092, where Kafka gives the bare address; aiokafka connects to
# the host it is given, which the resolver does not know in brackets ("Name or service not known"):
# no client of `dev-broker --host ::1` got further than the bootstrap (QA). Installed on import, once,
# as every client of the service, Faust's included (streams/app.py), is built after this module loads.
aiokafka_client.create_conn = _connect_unbracketed


def _ssl_context(settings: Settings):
    k = settings.kafka
    if not k.security_protocol.endswith("SSL"):
        return None
    return create_ssl_context(cafile=k.ssl_cafile, certfile=k.ssl_certfile, keyfile=k.ssl_keyfile, password=k.ssl_password)


def client_kwargs(settings: Settings) -> dict[str, Any]:
    """Connection and security arguments for any aiokafka client."""
    k = settings.kafka
    kwargs: dict[str, Any] = {"bootstrap_servers": k.bootstrap, "security_protocol": k.security_protocol}
    context = _ssl_context(settings)
    if context is not None:
        kwargs["ssl_context"] = context
    if k.security_protocol.startswith("SASL"):
        kwargs.update(sasl_mechanism=k.sasl_mechanism, sasl_plain_username=k.sasl_username,
                      sasl_plain_password=k.sasl_password)
    return kwargs


def faust_credentials(settings: Settings) -> faust.types.auth.CredentialsT | None:
    k = settings.kafka
    context = _ssl_context(settings)
    if k.security_protocol.startswith("SASL"):
        return faust.SASLCredentials(username=k.sasl_username, password=k.sasl_password, ssl_context=context,
                                     mechanism=k.sasl_mechanism)
    if context is not None:
        return faust.SSLCredentials(context)
    return None


def producer(settings: Settings, **extra: Any) -> AIOKafkaProducer:
    p = settings.producer
    options: dict[str, Any] = {
        "max_request_size": p.max_request_bytes,
        "compression_type": None if p.compression == "none" else p.compression,
        "linger_ms": p.linger_ms,
        # aiokafka's 40 s would keep a command (replay) retrying past the timeout the workers keep
        "request_timeout_ms": int(p.request_timeout * 1000),
    }
    options.update(extra)
    return AIOKafkaProducer(**client_kwargs(settings), **options)


def consumer(settings: Settings, *topics: str, **extra: Any) -> AIOKafkaConsumer:
    return AIOKafkaConsumer(*topics, **client_kwargs(settings), **extra)


@contextlib.asynccontextmanager
async def reading_from_start(settings: Settings, topic: str, what: str, setting: str) -> AsyncIterator[AIOKafkaConsumer]:
    """A consumer without a group that reads every partition of ``topic`` (the ``what`` topic,
    named by ``setting``) from its start, with fetches large enough for any batch a worker sends."""
    partitions = (await partition_counts(settings, [topic])).get(topic)
    if partitions is None:
        raise SetveilError(f"the {what} topic {topic} does not exist yet ({setting}; a worker creates it)")
    tolerate_header_names()  # a reader shows every message: see fetch
    reader = consumer(settings, group_id=None, enable_auto_commit=False, auto_offset_reset="earliest",
                      max_partition_fetch_bytes=settings.producer.max_request_bytes,
                      fetch_max_bytes=max(settings.producer.max_request_bytes, 50 << 20))
    try:
        with bootstrap_errors_unlogged():
            await start_client(reader.start(), reader.stop)
    except KafkaConnectionError:
        # the broker listed the topic a moment ago; gone since, the reader's start ended tail in a
        # traceback (the race replay had, found beside it)
        raise _no_broker(settings) from None
    try:
        reader.assign([TopicPartition(topic, p) for p in range(partitions)])
        await reader.seek_to_beginning()
        yield reader
    finally:
        await reader.stop()


#: characters of a producer's text (a header's name, a ce_type, a window id) that a message shows
SHOWN = 80


def cut(text: str) -> str:
    """``text`` as a message shows it: its first :data:`SHOWN` characters, and ``…`` for more,
    since any producer may have written it, at any length."""
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


async def fetch(reader: AIOKafkaConsumer, note: Callable[[str], None] | None = None) -> dict:
    """The next messages of ``reader`` (opened by :func:`reading_from_start`), waiting at most
    0.2 s. Kafka takes any bytes as a header name, which aiokafka's reader decodes strictly: it
    reads such a name as the workers do (:mod:`.headers`), where it stopped tail (QA), and
    ``note`` is told of it, with undecodable bytes shown as U+FFFD, as tail shows header values."""
    fetched = await reader.getmany(timeout_ms=200)
    if note is not None:
        for messages in fetched.values():
            for message in messages:
                for index, name in names_not_utf8(message.headers):
                    note(f"{message.topic}/{message.partition}/{message.offset}: the name of header {index} of "
                         f"{len(message.headers)} is not UTF-8, shown with U+FFFD for what does not decode: "
                         f"{cut(name)!r}")
    return fetched


async def partition_ends(reader: AIOKafkaConsumer, tps: list, timeout: float = 10.0) -> dict:
    """The end offset (high watermark) of each partition, read from a fetch.

    Tansu answers ListOffsets(latest) with the base offset of the partition's last record batch
    plus one, short of the end when that batch holds several records; a fetch from just before
    that offset returns the high watermark, which is right on every broker. ``reader`` is an
    assigned consumer without a group; its positions are moved.
    """
    approximate = await reader.end_offsets(tps)
    ends = {tp: 0 for tp in tps if approximate[tp] == 0}
    waiting = [tp for tp in tps if approximate[tp] > 0]
    for tp in waiting:
        reader.seek(tp, approximate[tp] - 1)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while waiting:
        fetched = await reader.getmany(*waiting, timeout_ms=200)
        for tp in [tp for tp in waiting if fetched.get(tp)]:
            ends[tp] = reader.highwater(tp)
            waiting.remove(tp)
        if waiting and loop.time() > deadline:
            raise BrokerUnavailable(f"no fetch answered for {waiting[0].topic}[{waiting[0].partition}]")
    return ends


async def start_client(start: Awaitable[None], close: Callable[[], Awaitable[None]]) -> None:
    """Await a client's ``start``; when it fails, or the caller is cancelled meanwhile, close the
    client. A start cancelled while aiokafka connects leaves that connection open ("Unclosed
    AIOKafkaConnection" at ERROR, seen when a worker stopped), so a cancelled caller lets the
    start end first."""
    started = asyncio.ensure_future(start)
    try:
        await asyncio.shield(started)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await started
        await close()
        raise
    except BaseException:
        await close()
        raise


def _no_broker(settings: Settings) -> BrokerUnavailable:
    # where the address came from, as a refused setting says: a settings file's cluster (kafka:9092)
    # read beside a broker of the operator's own looked like a broker that had gone
    given = f", from {settings.source('kafka.bootstrap')}" if settings.given("kafka.bootstrap") else ""
    return BrokerUnavailable(f"no Kafka broker answers at {settings.kafka.bootstrap} (kafka.bootstrap{given})")


async def _admin(settings: Settings, timeout: float) -> AIOKafkaAdminClient:
    admin = AIOKafkaAdminClient(**client_kwargs(settings), request_timeout_ms=int(timeout * 1000))
    try:
        with bootstrap_errors_unlogged():
            await start_client(asyncio.wait_for(admin.start(), timeout), admin.close)
    except (KafkaConnectionError, asyncio.TimeoutError, OSError):
        raise _no_broker(settings) from None
    return admin


@contextlib.asynccontextmanager
async def _admin_session(settings: Settings, timeout: float) -> AsyncIterator[AIOKafkaAdminClient]:
    """An admin client (:func:`_admin`), closed after use. A broker that stops answering while it
    is used is a :class:`BrokerUnavailable` too, as one that never answered: the client's own
    error (NodeNotReadyError, say) came out of serve, replay and tail as a traceback, after the
    client's own ERROR lines, which that one line replaces as for a broker that never answered."""
    admin = await _admin(settings, timeout)
    try:
        with bootstrap_errors_unlogged():
            yield admin
    except Exception as exc:
        if not out_of_reach(exc):
            raise
        raise _no_broker(settings) from None
    finally:
        await admin.close()


async def answers(settings: Settings, timeout: float = 15.0) -> None:
    """Nothing, once the cluster ``kafka.bootstrap`` names has answered; else :class:`BrokerUnavailable`."""
    async with _admin_session(settings, timeout):
        pass


async def partition_counts(settings: Settings, topics: list[str], timeout: float = 15.0) -> dict[str, int]:
    """Partitions of each existing topic among ``topics``."""
    async with _admin_session(settings, timeout) as admin:
        # Listing first: a metadata request naming a missing topic may auto-create it.
        existing = [name for name in topics if name in set(await admin.list_topics())]
        described = await admin.describe_topics(existing) if existing else []
    return {
        d["topic"]: len(d["partitions"]) for d in described if d.get("error_code", 0) == 0 and d.get("partitions")
    }


async def ensure_topics(settings: Settings, names: list[str] | None = None, timeout: float = 15.0) -> dict[str, int]:
    """Create the service's missing topics; return the partition count of each.

    New topics get ``topics.partitions`` partitions, except the window log, which gets as many
    as the input topic (its records are keyed by input partition either way). The output topic
    allows messages as large as ``producer.max_request_bytes``.
    """
    t = settings.topics
    names = names or [t.input, t.output, t.dlq, t.windows]
    counts = await partition_counts(settings, names, timeout)
    missing = [name for name in names if name not in counts]
    if missing:
        async with _admin_session(settings, timeout) as admin:
            for name in missing:
                partitions = counts.get(t.input, t.partitions) if name == t.windows else t.partitions
                # a dead letter carries a rejected message whole, up to records.max_message_bytes plus
                # headers, which a default 1 MiB topic limit could refuse
                big = name in (t.output, t.dlq)
                config = {"max.message.bytes": str(settings.producer.max_request_bytes)} if big else {}
                try:
                    await admin.create_topics([NewTopic(name, partitions, t.replication_factor, topic_configs=config)])
                    log.info("created topic %s with %s", name, counted(partitions, "partition"))
                except TopicAlreadyExistsError:
                    pass
                counts[name] = partitions
        counts.update(await _wait_for_topics(settings, missing, timeout))
    return counts


async def _wait_for_topics(settings: Settings, names: list[str], timeout: float) -> dict[str, int]:
    """Metadata can lag a creation; wait until every topic shows its partitions."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        counts = await partition_counts(settings, names, timeout)
        if all(name in counts for name in names) or loop.time() > deadline:
            return counts
        await asyncio.sleep(0.1)
