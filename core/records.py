"""Validation of one input record (the service's wire format and the JSONL/msgpack file format).

A record is a map ``{"items": [...], "tid": optional, "subject": optional, "ts": optional}``;
items are strings or integers, each at most once. The reasons given never quote contents.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

MAX_LABEL_LENGTH = 1024


class Extension:
    """A msgpack extension value, as the readers decode one (:func:`extension`): opaque, and
    reported under its own name (msgpack's ``ExtType`` is a tuple, which would read as a list)."""

    __slots__ = ()


def extension(code: int, data: bytes) -> Extension:
    """msgpack's ``ext_hook``: the payload is dropped, it is never an item."""
    return Extension()


class RepeatedKey(ValueError):
    """A decoded map names one key twice (raised by :func:`unique_map`)."""


def unique_map(pairs: Iterable[tuple[Any, Any]]) -> dict[Any, Any]:
    """The ``object_pairs_hook`` of the JSON and msgpack decoders: a map whose keys are all
    different. Both formats keep the last of a repeated key, so ``{"items": [...], "items": [...]}``
    would release one list and drop the other, and ``{"tid": 1, "tid": 2}`` would be tid 2, in silence."""
    # msgpack's pure-Python unpacker, which pip installs where a release has no wheel, passed the
    # pairs as a generator (1.0.3, say, on Python 3.11)
    pairs = list(pairs)
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise RepeatedKey
    return mapping


class RecordError(ValueError):
    """The record is malformed; ``reason`` is a short, content-free explanation."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Record:
    items: list[str]
    tid: str | int | None = None
    subject: str | int | None = None
    ts: float | None = None


def parse_record(obj: Any) -> Record:
    """Validate a decoded record; raise :class:`RecordError` naming what is wrong."""
    if not isinstance(obj, Mapping):
        raise RecordError(f"record is {kind_of(obj)}, expected a map")
    if "items" not in obj:
        raise RecordError("record has no 'items'")
    raw = obj["items"]
    if not isinstance(raw, (list, tuple)):
        raise RecordError(f"'items' is {kind_of(raw)}, expected a list")
    # The common case, strings without whitespace, is checked in bulk (the service's hot path)
    if {*map(type, raw)} <= {str} and plain_labels(raw):
        items = list(raw)
    else:
        items = [item_label(item, position) for position, item in enumerate(raw)]
    if len(set(items)) != len(items):
        raise RecordError("'items' repeats an item")
    tid = _scalar_field(obj, "tid")
    subject = _scalar_field(obj, "subject")
    ts = obj.get("ts")
    if ts is not None and (isinstance(ts, bool) or not isinstance(ts, (int, float))):
        raise RecordError(f"'ts' is {kind_of(ts)}, expected a number")
    if ts is not None and not _finite(ts):
        raise RecordError("'ts' is not a finite number")
    return Record(items, tid, subject, None if ts is None else float(ts))


@dataclass(frozen=True)
class Columns:
    """Records taken at once by :func:`record_columns`: each one's number of items, their labels
    one record after another, and each one's tid, subject and time (None where it has none);
    ``integers`` whether an item is an integer, whose label is its decimal text (so that 7 beside
    "7" is one label twice); ``text`` the labels joined where every item is text (None otherwise),
    as :func:`plain_short_labels` joins them."""
    lengths: list[int]
    labels: list[str]
    tids: list[str | int | None]
    subjects: list[str | int | None]
    times: list[int | float | None]
    integers: bool = False
    text: str | None = None


_ITEMS = itemgetter("items")


def record_columns(objs: Sequence[Any]) -> Columns | None:
    """What :func:`parse_record` takes of each decoded record, for records of the shapes files
    hold (maps, lists of items that are strings or integers, tids and subjects strings, integers
    or none, no ``ts`` or a finite number), taken at once: per record, Python's work took longer
    than decoding the file (retail as JSONL). None where a record is of another shape, which may
    be refused: read one by one, the first refused names its fault. Every label is as
    :func:`item_label` gives it, but its text is not checked (:func:`label_problem`) nor is a
    repeated item in a record: the reader checks each distinct label once and finds repeats by
    the labels' ids."""
    if {*map(type, objs)} != {dict}:
        return None
    try:
        raws = [*map(_ITEMS, objs)]
    except KeyError:
        return None
    if {*map(type, raws)} != {list}:
        return None
    labels = [*itertools.chain.from_iterable(raws)]
    try:
        # joined only where every item is text (a decoder's str), which tells it at a cost per
        # label below the type of each, and which the labels' check takes joined
        text: str | None = "".join(labels)
    except TypeError:
        if not {*map(type, labels)} <= {str, int}:
            return None
        text, labels = None, [*map(str, labels)]  # an integer among them
    tids = [*map(dict.get, objs, itertools.repeat("tid"))]
    subjects = [*map(dict.get, objs, itertools.repeat("subject"))]
    times = [*map(dict.get, objs, itertools.repeat("ts"))]
    if not (_scalars(tids) and _scalars(subjects) and _times(times)):
        return None
    return Columns([*map(len, raws)], labels, tids, subjects, times, text is None, text)


def _times(values: list[Any]) -> bool:
    """Whether :func:`parse_record` takes each of ``values`` as a ``ts``."""
    kinds = {*map(type, values)} - {type(None)}
    return kinds <= {int, float} and (not kinds or all(_finite(value) for value in values if value is not None))


def _scalars(values: list[Any]) -> bool:
    """Whether :func:`_scalar_field` takes each of ``values``."""
    kinds = {*map(type, values)}
    if not kinds <= {str, int, type(None)}:
        return False
    if int not in kinds:
        return True
    numbers = values if kinds == {int} else [value for value in values if type(value) is int]
    return min(numbers) in MSGPACK_INTEGERS and max(numbers) in MSGPACK_INTEGERS


def item_label(item: Any, position: int) -> str:
    """The label of one item: strings as they are, integers by their decimal text."""
    if isinstance(item, bool) or not isinstance(item, (str, int)):
        raise RecordError(f"item {position} is {kind_of(item)}, expected a string or an integer")
    label = item if isinstance(item, str) else str(item)
    problem = label_problem(label)
    if problem is not None:
        raise RecordError(f"item {position} {problem}")
    return label


def label_problem(label: str) -> str | None:
    """Why no reader of setveil's takes ``label`` as an item, or None: the writers ask it too, so
    that what they write reads back (a Window built in Python holds any text)."""
    if not label:
        return "is an empty string"
    if len(label) > MAX_LABEL_LENGTH:
        return f"is longer than {MAX_LABEL_LENGTH} characters"
    if label != label.strip():
        # an item list (one label per line, trimmed) could never name it, so it could never be
        # made sensitive: " HIV" would be released as a public item next to a protected "HIV"
        return "begins or ends with whitespace"
    if "\0" in label:
        # refused in every text file (item lists included), so no list could name it either
        return "holds a NUL"
    return None


def plain_labels(labels: Sequence[str]) -> bool:
    """Whether ``labels`` are each one that :func:`label_problem` passes, with no whitespace in
    it, found at once: the labels of most records, where a call per label was a reader's cost."""
    return plain_short_labels(labels) and max(map(len, labels)) <= MAX_LABEL_LENGTH


def plain_short_labels(labels: Sequence[str], joined: str | None = None) -> bool:
    """:func:`plain_labels` of ``labels`` known to be at most :data:`MAX_LABEL_LENGTH` characters
    each (decoded from strings of at most that many bytes): their lengths, a look at each label,
    were a third of the check of a worker's messages. ``joined``: the labels joined, where the
    caller has joined them (:attr:`Columns.text`)."""
    if joined is None:
        joined = "".join(labels)
    return joined.split() == [joined] and "\0" not in joined and "" not in labels


#: the integers msgpack holds: a tid or subject is carried on in msgpack (files, batches)
MSGPACK_INTEGERS = range(-(2**63), 2**64)


def _scalar_field(obj: Mapping, name: str) -> str | int | None:
    value = obj.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
        raise RecordError(f"'{name}' is {kind_of(value)}, expected a string or an integer")
    if isinstance(value, int) and value not in MSGPACK_INTEGERS:
        # QA: JSONL took tid 2**64, and writing the release as msgpack ended in a traceback
        raise RecordError(f"'{name}' is an integer outside -2**63 to 2**64 - 1, which msgpack cannot hold; "
                          "give it as a string")
    return value


def _finite(number: int | float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer beyond any float (JSON allows thousands of digits)
        return False


def kind_of(value: Any) -> str:
    """What ``value`` is, with its article, to follow "is" ("record is an integer")."""
    if value is None:
        return "null"
    if isinstance(value, Extension):
        return "a msgpack extension"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, (bytes, bytearray)):
        return "binary data"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, str):
        return "a string"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
