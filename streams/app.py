"""The Faust app factory: one agent, one actor per input partition (docs/operations.md,
"Design choices").

Each actor reads its partition with ``take_events(max_transactions, within=...)``, decodes and
validates every message (bad ones go to the dead-letter topic with their original bytes), lets
a :class:`~.windowing.Windower` cut windows of at most ``max_transactions`` transactions or
``max_seconds`` of age, and for each window

1. anonymizes and checks it in a worker thread (:class:`~.processor.WindowProcessor`, the
   core's fail-closed :class:`~setveil.core.engine.Pipeline`), or, under ``model.time_limit`` (and
   ``model.memory_limit``), in a child process that the thread waits on (:class:`~.isolation.IsolatedProcessor`);
2. writes its offsets to the window log unless the log already fixed them, and waits for the
   broker's acknowledgement; this step and the next are taken only while the worker's group
   membership is known to be current (:mod:`.lease`);
3. produces the batch to the output topic, or, when the window failed closed, its reference
   and reason to the dead-letter topic, and waits for the acknowledgement;
4. only then acknowledges the window's input messages to Faust, which commits offsets up to
   the first message not yet acknowledged.

Faust acknowledges a ``take()`` buffer when the loop body returns, even when it raised. Every
message therefore gets one extra reference as it arrives and loses it only in step 4 (or once
its dead letter is acknowledged), so a held or failed window is never committed. A window's
failure is caught per window; a broker that refuses a batch stops the worker, so nothing is
acknowledged that was not delivered.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import signal
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import TYPE_CHECKING, cast

import faust
from aiokafka.consumer.fetcher import READ_COMMITTED
from faust.types import TP
from prometheus_client import CONTENT_TYPE_LATEST

from setveil.core.engine import Pipeline
from setveil.core.errors import counted
from setveil.core.plugins import Configured, get_plugin_manager

from . import causes, codec
from .assignor import SpreadingAssignor
from .conductor import ServiceApp
from .headers import tolerate_header_names, unreadable_name
from .kafka import close_fetchers_quietly, faust_credentials, fetch_failure, stop_joins_promptly
from .isolation import IsolatedProcessor
from .lease import Lease
from .metrics import ServiceMetrics
from .processor import Outcome, WindowProcessor, process_in_thread
from .settings import Settings
from .windowing import Cut, Message, Windower
from .windowlog import BrokerSilent, UnreadableEntry, WindowLogReader, encode_entry, log_partition

if TYPE_CHECKING:
    from faust.tables.manager import TableManager
    from faust.transport.drivers.aiokafka import Consumer as KafkaConsumer

log = logging.getLogger("setveil.streams")

#: take() returns at least this often when messages arrive, so full windows are cut promptly.
POLL_SECONDS = 0.2
#: room for the headers and framing of a dead letter within producer.max_request_bytes
DEAD_LETTER_HEADROOM = 4096
#: how long an ended actor's stream may take to stop (it cancels a task and closes a generator)
RELEASE_SECONDS = 5.0
#: how long a partition read again from the offset due may wait, its actor idle, for that offset
REREAD_SECONDS = 5.0
#: readings again from one offset due before the worker stops (Faust's stale read position can
#: be written once more after the first, by a delivery that was blocked across the rebalance)
REREAD_ATTEMPTS = 3
#: a lock taken later than this after asking was held by a busy actor, which could not read yet
BUSY_SECONDS = 0.05
#: how often a window held for the lease looks whether it came back
LEASE_POLL_SECONDS = 0.05


class SkippedInput(RuntimeError):
    """Faust kept delivering a partition past the offset due, with records between, even after
    the partition was read again from there: they would be skipped."""


class LeaseExpired(RuntimeError):
    """The worker's group membership was not confirmed again within producer.request_timeout."""


class FetcherEnded(RuntimeError):
    """aiokafka's fetch task ended without an error while its fetcher was open: its routine ends
    that way on a cancellation it swallows, which only its own close is meant to make."""


def _kafka_consumer(app: faust.App) -> KafkaConsumer:
    """``app.consumer`` as the class it is, Faust's aiokafka driver: Faust types it as its interface,
    and the worker reaches into the driver where Faust has no public call."""
    return cast("KafkaConsumer", app.consumer)


@dataclass
class Reread:
    """A partition read again after Faust delivered it past a hole (see ``_past_hole``)."""

    #: the first record at or after the offset due: the next new message must have this offset
    due: int
    #: the offset Faust delivered instead
    delivered: int
    attempts: int = 0
    timer: asyncio.Task | None = None


@dataclass
class PartitionState:
    """One partition's open windows; ``lock`` serializes the actor and its age timer."""

    partition: int
    windower: Windower
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.Task | None = None
    #: first offset of the windows cut and not yet acknowledged (no longer pending in the windower)
    emitting: int | None = None
    #: the offset the next new message should have: where the group resumes, then one past the last
    expected: int = 0
    #: a logged window whose first offsets were committed and the rest re-delivered (see _emit)
    straddled: tuple[int, int] | None = None
    #: set while the partition is read again from the offset due
    reread: Reread | None = None
    #: set when a rebalance left the partition here: its cuts are read from the window log again
    replan: bool = False
    #: the last window counted in setveil_windows_held_for_lease
    held_window: str | None = None
    #: deliveries settled (dead-lettered, or of messages done) that wait for the messages before
    #: them to be acknowledged first (see ``StreamService._settle``)
    deferred: list[faust.EventT] = field(default_factory=list)


@dataclass
class Decoded:
    records: codec.MessageRecords | None = None
    rejection: codec.MessageRejected | None = None


def _decode_all(values: list[bytes | None], max_bytes: int) -> list[Decoded]:
    out = []
    for value in values:
        try:
            out.append(Decoded(records=codec.decode_message(value, max_bytes)))
        except codec.MessageRejected as exc:
            out.append(Decoded(rejection=exc))
    return out


class StreamService:
    """The state one worker shares between its partition actors, its web pages and its metrics."""

    def __init__(self, app: faust.App, settings: Settings, processor: IsolatedProcessor | WindowProcessor,
                 log_partitions: int):
        self.app = app
        self.settings = settings
        self.topic = settings.topics.input
        self.source = codec.event_source(settings.consumer.group_id)
        self.processor = processor
        self.windowlog = WindowLogReader(settings, log_partitions)
        self.log_partitions = log_partitions
        self.partitions: dict[int, PartitionState] = {}
        self.metrics = ServiceMetrics(self.partition_state, settings.window.max_seconds,
                                      settings.producer.max_request_bytes)
        #: windows are sent only while it is current (see _leased)
        self.lease = Lease(settings.consumer.session_timeout, settings.consumer.heartbeat_interval)
        # One thread: windows of all partitions take turns, and the event loop stays free for
        # heartbeats, fetching and the web endpoints while a window is anonymized.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="setveil-window")
        #: set while the executor anonymizes a window (a thread that cannot be interrupted)
        self.processing = threading.Event()
        self.assigned = False
        #: time.monotonic() of the latest assignment
        self.assigned_at: float | None = None
        #: partitions of the input topic named by the latest revocation, until the assignment that follows
        self.revoked: set[int] = set()
        #: set when the worker begins to stop: a window's work cut short then is no failure
        self.stopping = False
        self.fatal: BaseException | None = None
        #: aiokafka's fetcher whose end this worker watches, and the stop its failure began
        self.fetcher = None
        self.fetcher_failed: asyncio.Future | None = None

    # -- the agent ------------------------------------------------------------------------------
    async def run_partition(self, stream: faust.Stream) -> None:
        """The actor of one partition; any failure that is not a window's stops the worker."""
        w = self.settings.window
        state: PartitionState | None = None
        try:
            # take() gathers messages and the windower cuts windows: a message may hold many
            # records, so a window can be full long before take() has max_transactions messages.
            poll = min(w.max_seconds, POLL_SECONDS)
            async for events in stream.take_events(w.max_transactions, within=poll):
                for event in events:
                    event.message.incref()  # released once the event's window or dead letter is acknowledged
                if state is None:
                    state = await self._open(events[0].message.partition, events[0].message.offset)
                async with state.lock:
                    await self._accept(state, events)
                    await self._cut(state)
        except asyncio.CancelledError:
            if not self.stopping and not self._revoked(stream):
                raise
            # Faust cancels the actor of a revoked partition, or of a stopping worker, at once.
            # Ended here it is not reported as a crash (an ERROR with a traceback) and its
            # supervisor does not restart an actor whose partition is gone.
            await self._release(stream)
            self._log_ending(stream, state)
        except Exception as exc:
            if self.stopping:
                # the executor or the window log was shut down under a window: nothing was acknowledged
                self._log_ending(stream, state, f" (a window's work ended by {type(exc).__name__})")
            else:
                # ended here, not raised: Faust would report the crash again and restart the actor
                await self._fail(exc)
        else:
            # The stream ended instead: Faust ends a revoked partition's stream before it cancels the
            # actor (whichever the actor meets first wins), and a stopping worker's stream may end too.
            if self.stopping or self._revoked(stream):
                self._log_ending(stream, state)
        finally:
            self.revoked.difference_update(self._partitions(stream))
            if state is not None:
                # _open starts a state's timer before it returns it, _past_hole a reread's as it sets it
                assert state.timer is not None
                state.timer.cancel()
                if state.reread is not None:
                    assert state.reread.timer is not None
                    state.reread.timer.cancel()
                self.partitions.pop(state.partition, None)

    def _partitions(self, stream: faust.StreamT) -> list[int]:
        return sorted(tp.partition for tp in stream.active_partitions or () if tp.topic == self.topic)

    def _revoked(self, stream: faust.StreamT) -> bool:
        return bool(set(self._partitions(stream)) & self.revoked)

    def _log_ending(self, stream: faust.StreamT, state: PartitionState | None, why: str = "") -> None:
        """Say what an actor ended by a revocation or by the worker's stop leaves behind. A stop
        names only a partition that holds input not yet acknowledged: said of every partition,
        or of whichever actor Faust had not yet cancelled, it told of input to re-deliver where
        every window had been emitted (found by a QA pass as an operator)."""
        if not self.stopping:
            names = ", ".join(map(str, self._partitions(stream)))
            log.info("partition %s revoked: its unacknowledged input goes to the partition's next owner%s", names, why)
        elif state is not None and (state.windower.pending or state.emitting is not None):
            log.info("the worker stops; unacknowledged input of partition %d is re-delivered%s", state.partition, why)

    async def _release(self, stream: faust.StreamT) -> None:
        """Stop the stream of an actor that ended, so that its topic leaves Faust's conductor now.
        Its reader stays blocked while its take() buffer is full and unread, and the conductor,
        finding the topic of a partition no longer assigned, asserts and crashes the worker."""
        try:
            await asyncio.wait_for(stream.stop(), RELEASE_SECONDS)
        except asyncio.TimeoutError:
            log.warning("the stream of a revoked partition did not stop within %.0f s", RELEASE_SECONDS)

    def _windower(self) -> Windower:
        w = self.settings.window
        assert w.min_transactions != "auto"  # resolved (fit_to_model) before run_worker makes the service
        # half the largest batch: a batch carries what its records carried, and room is left for
        # generalized labels longer than the items they replace
        return Windower(w.max_transactions, w.min_transactions, w.max_seconds,
                        max_bytes=self.settings.producer.max_request_bytes // 2, merge_subjects=w.merge_subjects)

    async def _open(self, partition: int, offset: int) -> PartitionState:
        windower = self._windower()
        state = PartitionState(partition, windower, expected=await self.windowlog.resume_offset(partition))
        points = await self._logged_cuts(state, offset)
        if points:
            log.info("partition %d: re-delivered from offset %d; %s cut as before",
                     partition, offset, counted(len(points), "window", ("is", "are")))
        windower.plan(points)
        state.timer = asyncio.create_task(self._age_cuts(state), name=f"setveil-window-age-{partition}")
        self.partitions[partition] = state
        return state

    async def _age_cuts(self, state: PartitionState) -> None:
        """Cut a window that waited ``max_seconds`` even when no further message comes to trigger it."""
        limit = self.settings.window.max_seconds
        try:
            while True:
                pending = state.windower.pending
                age = time.time() - pending[0].received if pending else 0.0
                # A head already too old is held (min_transactions or a planned cut): recheck later.
                await asyncio.sleep((limit - age if age < limit else limit) + 0.001)
                async with state.lock:
                    await self._cut(state)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self.stopping:
                await self._fail(exc)

    async def _cut(self, state: PartitionState) -> None:
        if state.partition in self.revoked:
            # Until the next assignment says whether the partition stays, another worker may be
            # given it and emit these messages; a window cut here would be a second release.
            return
        if state.replan:
            await self._replan(state)
        cuts = state.windower.cuts(time.time())  # in offset order
        for index, cut in enumerate(cuts):
            state.emitting = cut.first_offset
            if not await self._emit(state, cut, cuts[index + 1:]):
                await self._uncut(state, cuts[index:])
                break
        # left set when an emit ends the actor (a stop, a failed send): its window was not
        # acknowledged, which _log_ending reports
        state.emitting = None

    async def _uncut(self, state: PartitionState, cuts: Sequence[Cut]) -> None:
        """Hold the messages of ``cuts`` again, before those held, and cut them where the window
        log says (``_replan``): a window waited for the lease while its partition was revoked and
        assigned back, and another worker may have owned the partition meanwhile."""
        await self._replan(state, chain(*(cut.messages for cut in cuts), state.windower.pending))

    async def _replan(self, state: PartitionState, held: Iterable[Message] | None = None) -> None:
        """Cut the held messages (``held``, else the windower's) where the window log says. A
        worker that keeps a partition through rebalances may have lost it for a generation it did
        not take part in; the partition's owner then emitted windows of messages this actor still
        held (a QA run released 95 transactions as windows 404-422 and 404-423).

        Held messages before the group's committed offset are dropped first, unacknowledged: that
        owner emitted them (a revoked partition's actor drops its messages the same way), and the
        group resumes there (not a hole, see ``_past_hole``), so the rest of a logged window that
        ends there never comes. Kept, they waited for it forever (a worker resumed from a pause and
        given its partition back before its age timer cut the open window held it, and its
        setveil_held_transactions, for good)."""
        before, due = state.windower, await self.windowlog.resume_offset(state.partition)
        state.windower = windower = self._windower()
        dropped = 0
        for message in before.pending if held is None else held:
            if message.offset >= due:
                windower.add(message)
            else:
                dropped += 1
        if dropped:
            log.info("partition %d: %s before offset %d dropped: the group committed past them, another worker "
                     "emitted them", state.partition, counted(dropped, "held message"), due)
        windower.skip(max(before.seen, due - 1))
        state.expected = max(state.expected, due)
        windower.replan(await self._logged_cuts(state, windower.first_unwindowed))
        state.replan = False

    async def _logged_cuts(self, state: PartitionState, start: int) -> list[int]:
        """Ends of the logged windows of the partition that end at or after ``start``; records
        the logged window that straddles ``start`` in ``state`` (see ``_emit``)."""
        highwater = self.app.consumer.highwater(TP(self.topic, state.partition))
        points, state.straddled = await self.windowlog.cut_points(state.partition, start, highwater)
        return points

    async def _fail(self, exc: BaseException, why: str | None = None) -> None:
        """Stop the worker, with exit status 1, after ``exc``; ``why`` is the ERROR line to log.

        It stops as on SIGTERM, not by crashing the app. Faust's crash path logged the failure
        again as a crash with a traceback, restarted the failed actor on the way out, and closed
        the event loop under the consumer's thread (an ERROR "Event loop is closed" and a
        CRITICAL line); when the crash had reached that thread, the consumer did not leave the
        group, and the other workers got its partitions only after the session timeout. Stopped
        as on SIGTERM, the consumer leaves the group (aiokafka skips that in generation 0, where
        Tansu starts a group)."""
        if self.fatal is None:
            self.fatal = exc
            if why is not None:
                log.error("%s", why)
            elif isinstance(exc, (SkippedInput, UnreadableEntry)):
                log.error("%s", exc)
            elif isinstance(exc, BrokerSilent):
                # the window log could not be read: as a send not acknowledged, the broker is down
                log.error("%s", self._not_taken(exc.topic, f"{exc.failure}; retried for", "did not answer a read of"))
            else:
                log.error("stopping the worker after an unexpected %s; unacknowledged input is re-delivered on "
                          "restart", type(exc).__name__)
            signal.raise_signal(signal.SIGTERM)

    async def _accept(self, state: PartitionState, events: Sequence[faust.EventT]) -> None:
        partition, windower = state.partition, state.windower
        events, again, done = await self._deliveries(state, events)
        loop = asyncio.get_running_loop()
        values = [event.value for event in events]
        decoded = await loop.run_in_executor(self.executor, _decode_all, values, self.settings.records.max_message_bytes)
        received = time.time()
        rejected = []
        for event, result in zip(events, decoded):
            offset = event.message.offset
            rejection = unreadable_name(event.message.headers) or result.rejection
            if rejection is None:
                assert result.records is not None  # a message that decoded
                windower.add(Message(offset, result.records, received, event, again.pop(offset, []),
                                     size=len(event.value)))
            else:
                rejected.append((event, rejection))
        if rejected:
            sends = [self._dead_letter_message(partition, event, rejection) for event, rejection in rejected]
            await asyncio.gather(*sends)
        settled = [event for event, _ in rejected] + [d for ds in again.values() for d in ds] + done
        self._keep_gap_off_records(state, (event.message.offset for event in settled))
        for event, rejection in rejected:
            windower.skip(event.message.offset)
            self.metrics.dead_lettered(rejection.kind)
            log.warning("dead-lettered %s/%d/%d: %s", self.topic, partition, event.message.offset, rejection.reason)
        # again: deliveries of offsets that came in no other way, or of the rejected ones
        self._settle(state, settled, state.emitting if state.emitting is not None else windower.first_unwindowed)

    def _settle(self, state: PartitionState, events: Iterable[faust.EventT], first: int) -> None:
        """Acknowledge ``events`` (deliveries the actor is done with) that come before ``first``,
        the first offset the actor holds unacknowledged (or past every offset seen); keep the
        others in ``state.deferred`` until the window holding the messages before them is
        acknowledged.

        Faust commits the run of consecutive acknowledged offsets that starts at the lowest one
        and, before the partition's first commit past offset 0, does not look whether offsets
        below that run are still pending (``Consumer._new_offset`` tests the committed offset
        for truth). A dead letter acknowledged while the open window before it was held moved
        the group's offset past that window's records, and a worker stopped or killed then lost
        them (QA as an operator: offsets 0-2 held, 3 dead-lettered, 4 committed)."""
        for event in events:
            if event.message.offset < first:
                event.ack()
            else:
                state.deferred.append(event)

    async def _deliveries(
        self, state: PartitionState, events: Sequence[faust.EventT]
    ) -> tuple[list[faust.EventT], dict[int, list[faust.EventT]], list[faust.EventT]]:
        """The new messages of ``events``, by offset later deliveries of new messages within
        ``events``, and the deliveries to acknowledge now. Messages this actor saw before are
        settled here (see :mod:`.windowing`, "Re-delivery"): those it holds keep the new delivery
        for their window to acknowledge, older ones were emitted or dead-lettered and are done.
        Messages that come past a hole are left unacknowledged (see ``_past_hole``)."""
        windower = state.windower
        fresh: list[faust.EventT] = []
        again: dict[int, list[faust.EventT]] = {}
        done: list[faust.EventT] = []
        latest = windower.seen
        for event in events:
            offset = event.message.offset
            if offset > latest:
                if await self._past_hole(state, offset):
                    continue
                latest = offset
                state.expected = offset + 1
                fresh.append(event)
                continue
            self.metrics.redelivered()
            if offset > windower.seen:
                again.setdefault(offset, []).append(event)
            elif (held := windower.held(offset)) is not None:
                held.again.append(event)
            else:
                done.append(event)
        return fresh, again, done

    async def _past_hole(self, state: PartitionState, offset: int) -> bool:
        """Whether a new message at ``offset`` comes past records not yet delivered.

        Faust skipped records under rebalance churn: it delivered a partition from a read
        position left over from an earlier assignment, or after a rebalance from the end of a
        batch it had fetched before. Taken in, the commit of the next window would move past
        them. Such a message is not acknowledged (nor is any after it until the offset due
        comes) and the partition is read again from the offset due; a timer stops the worker if
        it does not come (``_await_reread``)."""
        reread = state.reread
        if reread is not None:
            if offset > reread.due:  # delivered before the partition was read again, or skipping still
                return True
            assert reread.timer is not None  # started as the reread was set, below
            reread.timer.cancel()
            state.reread = None
            log.info("partition %d: read again from offset %d", state.partition, offset)
            return False
        if offset <= state.expected:
            return False
        # offsets without a record hold transaction markers or were compacted away: no hole
        due = await self.windowlog.first_offset(state.partition, state.expected)
        if due >= offset:
            return False
        log.warning("partition %d: Faust delivered offset %d where offset %d was due, with records between; "
                    "reading the partition again from offset %d", state.partition, offset, state.expected, due)
        self.metrics.reread()
        state.reread = reread = Reread(due, offset)
        # the timer first: an actor cancelled during the seek cancels it on the way out
        reread.timer = asyncio.create_task(self._await_reread(state, reread),
                                           name=f"setveil-reread-{state.partition}")
        await self._seek_back(state.partition, reread)
        return True

    def _keep_gap_off_records(self, state: PartitionState, acknowledged: Iterable[int],
                              later: Sequence[Cut] = ()) -> None:
        """Take the records the actor knows of out of Faust's gap of the partition, right before
        it acknowledges the ``acknowledged`` offsets: those, and the messages it holds (``later``:
        cuts still to be emitted).

        Faust takes the offsets a delivery jumps over for a gap (offsets without records, as
        transaction markers leave) and, once an offset within or past a gap interval is
        acknowledged, counts the whole interval as done. Under rebalance churn deliveries jumped
        over records: past records not yet delivered (read again, see ``_past_hole``) and, for a
        partition the worker kept, from the end of a batch fetched before the rebalance, over
        messages the actor held. Either way Faust committed past records not yet emitted (a test
        saw offset 71 committed while 30-70 waited for their window), and a worker stopped then
        lost them. Trimmed here, what is left of a gap holds no record the actor has seen, so a
        record not yet delivered stays past every offset acknowledged. Faust has no public call
        for this; its gap tree is trimmed."""
        gaps = _kafka_consumer(self.app)._gap.get(TP(self.topic, state.partition))
        if gaps:
            held = (m.offset for m in chain(state.windower.pending, *(cut.messages for cut in later)))
            for offset in chain(acknowledged, held):
                if gaps.overlaps(offset):  # a fifth of a miss's chop
                    gaps.chop(offset, offset + 1)

    async def _seek_back(self, partition: int, reread: Reread) -> None:
        reread.attempts += 1
        try:
            await self.app.consumer.seek_wait({TP(self.topic, partition): reread.due})
        except Exception as exc:  # a rebalance under way: the actor ends, or the timer tries again
            log.warning("partition %d: reading again from offset %d failed (%s)", partition, reread.due,
                        type(exc).__name__)

    async def _await_reread(self, state: PartitionState, reread: Reread) -> None:
        """Read the partition again while the offset due does not come to an idle actor, up to
        ``REREAD_ATTEMPTS`` times; then stop the worker (a restart reads from the last commit)."""
        try:
            while True:
                await asyncio.sleep(REREAD_SECONDS)
                asked = time.monotonic()
                async with state.lock:
                    if state.reread is not reread:
                        return
                    if time.monotonic() - asked > BUSY_SECONDS:
                        continue
                    if reread.attempts >= REREAD_ATTEMPTS:
                        raise SkippedInput(
                            f"partition {state.partition}: Faust delivered offset {reread.delivered} where offset "
                            f"{reread.due} was due, and after reading the partition again from there "
                            f"{reread.attempts} times still had not delivered it; stopping so that a restart "
                            f"reads it")
                    log.warning("partition %d: offset %d did not come within %.0f s of reading again; reading again",
                                state.partition, reread.due, REREAD_SECONDS)
                    await self._seek_back(state.partition, reread)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self.stopping:
                await self._fail(exc)

    async def _dead_letter_message(self, partition: int, event, rejection: codec.MessageRejected) -> None:
        value = event.value or b""
        headers = codec.rejected_message_headers(rejection.kind, rejection.reason, self.topic, partition,
                                                 event.message.offset, self.source)
        # An empty value is never too large: with a limit under the headroom the size header would
        # tell an empty message for one too large to produce again.
        if value and len(value) > self.settings.producer.max_request_bytes - DEAD_LETTER_HEADROOM:
            # Too large to produce again: the dead letter names it, the input topic keeps it.
            headers.append(("setveil_original_bytes", str(len(value)).encode()))
            value = b""
        await self._send(self.settings.topics.dlq, f"{self.topic}/{partition}".encode(), value, headers)

    async def _emit(self, state: PartitionState, cut: Cut, later: Sequence[Cut] = ()) -> bool:
        """Anonymize, verify and send the window ``cut``, then acknowledge its messages
        (``later``: the cuts still to be emitted after it). False when it is not sent because its
        partition was revoked and assigned back while it waited for the lease (see ``_leased``)."""
        partition, straddled = state.partition, state.straddled
        loop = asyncio.get_running_loop()
        if straddled is not None and straddled[0] < cut.first_offset and cut.last_offset <= straddled[1]:
            # The rest of a window emitted before, whose first messages were committed mid-window:
            # released under a new id it would be a second, different release of transactions
            # that window holds, which consumers cannot tell from new ones. Fail it closed.
            outcome = await self._failed(
                partition, cut, f"offsets {cut.first_offset}-{cut.last_offset} are the rest of window "
                f"{straddled[0]}-{straddled[1]} of the window log, whose first offsets were committed", causes.OVERLAP)
            processing = 0.0
        else:
            outcome, processing = await loop.run_in_executor(self.executor, self._process, partition, cut)
        if not await self._leased(state, outcome.ref.id, self.settings.topics.windows):
            return False
        if not cut.planned:
            await self._send(self.settings.topics.windows, str(partition).encode(),
                             encode_entry(cut.first_offset, cut.last_offset),
                             partition=log_partition(partition, self.log_partitions))
        limit = self.settings.producer.max_request_bytes
        key = f"{self.topic}/{partition}".encode()
        size = codec.message_bytes(key, outcome.value, outcome.headers) if outcome.emitted else 0
        if size > limit:
            # Windows are cut at half this, so only generalized labels much longer than the items
            # (or min_transactions) get here. The broker client would refuse the batch, and a
            # stopped worker would cut the same window on every restart (the window log keeps its
            # bounds): it fails closed instead, its records kept by reference in the input topic.
            # The client counts the key, headers and framing too (and so does the size the reason
            # names), so a value just under the limit is refused as well. Its window closed when
            # its anonymization began, as the batch says, not now that the model's work is done.
            outcome = await self._failed(
                partition, cut, f"its batch of {size} bytes exceeds producer.max_request_bytes="
                f"{limit}; raise it (and the topics' max.message.bytes) and replay the window's offsets",
                causes.OVERSIZE, closed=outcome.ref.closed)
        if not outcome.emitted and codec.message_bytes(key, outcome.value, outcome.headers) > limit:
            value, headers, reason = codec.fit_rejected_window(key, outcome.value, outcome.headers, limit)
            outcome = replace(outcome, value=value, headers=headers, reason=reason)
        topic = self.settings.topics.output if outcome.emitted else self.settings.topics.dlq
        if not await self._leased(state, outcome.ref.id, topic):
            return False
        # the messages the window left out (build_window), each to the dead-letter topic as a
        # malformed one, so that every record ends in a batch or there
        invalid = cut.repeated_tids
        for message in cut.messages:
            if (repeat := invalid.get(message.offset)) is not None:
                await self._dead_letter_message(partition, message.handle, codec.MessageRejected(causes.INVALID, repeat))
                self.metrics.dead_lettered(causes.INVALID)
                log.warning("dead-lettered %s/%d/%d: %s", self.topic, partition, message.offset, repeat)
        await self._send(topic, key, outcome.value, outcome.headers)
        self._keep_gap_off_records(state, (message.offset for message in cut.messages), later)
        for message in cut.messages:
            message.handle.ack()
            for duplicate in message.again:
                duplicate.ack()
        if state.deferred:
            waiting, state.deferred = state.deferred, []
            self._settle(state, waiting, later[0].first_offset if later else state.windower.first_unwindowed)
        ref = outcome.ref
        if outcome.emitted:
            loss = outcome.report["info_loss"]
            self.metrics.emitted(outcome.transactions, time.time() - ref.opened, processing, loss, size)
            log.info("window %s: %d transactions, information loss %.4f, %.0f ms", ref.id, outcome.transactions,
                     loss, processing * 1000)
        else:
            assert outcome.cause is not None  # a rejected window's outcome names its cause
            self.metrics.rejected(outcome.cause, outcome.transactions)
            log.warning("window %s rejected, dead-lettered: %s", ref.id, outcome.reason)
        return True

    async def _leased(self, state: PartitionState, window: str, topic: str) -> bool:
        """Whether the window may be sent to ``topic``: at once while the lease is current (:mod:`.lease`),
        else once the group confirms the worker again in the same generation. False when the
        partition was revoked and assigned back meanwhile (its messages are cut again, see
        ``_uncut``); a partition revoked and not assigned back ends the actor here. A lease not back
        within producer.request_timeout stops the worker as a send not acknowledged does, with the
        same ERROR line (a broker that is down keeps the group from confirming, too)."""
        lease = self.lease
        if lease.current():
            return True
        generation, age = lease.generation, lease.age()
        if state.held_window != window:  # a window may wait before each of its two sends; counted once
            state.held_window = window
            self.metrics.held_for_lease()
        log.warning("partition %d: window %s waits for the group to confirm this worker (%s, consumer."
                    "session_timeout=%g s); it is sent only if the group still knows the worker", state.partition,
                    window, "never confirmed" if age is None else f"last confirmed {age:.1f} s ago",
                    self.settings.consumer.session_timeout)
        timeout = self.settings.producer.request_timeout
        deadline = time.monotonic() + timeout
        while True:
            if state.replan:
                log.info("partition %d: window %s not sent: the partition was revoked and assigned back; its "
                         "messages are cut again where the window log says", state.partition, window)
                return False
            if lease.current(generation) and state.partition not in self.revoked:
                log.info("partition %d: window %s is sent after all: the group confirmed this worker again",
                         state.partition, window)
                return True
            if time.monotonic() > deadline:
                exc = LeaseExpired(window)
                await self._fail(exc, self._not_taken(topic, f"window {window} waited for the group to confirm this "
                                                          "worker for"))
                raise exc
            await asyncio.sleep(LEASE_POLL_SECONDS)

    async def _failed(self, partition: int, cut: Cut, reason: str, cause: str, closed: float | None = None) -> Outcome:
        """The rejection of a window the service fails itself, made in the window thread as every
        other outcome is: it calls the observers of rejections, plugin code, which on the event
        loop held the worker while it ran, and whose KeyboardInterrupt there, in the main thread,
        was taken for a stop signal and stopped the worker at that window on every restart."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(
            self.processor.failed, self.topic, partition, cut, reason, cause, closed=closed))

    def _process(self, partition: int, cut: Cut) -> tuple[Outcome, float]:
        """The window's outcome and the seconds it took (in the executor thread)."""
        started = time.perf_counter()
        self.processing.set()
        try:
            outcome = process_in_thread(self.processor, self.topic, partition, cut)
        finally:
            self.processing.clear()
        return outcome, time.perf_counter() - started

    async def _send(self, topic: str, key: bytes, value: bytes, headers=None, partition: int | None = None) -> None:
        try:
            await self.app.producer.send_and_wait(topic, key, value, partition, None, headers)
        except Exception as exc:
            # Nothing of the window is acknowledged; stopping lets a restart re-deliver it.
            await self._fail(exc, self._not_taken(topic, f"{type(exc).__name__}; retried for"))
            raise

    def _not_taken(self, topic: str, what: str, failed: str = "did not take a message for") -> str:
        """The ERROR line of a window's message the broker did not take in time; a lease that did not
        come back says the same, since a broker that is down keeps the group from confirming too,
        and so does a read of the window log that failed as long (``failed``: what the broker did not do)."""
        return (f"the broker {failed} {topic} ({what} up to producer.request_timeout="
                f"{self.settings.producer.request_timeout:g} s); stopping the worker, unacknowledged input is "
                "re-delivered on restart")

    # -- operations -------------------------------------------------------------------------------
    def partition_state(self) -> dict[int, tuple[int, int]]:
        """Per assigned partition: (messages not yet emitted or dead-lettered, held transactions)."""
        out = {}
        for partition, state in list(self.partitions.items()):
            windower = state.windower
            next_offset = state.emitting if state.emitting is not None else windower.first_unwindowed
            highwater = self.app.consumer.highwater(TP(self.topic, partition))
            out[partition] = (max((highwater or 0) - next_offset, 0), windower.pending_transactions)
        return out

    def readiness(self) -> tuple[bool, dict]:
        # Faust types app.tables as its interface, which has no recovery; the worker's is a TableManager
        recovering = bool(getattr(cast("TableManager", self.app.tables).recovery, "in_recovery", False))
        ready = self.assigned and not self.app.rebalancing and not recovering and self.fatal is None
        # From a revocation to the next assignment the consumer still reports the partitions it had;
        # the worker may no longer own them, so none are named until the group assigns again.
        partitions = sorted(tp.partition for tp in self.app.consumer.assignment()
                            if tp.topic == self.topic) if self.assigned else []
        return ready, {"ready": ready, "assigned": self.assigned, "rebalancing": bool(self.app.rebalancing),
                       "recovering": recovering, "partitions": partitions}

    async def on_assigned(self, sender, assigned, **kwargs) -> None:
        kept = {tp.partition for tp in assigned if tp.topic == self.topic} & self.revoked
        for partition in kept:
            if (state := self.partitions.get(partition)) is not None:
                state.replan = True
        self.assigned = True
        self.assigned_at = time.monotonic()
        # Faust has asked the actors of the partitions this worker lost to stop, but an actor may
        # take its cancellation after this signal: its partition stays revoked until it has ended
        # (else the actor, no longer revoked nor stopping, re-raised the cancellation unlogged).
        self.revoked -= kept

    async def on_revoked(self, sender, revoked, **kwargs) -> None:
        # Faust calls this before every join of the group, the first included, so the lease sees
        # each SyncGroup request; Faust has no public way to the aiokafka consumer it runs.
        consumer = _kafka_consumer(self.app)._thread._consumer
        assert consumer is not None  # made as the consumer's thread starts, before it joins the group
        self.lease.watch(consumer._coordinator)
        self._watch_fetcher(consumer._fetcher)
        # Faust reads uncommitted records unless it runs exactly-once itself: the records of a
        # producer's aborted transaction would be released, and again when it retries them. Set
        # before the first fetch, which follows the join.
        if consumer._fetcher._isolation_level != READ_COMMITTED:
            consumer._fetcher._isolation_level = READ_COMMITTED
            log.info("input topic read committed only: records of aborted transactions are skipped")
        self.assigned = False
        self.revoked = {tp.partition for tp in revoked if tp.topic == self.topic}

    def _watch_fetcher(self, fetcher) -> None:
        """Stop the worker when aiokafka's fetcher task ends, on an error or, the fetcher still
        open, without one. Nothing fetches again, while the probes stay green and the lag gauges
        are never set (QA: a fetch size over the protocol's int32; aiokafka logged that error).
        Called on the event loop; the task runs on the consumer thread's."""
        if fetcher is self.fetcher:
            return
        self.fetcher = fetcher
        loop = asyncio.get_running_loop()

        def ended(task: asyncio.Future) -> None:
            if self.stopping:
                return
            error = None if task.cancelled() else task.exception()
            if error is None:
                # aiokafka's close() marks the fetcher closed before it cancels the task
                if not fetcher._closed:
                    why = ("the Kafka consumer's fetcher ended without an error and would fetch nothing more; "
                           "stopping the worker, unacknowledged input is re-delivered on restart")
                    loop.call_soon_threadsafe(self._fail_fetcher, FetcherEnded(), why)
                return
            # aiokafka's Fetcher.close() awaits the task and raises its error again: the consumer
            # thread's stop failed with a traceback and the worker waited out its 10 s stop
            # limit blaming the broker (QA re-check). The error is this callback's to report.
            settled = task.get_loop().create_future()
            settled.set_result(None)
            fetcher._fetch_task = settled
            why = (f"the Kafka consumer's fetcher ended on {fetch_failure(error)} and would fetch "
                   "nothing more; stopping the worker, unacknowledged input is re-delivered on restart")
            loop.call_soon_threadsafe(self._fail_fetcher, error, why)

        thread = _kafka_consumer(self.app)._thread
        thread.thread_loop.call_soon_threadsafe(fetcher.error_future.add_done_callback, ended)

    def _fail_fetcher(self, exc: BaseException, why: str) -> None:
        self.fetcher_failed = asyncio.ensure_future(self._fail(exc, why))

    async def on_shutdown(self, sender, **kwargs) -> None:
        self.stopping = True
        await self.windowlog.stop()
        self.executor.shutdown(wait=False, cancel_futures=True)


def window_processor(settings: Settings, configured: Configured) -> IsolatedProcessor | WindowProcessor:
    """What anonymizes and checks the worker's windows with the configured model: under
    ``model.time_limit`` in a child process, started now."""
    m = settings.model
    source = codec.event_source(settings.consumer.group_id)
    if m.time_limit:  # model.memory_limit needs it
        return IsolatedProcessor(configured, m.seed, settings.window.merge_subjects, source, m.verify, m.time_limit,
                                 m.memory_limit)
    return WindowProcessor(Pipeline(configured, get_plugin_manager(), verify=m.verify), m.seed,
                           settings.window.merge_subjects, source)


def create_app(
    settings: Settings, processor: IsolatedProcessor | WindowProcessor, log_partitions: int, data_dir: str
) -> tuple[faust.App, StreamService]:
    """A Faust app that runs the service with ``settings``, its windows processed by ``processor``."""
    c, p = settings.consumer, settings.producer
    # aiokafka's reader stopped the worker at a header name that is not UTF-8, on every restart
    tolerate_header_names()
    close_fetchers_quietly()
    stop_joins_promptly()
    app = ServiceApp(
        c.group_id,
        broker=[f"kafka://{host.strip()}" for host in settings.kafka.bootstrap.split(",")],
        broker_credentials=faust_credentials(settings),
        broker_session_timeout=c.session_timeout,
        broker_heartbeat_interval=c.heartbeat_interval,
        broker_rebalance_timeout=c.rebalance_timeout,
        broker_request_timeout=max(90.0, c.session_timeout + 10),
        broker_commit_interval=c.commit_interval,
        broker_max_poll_records=c.max_poll_records,
        consumer_max_fetch_size=c.fetch_max_bytes,
        consumer_auto_offset_reset="earliest",
        stream_buffer_maxsize=c.buffer_maxsize,
        # Held messages stay unacknowledged on purpose; a revoke must not wait for them.
        stream_wait_empty=False,
        producer_max_request_size=p.max_request_bytes,
        producer_compression_type=None if p.compression == "none" else p.compression,
        producer_linger=p.linger_ms / 1000,
        # Faust's default, 1200 s, kept a worker whose broker was gone healthy for 20 minutes with
        # its windows unsent; a send that fails sooner stops the worker (see _send)
        producer_request_timeout=p.request_timeout,
        producer_acks=-1,
        topic_disable_leader=True,
        PartitionAssignor=SpreadingAssignor,
        topic_partitions=settings.topics.partitions,
        topic_replication_factor=settings.topics.replication_factor,
        web_enabled=True,
        # Faust's /router lists the URL of every worker of the group and /table the app's tables
        # (none): on the metrics port, which a Service exposes, they served the cluster's topology
        web_router_enabled=False,
        web_tables_enabled=False,
        web_port=settings.web.port,
        web_bind=settings.web.bind,
        web_in_thread=False,
        # Faust formats the path ({conf.…}): a brace of the setting is a character of the path
        datadir=os.path.expanduser(data_dir).replace("{", "{{").replace("}", "}}"),
        key_serializer="raw",
        value_serializer="raw",
        # Faust reads un-prefixed variables of its own (WEB_PORT, BROKER_URL, PRODUCER_ACKS...) over
        # these arguments: another program's variable, or a Kubernetes Service link
        # (WEB_PORT=tcp://...), overrode the settings in silence or stopped the worker
        env={},
    )
    service = StreamService(app, settings, processor, log_partitions)
    source = app.topic(settings.topics.input, key_type=bytes, value_type=bytes, key_serializer="raw",
                       value_serializer="raw")

    @app.agent(source, name="setveil.windows", isolated_partitions=True)
    async def windows(stream):
        await service.run_partition(stream)

    @app.page("/healthz")
    async def healthz(self, request):
        status = 503 if service.fatal is not None else 200
        return self.json({"status": "ok" if status == 200 else "failed"}, status=status)

    @app.page("/readyz")
    async def readyz(self, request):
        ready, body = service.readiness()
        return self.json(body, status=200 if ready else 503)

    @app.page("/metrics")
    async def metrics(self, request):
        return self.bytes(service.metrics.exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    # mode types a signal's handler as taking any positional arguments; each takes those its signal sends
    app.on_partitions_assigned.connect(service.on_assigned)  # type: ignore[arg-type]
    app.on_partitions_revoked.connect(service.on_revoked)  # type: ignore[arg-type]
    app.on_before_shutdown.connect(service.on_shutdown)  # type: ignore[arg-type]
    return app, service
