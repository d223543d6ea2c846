"""The wire formats of the service (docs/batch-format.md).

- Input: one msgpack map per message (``{"items": [...], "tid"?, "subject"?, "ts"?}``) or a
  msgpack array of such maps. A message is accepted or dead-lettered as a whole: one bad
  record in an array sends the whole message, with its original bytes, to the dead-letter topic.
- Output: one msgpack map per window, schema ``setveil.batch/1``, with CloudEvents binary-mode
  headers (``ce_specversion``, ``ce_type``, ``ce_source``, ``ce_id`` = the window id,
  ``content-type``).
- Dead letters: a bad message keeps its original bytes and gets ``setveil_reason`` and
  ``setveil_kind`` headers plus its source coordinates; a rejected window is a small map
  (schema ``setveil.rejected-window/1``) naming its offsets and the reason, never its contents.

Window ids are ``topic/partition/first-last`` (Kafka topic names cannot hold ``/``), a
function of the input log only, so a re-delivered window carries the id it had before.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import msgpack
import numpy as np
from aiokafka.record.default_records import DefaultRecordBatchBuilder

from setveil.core.errors import pickled_whole
from setveil.core.formats import msgpack_fault
from setveil.core.window import Window
from setveil.core.records import (MAX_LABEL_LENGTH, Record, RecordError, RepeatedKey, extension, label_problem,
                                  parse_record, plain_short_labels, record_columns, unique_map)

from . import causes

BATCH_SCHEMA = "setveil.batch/1"
REJECTED_SCHEMA = "setveil.rejected-window/1"
BATCH_TYPE = "org.setveil.batch.v1"
REJECTED_WINDOW_TYPE = "org.setveil.window.rejected.v1"
REJECTED_RECORD_TYPE = "org.setveil.record.rejected.v1"
CONTENT_TYPE = "application/msgpack"
#: a rejected record's value is its original bytes, which did not decode
ORIGINAL_BYTES_TYPE = "application/octet-stream"


class MessageRejected(Exception):
    """A message that cannot enter a window. ``kind`` is a metric label; ``reason`` holds no content."""

    def __init__(self, kind: str, reason: str):
        self.kind = kind
        self.reason = reason
        super().__init__(reason)

    def __reduce__(self):
        return pickled_whole(self)


def is_integer(value: Any) -> bool:
    """Whether a decoded value is an integer: msgpack decodes ``true`` as a bool, which
    ``isinstance(..., int)`` takes for 1."""
    return isinstance(value, int) and not isinstance(value, bool)


def window_id(topic: str, partition: int, first: int, last: int) -> str:
    return f"{topic}/{partition}/{first}-{last}"


def _json_hint(value: bytes) -> str:
    # '{' and '[' decode as the msgpack integers 123 and 91, so JSON text reads as several objects
    return "; it looks like JSON, and records are msgpack" if value.lstrip(b" \t\r\n")[:1] in (b"{", b"[") else ""


def _malformed(exc: Exception) -> str:
    """Why msgpack refused a message, in the words a file's record gets: the class of msgpack's
    error alone ("not valid msgpack (ValueError)") did not tell a message cut short, or a length
    of 2**32 entries in a few bytes, from any other fault. A whole message is decoded at once, so
    msgpack's limits are its size and a length over them runs past its end."""
    if type(exc) is ValueError and str(exc) == "Unpack failed: incomplete input":
        return "truncated msgpack: the message ends inside a value"
    return msgpack_fault(exc, "the message", "the message") or f"not valid msgpack ({type(exc).__name__})"


class MessageRecords(Sequence[Record]):
    """A message's records as columns: each one's number of items, their labels one record after
    another, and each one's tid, subject and time (None where it has none), as the windower and the
    window builder take them. A message decoded at once is carried so, with no object per record:
    making a :class:`Record` of each, for the builder to take apart into columns again, was a third
    of decoding. A record is made only where one is asked for (``records[0]``, iterating), as equal
    to the one :func:`parse_record` gives."""

    __slots__ = ("lengths", "labels", "tids", "subjects", "times")

    def __init__(self, lengths: list[int], labels: list[str], tids: list[str | int | None],
                 subjects: list[str | int | None], times: list[float | None]):
        self.lengths = lengths
        self.labels = labels
        self.tids = tids
        self.subjects = subjects
        self.times = times

    @classmethod
    def of(cls, records: Iterable[Record]) -> MessageRecords:
        """``records`` (each a :class:`Record`) as columns."""
        records = list(records)
        return cls([len(record.items) for record in records],
                   [*itertools.chain.from_iterable(record.items for record in records)],
                   [record.tid for record in records], [record.subject for record in records],
                   [record.ts for record in records])

    def items(self) -> list[list[str]]:
        """Each record's items, a list of its own."""
        flat = iter(self.labels)
        return [[*itertools.islice(flat, length)] for length in self.lengths]

    def __len__(self) -> int:
        return len(self.tids)

    def __iter__(self) -> Iterator[Record]:
        return map(Record, self.items(), self.tids, self.subjects, self.times)

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(len(self)))]
        position = range(len(self.tids))[index]  # an IndexError as a list's, negative indices as a list's
        start = sum(self.lengths[:position])
        return Record(self.labels[start:start + self.lengths[position]], self.tids[position],
                      self.subjects[position], self.times[position])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessageRecords):
            return (self.lengths, self.labels, self.tids, self.subjects, self.times) == \
                   (other.lengths, other.labels, other.tids, other.subjects, other.times)
        if isinstance(other, list):  # the records decoded one at a time are a list
            return [*self] == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # it holds lists

    def __repr__(self) -> str:
        return f"{type(self).__name__}({[*self]!r})"


def decode_message(value: bytes | None, max_bytes: int) -> MessageRecords:
    """The validated records of one input message, or :class:`MessageRejected`."""
    if not value:
        raise MessageRejected(causes.EMPTY, "empty message")
    if len(value) > max_bytes:
        raise MessageRejected(causes.OVERSIZE, f"message of {len(value)} bytes exceeds records.max_message_bytes={max_bytes}")
    records = _at_once(value)
    return records if records is not None else MessageRecords.of(_one_by_one(value))


def _at_once(value: bytes) -> MessageRecords | None:
    """The records :func:`_one_by_one` gives ``value``, taken at once, or None where a record may
    be refused or is of a shape not taken at once (:func:`~setveil.core.records.record_columns`):
    decoding each record through the repeated-key hook and :func:`parse_record` was the largest
    stage of a worker's work outside the model. The message is unpacked in C with no hook; one that
    packs back to its own bytes repeats no key (a map that does unpacks to fewer pairs and packs
    shorter). The unpacker refuses a string of more bytes than a label may have characters (a
    label, a tid or any other), so that every label taken at once is short enough with no look at
    its length, a third of the labels' check. Anything else is decoded one record at a time, which
    names the fault as before."""
    try:
        obj = msgpack.unpackb(value, raw=False, strict_map_key=False, ext_hook=extension,
                              max_str_len=MAX_LABEL_LENGTH)
        if msgpack.packb(obj) != value:  # a float32, a longer header than needed, a repeated key
            return None
    except (ValueError, TypeError, OverflowError, msgpack.UnpackException):  # an extension, which no record
        return None  # holds, packs as none
    objs = obj if type(obj) is list else [obj]
    if not objs or (columns := record_columns(objs)) is None:
        return None
    times = columns.times
    if times.count(None) != len(times):
        times = [None if ts is None else float(ts) for ts in times]
    records = MessageRecords(columns.lengths, columns.labels, columns.tids, columns.subjects, times)
    # a record that repeats an item has fewer distinct labels than labels; where every item is text,
    # its own label, the items as decoded are counted, with no list made per record (with an
    # integer, 7 beside "7" is one label twice)
    raws = records.items() if columns.integers else [*map(_ITEMS, objs)]
    if len(records.labels) != sum(map(len, map(set, raws))):
        return None
    if not plain_short_labels(records.labels, columns.text) and any(map(label_problem, set(records.labels))):
        return None
    given = [tid for tid in records.tids if tid is not None]
    if len(set(given)) != len(given):
        return None  # two records of one transaction
    return records


_ITEMS = operator.itemgetter("items")


def _one_by_one(value: bytes) -> list[Record]:
    """The records of a message decoded with the repeated-key hook and parsed one at a time
    (:func:`parse_record`): the decoding that names the first fault, whose reason a dead letter gives."""
    try:
        obj = msgpack.unpackb(value, raw=False, strict_map_key=False, ext_hook=extension, object_pairs_hook=unique_map)
    except RepeatedKey:  # valid msgpack, but not a record
        raise MessageRejected(causes.INVALID, "a map repeats a key") from None
    except msgpack.ExtraData:
        raise MessageRejected(causes.MALFORMED, f"more than one msgpack object in the message{_json_hint(value)}") from None
    except (ValueError, msgpack.UnpackException) as exc:
        # never JSON: its first byte ('{', '[' or a blank) is a whole msgpack integer, so JSON is
        # one object and extra data
        raise MessageRejected(causes.MALFORMED, _malformed(exc)) from None
    except TypeError:  # a list or map as a map key: Python cannot hash it
        raise MessageRejected(causes.INVALID, "a map key is a list or a map") from None
    if isinstance(obj, list):
        if not obj:
            raise MessageRejected(causes.INVALID, "the message is an empty array")
        records = []
        first: dict = {}  # tid -> the position of the record that has it
        for position, item in enumerate(obj):
            try:
                records.append(parse_record(item))
            except RecordError as exc:
                raise MessageRejected(causes.INVALID, f"record {position} of the array: {exc.reason}") from None
            tid = records[-1].tid
            # a producer's retry or a bug: two records of one transaction would count twice for k
            if tid is not None and first.setdefault(tid, position) != position:
                raise MessageRejected(causes.INVALID, f"record {position} of the array: 'tid' repeats record "
                                      f"{first[tid]}'s")
        return records
    try:
        return [parse_record(obj)]
    except RecordError as exc:
        raise MessageRejected(causes.INVALID, exc.reason) from None


# -- headers -------------------------------------------------------------------------------------
def _header(name: str, value: Any) -> tuple[str, bytes]:
    return name, str(value).encode("utf-8")


def event_source(group_id: str) -> str:
    """The CloudEvents ``ce_source`` of a worker's messages: its consumer group."""
    return f"setveil/{group_id}"


def cloudevents_headers(ce_type: str, ce_id: str, source: str, content_type: str = CONTENT_TYPE) -> list[tuple[str, bytes]]:
    return [
        _header("ce_specversion", "1.0"),
        _header("ce_type", ce_type),
        _header("ce_source", source),
        _header("ce_id", ce_id),
        _header("content-type", content_type),
    ]


def rejected_message_headers(kind: str, reason: str, topic: str, partition: int, offset: int,
                             source: str) -> list[tuple[str, bytes]]:
    return cloudevents_headers(REJECTED_RECORD_TYPE, f"{topic}/{partition}/{offset}", source, ORIGINAL_BYTES_TYPE) + [
        _header("setveil_kind", kind),
        _header("setveil_reason", reason),
        _header("setveil_topic", topic),
        _header("setveil_partition", partition),
        _header("setveil_offset", offset),
    ]


def message_bytes(key: bytes | None, value: bytes, headers: list[tuple[str, bytes]]) -> int:
    """The size the Kafka client gives a message (value, key, headers and a record batch's framing)
    and refuses when above its ``max_request_size``, producer.max_request_bytes."""
    return DefaultRecordBatchBuilder.estimate_size_in_bytes(key, value, headers)


# -- batches --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WindowRef:
    """Where a window came from: what a batch or a rejection names."""

    topic: str
    partition: int
    first_offset: int
    last_offset: int
    messages: int
    opened: float
    closed: float

    @property
    def id(self) -> str:
        return window_id(self.topic, self.partition, self.first_offset, self.last_offset)

    def as_map(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "topic": self.topic,
            "partition": self.partition,
            "first_offset": self.first_offset,
            "last_offset": self.last_offset,
            "messages": self.messages,
            "opened": self.opened,
            "closed": self.closed,
        }


def encode_batch(ref: WindowRef, model: dict[str, Any], verified: bool, metrics: dict[str, Any],
                 transactions: list[dict[str, Any]]) -> bytes:
    return msgpack.packb(
        {
            "schema": BATCH_SCHEMA,
            "window": ref.as_map(),
            "model": model,
            "verified": verified,
            "metrics": metrics,
            "transactions": transactions,
        },
        use_bin_type=True,
    )


def encode_released(ref: WindowRef, model: dict[str, Any], verified: bool, metrics: dict[str, Any],
                    fields: list[dict[str, Any]], released: Window) -> bytes:
    """:func:`encode_batch` of the released transactions, each ``{**extra, "items": [...]}`` with
    its ``extra`` of ``fields``, laid out with numpy: each used label packed once, a head per
    transaction, joined at once, where each transaction was a list of labels and a map the packer
    walked in turn. The bytes are the same."""
    count = min(len(fields), len(released))
    if count and (max(map(len, fields)) >= 15 or any("items" in extra for extra in fields)):
        # a head below packs each extra as a map of at most 15 entries, with items last
        return encode_batch(ref, model, verified, metrics,
                            [{**extra, "items": items} for extra, items in zip(fields, released)])
    packer = msgpack.Packer(use_bin_type=True)
    pack, array_header = packer.pack, packer.pack_array_header
    head = packer.pack_map_header(6) + b"".join(
        pack(key) + pack(value) for key, value in (("schema", BATCH_SCHEMA), ("window", ref.as_map()),
                                                   ("model", model), ("verified", verified), ("metrics", metrics)))
    fields = fields[:count]
    indptr = released.indptr[:count + 1]
    lengths = np.diff(indptr)
    # a transaction is three pieces and its labels': {**extra, "items": [...]} is extra's entries and
    # one more (its map header one more, a byte), then the items' key and list header
    if {*map(tuple, fields)} <= {("tid",)}:  # every unmerged window's: packed in C
        firsts = [packer.pack_map_header(2) + pack("tid")] * count
        entries = [*map(pack, map(_TID, fields))]
    else:
        maps = [packer.pack_map_header(size) for size in range(16)]
        firsts = [maps[len(extra) + 1] for extra in fields]
        entries = [pack(extra)[1:] for extra in fields]
    sizes, which = np.unique(lengths, return_inverse=True)
    items_key = pack("items")
    lists = np.empty(len(sizes), dtype=object)
    lists[:] = [items_key + array_header(size) for size in sizes.tolist()]
    ids = released.indices[indptr[0]:indptr[-1]]
    used = np.flatnonzero(np.bincount(ids, minlength=len(released.vocab))).tolist()
    labels = released.vocab.labels
    texts = np.full(len(labels), None, dtype=object)
    texts[used] = [*map(pack, map(labels.__getitem__, used))]
    # transaction i's pieces come after the 3 i pieces and the labels of the transactions before it
    at = (indptr[:-1] - indptr[0]) + 3 * np.arange(count)
    pieces = np.empty(3 * count + len(ids), dtype=object)
    pieces[at], pieces[at + 1], pieces[at + 2] = firsts, entries, lists[which]
    pieces[np.arange(len(ids)) + 3 * np.repeat(np.arange(1, count + 1), lengths)] = texts[ids]
    return b"".join([head, pack("transactions"), array_header(count), *pieces.tolist()])


_TID = operator.itemgetter("tid")


def encode_rejected_window(ref: WindowRef, model: dict[str, Any], reason: str, cause: str, transactions: int) -> bytes:
    return msgpack.packb(
        {"schema": REJECTED_SCHEMA, "window": ref.as_map(), "model": model, "reason": reason, "cause": cause,
         "transactions": transactions},
        use_bin_type=True,
    )


def rejected_window_message(ref: WindowRef, model: dict[str, Any], reason: str, cause: str, transactions: int,
                            source: str) -> tuple[bytes, list[tuple[str, bytes]]]:
    """A rejected window's dead letter: its value and headers."""
    value = encode_rejected_window(ref, model, reason, cause, transactions)
    headers = cloudevents_headers(REJECTED_WINDOW_TYPE, ref.id, source) + [
        ("setveil_kind", b"window"),
        ("setveil_reason", reason.encode("utf-8")),
        ("setveil_cause", cause.encode("utf-8")),
    ]
    return value, headers


#: bytes of a window's reason that a dead letter always has room for (checked at start-up,
#: :func:`largest_window_dead_letter`); a longer reason is cut short where the limit needs it
REASON_ROOM = 256
#: what ends a reason cut short
CUT_MARK = "…"


def largest_window_dead_letter(topic: str, model: dict[str, Any], source: str) -> int:
    """The bytes a window's dead letter of ``topic`` may take with a reason of :data:`REASON_ROOM`
    bytes: offsets, counts and the cause at their longest."""
    longest = 2**63 - 1
    ref = WindowRef(topic, 2**31 - 1, longest, longest, longest, 0.0, 0.0)
    cause = max(causes.WINDOW_CAUSES, key=len)
    value, headers = rejected_window_message(ref, model, "x" * REASON_ROOM, cause, longest, source)
    return message_bytes(f"{topic}/{ref.partition}".encode(), value, headers)


def fit_rejected_window(key: bytes, value: bytes, headers: list[tuple[str, bytes]],
                        limit: int) -> tuple[bytes, list[tuple[str, bytes]], str]:
    """A window's dead letter within ``limit`` bytes (the reason, in its value and its
    ``setveil_reason`` header, cut short and ended with :data:`CUT_MARK` if it must be), and
    the reason it now gives. A plugin's reason can be of any length, and a dead letter the
    Kafka client refused would stop the worker at that window on every restart."""
    rejection = msgpack.unpackb(value, raw=False, strict_map_key=False)
    reason: str = rejection["reason"]
    whole = reason.encode("utf-8")
    kept = len(whole)
    while kept > 0 and (excess := message_bytes(key, value, headers) - limit) > 0:
        # a byte cut shortens the value and the header by one each (their length prefixes may
        # shrink too); a character cut in two is left out
        kept = max(0, kept - (excess + 1) // 2)
        reason = whole[:kept].decode("utf-8", errors="ignore") + CUT_MARK
        value = msgpack.packb({**rejection, "reason": reason}, use_bin_type=True)
        headers = [(name, reason.encode("utf-8") if name == "setveil_reason" else data) for name, data in headers]
    return value, headers, reason


def decode_batch(value: bytes | None) -> dict[str, Any]:
    """A batch as a dict; raises ValueError for anything that is not a ``setveil.batch/1`` map."""
    if not value:
        # None is a tombstone (a null value), which msgpack refused as a TypeError, and that read
        # as a map key that is a list or a map
        # (the label values are streams/causes.py's to write, so no literal of one here)
        raise ValueError(f"not a {BATCH_SCHEMA} message: the value "
                         + ("is null" if value is None else "has no bytes"))
    try:
        batch = msgpack.unpackb(value, raw=False, strict_map_key=False)
    except TypeError:  # a list or map as a map key: Python cannot hash it
        raise ValueError(f"not a {BATCH_SCHEMA} message: a map key is a list or a map") from None
    if not isinstance(batch, dict) or batch.get("schema") != BATCH_SCHEMA:
        raise ValueError(f"not a {BATCH_SCHEMA} message")
    return batch
