"""Cutting one partition's stream into windows (docs/operations.md, "Delivery guarantees" and
"Design choices").

A window is a run of consecutive messages of one partition. :class:`Windower` holds the
messages not yet in an emitted window and decides where windows end:

1. **Planned cuts first.** After a restart or a rebalance the partition is read again from its
   last committed offset, and any window that was already emitted must come again with the same
   boundaries, hence the same id. The window log (:mod:`.windowlog`) tells where those windows
   ended; those cut points are honoured before anything else, whatever the size or age.
2. **Size.** As soon as ``max_transactions`` are pending, or messages of ``max_bytes`` in all, a
   window of at most that many transactions and bytes is cut at a message boundary (the byte
   bound keeps a window's batch within what the producer may send: records of a megabyte each
   would otherwise make a batch of gigabytes). Message boundaries can make the limits collide (a
   message of 300 records, or 40 pending before one of 70 with a maximum of 100 and a minimum of
   50); then the minimum wins and the window holds more than the maximum, as few messages more
   as it takes.
3. **Time.** When the oldest pending message has waited ``max_seconds``, everything pending is
   cut, unless it holds fewer than ``min_transactions``: then it is held and merged with what
   comes next.

A dead-lettered message is not held, but its offset counts as seen, so a planned cut at or
after it can be made.

**Transactions are counted as the window will hold them.** With ``merge_subjects`` the records of
one subject become one transaction (:func:`.processor.build_window`), so the limits count distinct
subjects, plus each record without one. Counting records instead let a window of 300 records from
4 subjects pass ``min_transactions`` = k = 5 and fail closed as infeasible, when it should have been
held for more input. Likewise a message with a record whose tid a record of an earlier message of
its window has is left out of the window and dead-lettered when it is cut (:attr:`Cut.repeated_tids`):
it counts no transaction, and with ``merge_subjects`` its records count for no subject. Counted, a
producer's retry among the first five messages of one record each let a window reach
``min_transactions`` = 5, hold 4 transactions and fail closed.

**Repeated tids depend on where the window starts.** Tids are compared only within one window, and
a message that repeats one brings none of its other tids into the window (a later message with one
of those repeats nothing). The windower counts the pending messages as the window that starts at
the first of them will hold them. When a cut takes the first messages away, the rest is counted as
a window of its own, exactly as a windower given only them would count it: a message may repeat no
longer, or repeat now a tid of a message that no longer does. Only the messages with a tid the cut
took away, and those their change reaches, are decided again, so a cut costs what it changes, not
what is pending. A size cut counts its messages the same way, and may take along trailing repeats
of its messages, which add no transaction. Planned cuts are honoured whatever they hold; a
window cut again at a planned point leaves out the same messages, as :attr:`Cut.repeated_tids` is
a function of the cut alone.

**Re-delivery to the same actor.** When a rebalance leaves a partition with this worker, Faust
seeks it back to its committed offset and the actor receives again messages it already holds or
has already emitted. Taking them in again would put the same transactions twice in one window
(which can make it look safe when it is not) or release them a second time under another window
id. The actor tells them apart by offset (at most :attr:`Windower.seen`): a held message
(:meth:`Windower.held`) keeps the new delivery's handle in ``again``, to be acknowledged when its
window is; anything older was emitted or dead-lettered already and only needs acknowledging.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from typing import Any

from .codec import MessageRecords


@dataclass
class Message:
    """One accepted input message: its offset, its records (as columns, which any sequence of
    records given is made) and when it arrived."""

    offset: int
    records: MessageRecords
    received: float
    handle: Any = None
    #: handles of later deliveries of the same offset (see "Re-delivery" above)
    again: list[Any] = field(default_factory=list)
    #: the bytes of the message as it came
    size: int = 0
    #: the distinct tids its records carry
    tids: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.records, MessageRecords):  # records made one by one, a list of them
            self.records = MessageRecords.of(self.records)
        tids = [tid for tid in self.records.tids if tid is not None]
        self.tids = tuple(dict.fromkeys(tids) if len(tids) > 1 else tids)


@dataclass
class Cut:
    """The messages of one window; ``planned`` when the window log fixed its end."""

    messages: list[Message]
    planned: bool = False

    @property
    def first_offset(self) -> int:
        return self.messages[0].offset

    @property
    def last_offset(self) -> int:
        return self.messages[-1].offset

    @property
    def transactions(self) -> int:
        return sum(len(m.records) for m in self.messages)

    @functools.cached_property
    def repeated_tids(self) -> dict[int, str]:
        """The messages that are dead-lettered as malformed rather than windowed, by offset, with
        the reason: those with a record whose tid a record of an earlier message of the window
        has. Two records of one transaction would count twice for k and make the window look
        safer than it is (a producer's retry), and a merged subject would carry ``tids`` ``[5,
        5]``. A message's own records repeat none (:func:`.codec.decode_message` refuses it), and
        generated tids never repeat; tids in other windows are not compared. A function of the cut
        alone, so a window cut again after a restart leaves out the same messages; computed once,
        for the window, its batch's message count and the dead letters. :class:`Windower` counts
        the messages of a window it cuts the same way, leaving these out."""
        seen: dict = {}  # tid -> the offset of the message that has it
        out: dict[int, str] = {}
        for message in self.messages:
            if seen.keys().isdisjoint(message.tids):  # in C: most messages repeat no tid
                seen.update(dict.fromkeys(message.tids, message.offset))
                continue
            index, offset = next((index, seen[tid]) for index, tid in enumerate(message.records.tids)
                                 if tid is not None and tid in seen)
            prefix = f"record {index} of the array: " if len(message.records) > 1 else ""
            out[message.offset] = f"{prefix}'tid' repeats that of a record at offset {offset}, in the same window"
        return out


@dataclass
class Windower:
    max_transactions: int
    min_transactions: int
    max_seconds: float
    max_bytes: int = 1 << 62
    merge_subjects: bool = False
    pending: deque[Message] = field(default_factory=deque)
    #: transactions the pending messages make (see "Transactions are counted ..." above)
    pending_transactions: int = 0
    pending_bytes: int = 0
    cut_points: deque[int] = field(default_factory=deque)
    seen: int = -1
    # pending by offset: a rebalance can re-deliver thousands of held messages at once
    _held: dict[int, Message] = field(default_factory=dict)
    # with merge_subjects: pending records per subject, of the messages not repeated
    _subjects: Counter = field(default_factory=Counter)
    # the pending messages that repeat a tid of the window that starts at the first pending one
    # (see "Repeated tids ..." above), by offset; they count no transaction
    _repeated: set[int] = field(default_factory=set)
    # tid -> the offsets of the pending messages that have it, ascending
    _where: dict[Any, list[int]] = field(default_factory=dict)
    # tid -> the offset of the pending message that has it and is not repeated: the only one, as
    # any later message with the tid repeats it
    _holder: dict[Any, int] = field(default_factory=dict)

    def plan(self, cut_points: Iterable[int]) -> None:
        """Windows must end at these offsets (ascending), as they did when first emitted."""
        for point in cut_points:
            if point > self.seen and (not self.cut_points or point > self.cut_points[-1]):
                self.cut_points.append(point)

    @property
    def first_unwindowed(self) -> int:
        """The offset of the first held message, or past every message seen when none is held."""
        return self.pending[0].offset if self.pending else self.seen + 1

    def replan(self, cut_points: Iterable[int]) -> None:
        """Windows of the held messages must end at these offsets (ascending): after a rebalance
        that left the partition here, another worker may have owned it meanwhile and emitted
        windows of messages this one still holds."""
        start = self.first_unwindowed
        self.cut_points = deque(point for point in cut_points if point >= start)

    def add(self, message: Message) -> None:
        """Hold ``message``, which comes after every held one."""
        self.pending.append(message)
        self._held[message.offset] = message
        tids = message.tids
        for tid in tids:
            where = self._where.get(tid)
            if where is None:
                self._where[tid] = [message.offset]
            else:
                where.append(message.offset)
        if not self._holder.keys().isdisjoint(tids):  # in C, where a generator step looked up each tid
            self._repeated.add(message.offset)
        else:
            self._keep(message)
        self.pending_bytes += message.size
        self.seen = max(self.seen, message.offset)

    def held(self, offset: int) -> Message | None:
        """The held message at ``offset``, if this windower holds one."""
        return self._held.get(offset)

    def skip(self, offset: int) -> None:
        """A message at ``offset`` was dead-lettered."""
        self.seen = max(self.seen, offset)

    def cuts(self, now: float) -> list[Cut]:
        """The windows that are complete at time ``now``."""
        out: list[Cut] = []
        while True:
            if self.cut_points:
                point = self.cut_points[0]
                if self.seen < point:
                    break
                self.cut_points.popleft()
                count = 0
                while count < len(self.pending) and self.pending[count].offset <= point:
                    count += 1
                if count:
                    out.append(Cut(self._pop(count), planned=True))
            elif self.pending_transactions >= self.max_transactions or (
                    self.pending_bytes >= self.max_bytes and self.pending_transactions >= self.min_transactions):
                out.append(Cut(self._pop(self._fitting())))
            elif (self.pending and self.pending_transactions >= self.min_transactions
                  and now - self.pending[0].received >= self.max_seconds):
                out.append(Cut(self._pop(len(self.pending))))
            else:
                break
        return out

    def _count(self, message: Message, subjects: Counter, sign: int) -> int:
        """Add (sign +1) or remove (-1) a message's records in ``subjects``; how many transactions
        that adds or removes."""
        if not self.merge_subjects:
            return len(message.records)
        changed = 0
        for subject in message.records.subjects:
            if subject is None:
                changed += 1
                continue
            subjects[subject] += sign
            if subjects[subject] == (1 if sign > 0 else 0):
                changed += 1
            if not subjects[subject]:
                del subjects[subject]
        return changed

    def _fitting(self) -> int:
        """How many leading messages make the largest window of at most max_transactions and
        max_bytes; when that window would hold fewer than min_transactions, the fewest that reach it."""
        total = size = 0
        subjects: Counter = Counter()
        for count, message in enumerate(self.pending):
            more = 0 if message.offset in self._repeated else self._count(message, subjects, +1)
            too_big = total + more > self.max_transactions or size + message.size > self.max_bytes
            if too_big and total >= self.min_transactions:
                return count
            total += more
            size += message.size
        return len(self.pending)

    def _pop(self, count: int) -> list[Message]:
        if count == len(self.pending):
            return self._pop_all()
        taken = [self.pending.popleft() for _ in range(count)]
        orphaned: list = []  # the tids the taken messages held
        for message in taken:
            del self._held[message.offset]
            self.pending_bytes -= message.size
            if message.offset in self._repeated:
                self._repeated.remove(message.offset)
            else:
                self._drop(message)
                orphaned += message.tids
        # the taken messages were the first pending ones: each of their tids loses the offsets up to the last
        for tid in {tid for message in taken for tid in message.tids}:
            where = self._where[tid]
            del where[:bisect_right(where, taken[-1].offset)]
            if not where:
                del self._where[tid]
        # The rest is a window of its own now: a message that repeated a tid of a taken message may
        # repeat none and count, and one that repeats a tid of such a message no longer counts.
        # Only those with a tid the taken messages held can change, and those their change reaches.
        if orphaned:
            self._settle(self._where[tid][0] for tid in orphaned if tid in self._where)
        return taken

    def _pop_all(self) -> list[Message]:
        """Every pending message, leaving nothing counted or held: what :meth:`_pop` leaves of them
        message by message and tid by tid (each tid's offsets and holder dropped, each subject
        counted down to none), where a cut by time, or of a window the pending messages fill,
        takes them all."""
        taken = list(self.pending)
        self.pending.clear()
        for held in (self._held, self._subjects, self._repeated, self._where, self._holder):
            held.clear()
        self.pending_transactions = self.pending_bytes = 0
        return taken

    def _keep(self, message: Message) -> None:
        """Count ``message``, which repeats no tid of its window, and make it its tids' holder."""
        self.pending_transactions += self._count(message, self._subjects, +1)
        for tid in message.tids:
            self._holder[tid] = message.offset

    def _drop(self, message: Message) -> None:
        """Uncount ``message``, which is no longer held or now repeats a tid."""
        self.pending_transactions -= self._count(message, self._subjects, -1)
        for tid in message.tids:
            if self._holder.get(tid) == message.offset:
                del self._holder[tid]

    def _settle(self, offsets: Iterable[int]) -> None:
        """Decide again whether pending messages repeat a tid, after a cut took their tids'
        holders away: those at ``offsets``, and on to every message such a change reaches.

        In offset order, so that every earlier message has settled when one is decided: a message
        repeats a tid iff an earlier one holds it. A message that comes to repeat no tid takes its
        tids over from a later holder, which then repeats one; a tid whose holder came to repeat
        one, or was taken, goes to the first later message with it that repeats no other, so the
        messages with it are visited in turn until one takes it. Each message is decided at most
        once, and only those reached are: a cut costs what its tids change, not the pending deque."""
        heap = list(set(offsets))
        heapify(heap)
        queued = set(heap)

        def visit(offset: int) -> None:
            if offset not in queued:
                queued.add(offset)
                heappush(heap, offset)

        while heap:
            offset = heappop(heap)
            message = self._held[offset]
            repeats = any(self._holder.get(tid, offset) < offset for tid in message.tids)
            if repeats and offset not in self._repeated:
                self._repeated.add(offset)
                self._drop(message)
            elif not repeats and offset in self._repeated:
                self._repeated.remove(offset)
                for tid in message.tids:
                    if tid in self._holder:
                        visit(self._holder[tid])
                self._keep(message)
            if repeats:
                for tid in message.tids:
                    if tid not in self._holder:
                        where = self._where[tid]
                        after = bisect_right(where, offset)
                        if after < len(where):
                            visit(where[after])
