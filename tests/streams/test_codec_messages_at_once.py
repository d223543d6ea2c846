"""A worker's message is decoded at once (streams/codec.py ``_at_once``: unpacked in C with no hook,
packed back to its own bytes, its records checked by ``record_columns``), and a message that cannot
be vouched for so is decoded one record at a time (``_one_by_one``), as every message was before.
Whatever the message, the outcome is the one-by-one decoding's: the same records, or the same dead
letter, its kind and reason text alike. The messages a producer packs as msgpack packs them are
taken at once, so that the comparison is not of the one-by-one decoding with itself."""

import struct

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from setveil.core.formats import read_window
from setveil.streams import codec
from setveil.streams.codec import MessageRejected, decode_message
from setveil.streams.replay import messages

from ..core.record_shapes import one_fault, plain_records, record_pairs

#: near the length bound in characters and in bytes (a label of 1,024 characters, 2,048 bytes, is
#: one; the unpacker that takes a message at once refuses strings of more than 1,024 bytes)
LABELS = ["a", "b", "é", "7", "New York", "x:y", "\u2028", " a", "a ", "", "a\0b", "a" * 1023, "a" * 1024,
          "a" * 1025, "é" * 512, "é" * 513, "é" * 1024, "é" * 1025, "\U0001f600" * 256, "\U0001f600" * 257,
          "\U0001f600", "\ufeffa", "a\tb", "\x1b[2J", "a\x7f", "a\x85b", "\u3000"]
ITEMS = st.one_of(st.sampled_from(LABELS), st.integers(-3, 12), st.sampled_from([2**64 - 1, -(2**63)]),
                  st.sampled_from([True, False, None, 1.5, b"a", [], {}]))
SCALARS = st.one_of(st.integers(0, 6), st.sampled_from(["t", "1", "", " t", True, False, 1.0, None, [], {}, b"t",
                                                      2**63 - 1, -(2**63), 2**64 - 1, "t" * 1025]))
TIMES = st.sampled_from([0, 1.5, -3, float("nan"), float("inf"), True, "1", None, [], 2**64 - 1])
VALUES = {"items": st.one_of(st.lists(ITEMS, max_size=4), st.lists(st.sampled_from(["a", "b", 7, "7"]), max_size=3),
                             st.sampled_from(["a", 1, None, {}, b"x"])),
          "tid": SCALARS, "subject": SCALARS, "ts": TIMES, "other": st.sampled_from([1, {"k": 1}, [1, "x"]]),
          "Items": st.just(1)}
#: a record as its key-value pairs, a key possibly twice
PAIRS = record_pairs(VALUES)
#: a well-formed record: its items, and a tid, a subject and a time or none
PLAIN = plain_records(
    st.lists(st.sampled_from(["a", "b", "é", "New York", "x:y", "\U0001f600", 7, 8, -1, 2**64 - 1, "a" * 1024,
                              "é" * 512, "é" * 513, "\x1b"]), unique=True, max_size=5),
    st.one_of(st.none(), st.integers(0, 10**9), st.text("tuv", min_size=1, max_size=4), st.just(2**64 - 1),
              st.just(-(2**63))),
    st.lists(st.sampled_from([("subject", "s"), ("subject", 3), ("ts", 1.5), ("ts", 2), ("other", {"k": [1]})]),
             unique_by=lambda pair: pair[0], max_size=2).map(tuple))
#: a well-formed record with one fault: an item, or a field (repeated, where the record has it)
FAULTY = one_fault(PLAIN, ITEMS, VALUES)


class Packed(bytes):
    """msgpack bytes written as they are."""


def packed(value) -> bytes:
    if isinstance(value, Packed):
        return value
    if isinstance(value, tuple):  # pairs: a key may come twice, as no dict can hold it
        return msgpack.Packer().pack_map_header(len(value)) + b"".join(packed(key) + packed(item)
                                                                        for key, item in value)
    if isinstance(value, list):
        return msgpack.Packer().pack_array_header(len(value)) + b"".join(map(packed, value))
    return msgpack.packb(value)


def packed_otherwise(value) -> Packed:
    """A value as other producers pack it: a float as a float32, a string with a longer header."""
    if isinstance(value, float):
        return Packed(b"\xca" + struct.pack(">f", value))
    if isinstance(value, str):
        encoded = value.encode("utf-8", "surrogatepass")
        return Packed(b"\xda" + struct.pack(">H", len(encoded)) + encoded)
    return Packed(packed(value))


#: one record (a map), an array of records (maybe none), or something else
MESSAGE = st.one_of(
    st.lists(PLAIN, min_size=1, max_size=6),
    st.lists(st.one_of(PLAIN, PLAIN, FAULTY), min_size=1, max_size=6),
    st.lists(PLAIN, max_size=3).map(lambda records: [*records, *records]),  # tids repeated
    PLAIN.map(lambda record: [record]),
).flatmap(lambda records: st.one_of(st.just(packed(records)),
                                    st.just(packed(records[0])) if records else st.just(packed(records))))

CUTS = st.sampled_from(["none", "truncate", "extra", "utf8", "float32", "long-string", "extension", "timestamp",
                        "json", "0xc1", "nil"])


def mutated(value: bytes, how: str, where: int) -> bytes:
    """``value`` with one fault a producer or the wire may give a message."""
    if how == "truncate":
        return value[:where % max(1, len(value))]
    if how == "extra":
        return value + packed({"items": ["a"]})
    if how == "utf8":  # the first string's first byte made a continuation byte, or a surrogate spelt out
        at = next((index for index, byte in enumerate(value) if 0xa1 <= byte <= 0xbf), None)
        return value if at is None else value[:at + 1] + (b"\x80" if where % 2 else b"\xed") + value[at + 2:]
    if how == "json":
        return b'{"items": ["a"]}'
    if how == "0xc1":
        return value[:where % max(1, len(value))] + b"\xc1" + value[where % max(1, len(value)):]
    if how == "nil":
        return b"\xc0"
    return value


def outcome(decode, value: bytes):
    try:
        return "records", decode(value)
    except MessageRejected as exc:
        return "rejected", (exc.kind, exc.reason)


def one_by_one(value: bytes):
    """What a worker made of every message before: the decoding that names each fault."""
    if not value:
        return decode_message(value, 1 << 20)
    return codec._one_by_one(value)


def assert_same(value: bytes) -> None:
    expected = outcome(one_by_one, value)
    assert outcome(lambda data: decode_message(data, 1 << 20), value) == expected
    if expected[0] == "records":  # the types too: a tid 7 is not "7", a time is a float
        got = decode_message(value, 1 << 20)
        assert [(type(r.tid), type(r.subject), type(r.ts), [*map(type, r.items)]) for r in got] == \
               [(type(r.tid), type(r.subject), type(r.ts), [*map(type, r.items)]) for r in expected[1]]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MESSAGE, CUTS, st.integers(0, 10**6))
@example(packed([{"items": ["a"], "tid": 1}, {"items": ["b"], "tid": 1}]), "none", 0)
def test_a_message_decodes_at_once_as_one_record_at_a_time(value, how, where):
    assert_same(mutated(value, how, where))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(PLAIN, st.sampled_from(["float32", "long-string", "none"])), min_size=1, max_size=4),
       st.booleans())
def test_a_message_packed_otherwise_decodes_as_one_record_at_a_time(records, single):
    """Floats packed as float32 and strings with longer headers than needed: packed back, such a
    message is not its own bytes, and is decoded one record at a time."""
    def other(pairs, how):
        if how == "none":
            return pairs
        return tuple((packed_otherwise(key) if how == "long-string" else key,
                      packed_otherwise(item) if how == "float32" and isinstance(item, float) else item)
                     for key, item in pairs)
    parts = [other(pairs, how) for pairs, how in records]
    assert_same(packed(parts[0]) if single else packed(parts))


@pytest.mark.parametrize("value, reason", [
    (packed((("items", ["a"]), ("items", ["b"]))), "a map repeats a key"),
    (packed([(("items", ["a"]), ("tid", 1)), (("items", ["a"]), ("other", (("k", 1), ("k", 2))))]),
     "a map repeats a key"),
    (packed({"items": ["a", "a"]}), "'items' repeats an item"),
    (packed({"items": [7, "7"]}), "'items' repeats an item"),
    (packed([{"items": ["a"], "tid": 3}, {"items": ["b"], "tid": 3}]),
     "record 1 of the array: 'tid' repeats record 0's"),
    (packed({"items": ["a"], "tid": True}), "'tid' is a boolean, expected a string or an integer"),
    (packed([{"items": ["a"]}, {"items": ["b"], "subject": 1.5}]),
     "record 1 of the array: 'subject' is a float, expected a string or an integer"),
    (packed({"items": [" a"]}), "item 0 begins or ends with whitespace"),
    (packed({"items": ["b", "a" * 1025]}), "item 1 is longer than 1024 characters"),
    (packed({"items": ["a", ""]}), "item 1 is an empty string"),
    (packed({"items": ["a\0"]}), "item 0 holds a NUL"),
    (packed({"items": ["a"], "ts": float("nan")}), "'ts' is not a finite number"),
    (packed({"items": [msgpack.ExtType(1, b"x")]}), "item 0 is a msgpack extension, expected a string or an integer"),
    (packed([]), "the message is an empty array"),
    (packed({"items": ["a"]})[:-1], "truncated msgpack: the message ends inside a value"),
])
def test_a_fault_the_message_holds_is_named_as_before(value, reason):
    assert outcome(lambda data: decode_message(data, 1 << 20), value)[1][1] == reason
    assert_same(value)


@pytest.mark.parametrize("record, at_once", [
    ({"items": ["a" * 1024, "é" * 512, "\x1b"]}, True),  # strings of 1,024 bytes at most
    ({"items": ["é" * 513]}, False),  # 513 characters, a label, but 1,026 bytes
    ({"items": ["é" * 1024, "b"], "tid": 1}, False),
    ({"items": ["é" * 1025]}, False),
    ({"items": ["b", "a" * 1025]}, False),
    ({"items": ["a"], "tid": "t" * 1025}, False),
    ({"items": ["a"], "other": "x" * 1025}, False),
])
def test_a_string_longer_than_a_label_decodes_one_record_at_a_time(record, at_once):
    """The unpacker that takes a message at once refuses a string of more bytes than a label may
    have characters, so that no label's length need be looked at: such a message, label or not,
    valid or not, is decoded one record at a time, to the same records or dead letter."""
    value = packed(record)
    assert (codec._at_once(value) is not None) is at_once
    assert_same(value)


def test_what_replay_packs_is_taken_at_once(tmp_path):
    """Messages of records as ``setveil replay`` and msgpack's own packer pack them - labels,
    integer items, tids, subjects and times - are decoded at once, into the records decoding
    one by one gives."""
    path = tmp_path / "t.dat"
    path.write_text("".join(f"{i % 7} {i % 5 + 10} x{i % 3}\n" for i in range(500)))
    values = [value for _, _, _, value in messages(read_window(path), 100)]
    values += [packed([{"tid": 2**64 - 1, "items": [7, "8", "é"], "subject": -3, "ts": 1},
                       {"items": [], "subject": "s", "ts": 2.5, "other": {"k": [1]}}]),
               packed({"tid": "t", "items": ["New York", "a\u2028b", "b" * 1024]})]
    for value in values:
        assert codec._at_once(value) is not None
        assert_same(value)
