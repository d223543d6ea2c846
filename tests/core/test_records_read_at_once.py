"""JSONL and msgpack records are read a block at a time (core/formats.py ``_at_once``: decoded in
C with no hook, checked by ``record_columns``, repeated keys found by counting colons or by packing
a block back), and a file that reading cannot vouch for is read one record at a time. Whatever
the file, the outcome is the one-by-one reading's: the same window, tids, subjects and
vocabulary, or the same error, naming the same line or record, with the given vocabulary left as
it was. The readings at once are taken for the shapes files hold, so that the comparison is not
of the one-by-one reading with itself."""

import json
import math
import struct
from unittest.mock import patch

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from setveil.core import formats
from setveil.core.errors import InputError
from setveil.core.formats import MERGED_RELEASE_FIELDS, RELEASE_FIELDS, read_window, read_window_and_subjects
from setveil.core.records import RecordError, label_problem, parse_record, record_columns, unique_map
from setveil.core.vocabulary import Vocabulary

from .record_shapes import one_fault, plain_records, record_pairs

KNOWN = ["b", "7", "z"]
LABELS = ["a", "b", "é", "7", "New York", "x:y", "http://h", "\u2028", " a", "a ", "", "a\0b", "a" * 1024,
          "a" * 1025, "\ud800", "\U0001f600", "\ufeffa"]
ITEMS = st.one_of(st.sampled_from(LABELS), st.integers(-3, 12), st.just(2**70), st.sampled_from([True, None, 1.5]))
SCALARS = st.one_of(st.integers(0, 6), st.sampled_from(["t", "1", "", " t", "\udc00", True, False, 1.0, None, [], {},
                                                      2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1]))
TIMES = st.sampled_from([0, 1.5, -3, float("nan"), float("inf"), 10**400, True, "1", None, []])


class Raw(str):
    """JSON text written as it is (a map repeating a key, a value JSON cannot spell)."""


NESTED = st.sampled_from([Raw('{"k": 1, "k": 2}'), Raw('[1, {"a": {"b": 1, "b": 2}}]'), Raw('{"k": 1}'), Raw("{}"),
                          Raw("NaN"), Raw("-Infinity"), Raw("1e999"), Raw("9" * 5000), Raw("[" * 3000 + "]" * 3000),
                          Raw('"\\ud800"'), Raw('"a\\u0000b"')])
VALUES = {"items": st.one_of(st.lists(ITEMS, max_size=4), st.lists(st.sampled_from(["a", "b", 7]), max_size=3),
                             st.sampled_from(["a", 1, None, {}]), st.lists(NESTED, min_size=1, max_size=2)),
          "tid": SCALARS, "subject": SCALARS, "ts": TIMES, "tids": st.lists(st.integers(0, 6), max_size=2),
          "other": st.one_of(NESTED, st.just("x:y")), "Items": st.just(1)}
#: a record as its key-value pairs, a key possibly twice
PAIRS = record_pairs(VALUES)
#: how a well-formed record is written: its items, and a tid, a subject, a time and merged tids or none
PLAIN = plain_records(
    st.lists(st.sampled_from(["a", "b", "é", "New York", "x:y", "\U0001f600", 7, 8, -1]), unique=True, max_size=4),
    st.one_of(st.none(), st.integers(0, 10**9), st.text("tuv", min_size=4, max_size=9), st.just(2**64 - 1)),
    st.one_of(st.just(()), st.just(()), st.lists(st.sampled_from(
        [("subject", "s"), ("subject", 3), ("ts", 1.5), ("ts", 2), ("tids", [1]), ("tids", [0, 2])]),
        unique_by=lambda pair: pair[0], min_size=1, max_size=2).map(tuple)))
#: a well-formed record with one fault: an item, or a field (repeated, where the record has it)
FAULTY_RECORD = one_fault(PLAIN, ITEMS, VALUES)
RECORD = st.one_of(PLAIN, FAULTY_RECORD)


def json_text(value, ascii_only: bool, colon: str) -> str:
    if isinstance(value, Raw):
        return value
    if isinstance(value, tuple):  # pairs
        return "{" + ", ".join(json_text(key, ascii_only, colon) + colon + json_text(item, ascii_only, colon)
                               for key, item in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(json_text(item, ascii_only, colon) for item in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


CLEAN_LINE = st.one_of(
    st.builds(lambda pairs, ascii_only, colon, before, after: before + json_text(pairs, ascii_only, colon) + after,
              PLAIN, st.booleans(), st.sampled_from([": ", ":", " : "]), st.sampled_from(["", " ", "\t"]),
              st.sampled_from(["", " ", "\r", " \r"])),
    st.sampled_from(["", " ", "\r", "\t \r"]))
#: a line one reading may take otherwise than the other: a faulty record, a record with more
#: than blanks around it, a line that is no record
FAULTY_LINE = st.one_of(
    st.builds(json_text, FAULTY_RECORD, st.booleans(), st.sampled_from([": ", ":", " : "])),
    st.builds(lambda pairs, before, after: before + json_text(pairs, True, ": ") + after, PLAIN,
              st.sampled_from(["", "\ufeff", "\u00a0", "\x0b"]),
              st.sampled_from(["\u00a0", " x", ' {"items": []}', ","])),
    st.sampled_from(["\u00a0", "\x0b", "\u2028", "{", "[1]", "1", "null", '"s"', "NaN", "\ufeff",
                     '{"items": ["a"]', '"b"]}']))


def with_faults(draw, clean, faulty) -> list:
    """A file's lines or records: clean ones, with up to two faulty ones among them."""
    parts = draw(st.lists(clean, min_size=1, max_size=8))
    for _ in range(draw(st.integers(0, 2))):
        parts.insert(draw(st.integers(0, len(parts))), draw(faulty))
    return parts


@st.composite
def jsonl_files(draw) -> bytes:
    lines = with_faults(draw, CLEAN_LINE, FAULTY_LINE)
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"]))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 9)) == 0:  # a byte no UTF-8 holds, somewhere
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff" + data[at:]
    return data


class Packed(bytes):
    """msgpack bytes written as they are (a longer form than msgpack's own, a key twice)."""


def packed(value) -> bytes:
    if isinstance(value, Packed):
        return value
    if isinstance(value, tuple):  # pairs
        return msgpack.Packer().pack_map_header(len(value)) + b"".join(packed(key) + packed(item)
                                                                        for key, item in value)
    if isinstance(value, list):
        return msgpack.Packer().pack_array_header(len(value)) + b"".join(map(packed, value))
    return msgpack.packb(value)


def longer_string(text: str) -> Packed:
    encoded = text.encode()
    return Packed(b"\xda" + struct.pack(">H", len(encoded)) + encoded)


MSGPACK_ODD = st.sampled_from([
    Packed(b"\x82\xa1k\x01\xa1k\x02"),  # a map repeating a key
    Packed(b"\xd3" + struct.pack(">q", 5)),  # 5 as an int64
    Packed(b"\xca" + struct.pack(">f", 1.5)),  # a float32
    longer_string("a"), longer_string("tid"),
    Packed(msgpack.packb(msgpack.ExtType(5, b"x"))), Packed(msgpack.packb(msgpack.Timestamp(1, 0))),
    Packed(msgpack.packb(b"bin")), Packed(b"\x81\xc0\x01"),  # a map keyed by nil
    Packed(b"\x81\x91\x01\x01"),  # a map keyed by a list
    Packed(b"\xc1"), Packed(b"\x91" * 2000 + b"\x90"), Packed(b"\xa2\xff\xfe"),  # not UTF-8
])
MSGPACK_RECORD = st.one_of(
    FAULTY_RECORD,
    st.builds(lambda pairs, odd, where: pairs[:where] + ((pairs[where % len(pairs)][0], odd),) + pairs[where:],
              PLAIN, MSGPACK_ODD, st.integers(0, 2)),
    st.builds(lambda items, odd: (("items", [*items, odd]),), st.lists(st.sampled_from(["a", "b"]), unique=True),
              MSGPACK_ODD),
    MSGPACK_ODD)


def no_raw(value):
    """Values JSON text alone spells stay out of msgpack records: an integer past msgpack's is
    text, and text with a lone surrogate its bytes, which are not UTF-8."""
    if isinstance(value, Raw):
        return "raw"
    if type(value) is int and not -(2**63) <= value < 2**64:
        return str(value)[:9]
    if isinstance(value, str) and any("\ud800" <= character <= "\udfff" for character in value):
        encoded = value.encode("utf-8", "surrogatepass")
        return Packed(bytes([0xA0 | len(encoded)]) + encoded)  # labels under 32 bytes
    if isinstance(value, tuple):
        return tuple((key, no_raw(item)) for key, item in value)
    if isinstance(value, list):
        return [no_raw(item) for item in value]
    return value


@st.composite
def msgpack_files(draw) -> bytes:
    records = with_faults(draw, PLAIN, MSGPACK_RECORD)
    data = b"".join(packed(no_raw(record)) for record in records)
    if draw(st.integers(0, 5)) == 0:
        data = data[:draw(st.integers(0, len(data)))]
    return data


def outcome(path, fmt, **options):
    """What reading ``path`` gives: the window's rows, tids, subjects and vocabulary, or the error;
    and the given vocabulary's labels after."""
    vocab = Vocabulary(KNOWN)
    try:
        if options:
            window = read_window(path, fmt, vocab, **options)
            subjects = None
        else:
            window, subjects, _ = read_window_and_subjects(path, fmt, vocab)
    except InputError as error:
        return ("refused", str(error), vocab.labels)
    return ("read", window.indptr.tolist(), window.indices.tolist(), window.tids, subjects, window.vocab.labels,
            window.vocab is vocab)


def one_by_one(path, fmt, **options):
    with patch.object(formats, "_at_once", return_value=None):
        return outcome(path, fmt, **options)


#: verify's readings of a release: its fields only, and the merged records' tids
READINGS = st.one_of(st.just({}), st.just({"fields": RELEASE_FIELDS}),
                     st.builds(lambda merged: {"fields": MERGED_RELEASE_FIELDS, "merged_tids": merged},
                               st.lists(st.one_of(st.none(), st.lists(st.integers(0, 6), max_size=2)), max_size=4)))

SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(data=jsonl_files(), reading=READINGS)
@example(data=b'{"items": ["a"], "items": ["b"]}\n', reading={})
@example(data=b'{"items": ["a"]}\n{"tid": 0, "items": ["b"]}\n', reading={})
@example(data=b'{"items": ["x:y"], "other": {"k": 1, "k": 2}}\n', reading={})
@example(data=b'{"items": ["x:y"], "tid": 1, "tid": 2}\n', reading={})
@example(data=b'{"items": ["\\u003a"], "tid": 1, "tid": 2}\n', reading={})
@example(data=b'{"items": ["a:b", 5], "subject": "s:", "tid": "t:"}\n{"items": [], "tid": 1, "tid": 2}\n', reading={})
@example(data=b'{"items": ["a", "b"]}\n{"items": ["\\ud800"]}\n', reading={})
@example(data=b'{"items": ["a"], "subject": "\\udc00"}\n', reading={})
@example(data=b'{"tid": "\\ud83d", "items": ["a"]}\n', reading={})
@example(data=b'{"items": ["a"]}\n{"items": ["b", " a"]}\n', reading={})
@example(data=b'{"items": ["a"]}\n{"items": [5, "5"]}\n', reading={})
@example(data=b'{"tid": 0, "tids": [0], "items": ["a"]}\n{"tid": 1, "tids": [2], "items": ["b"]}\n',
         reading={"fields": MERGED_RELEASE_FIELDS, "merged_tids": [None, None]})
def test_jsonl_read_at_once_is_read_as_one_by_one(tmp_path_factory, data, reading):
    path = tmp_path_factory.mktemp("jsonl") / "in.jsonl"
    path.write_bytes(data)
    assert outcome(path, "jsonl", **reading) == one_by_one(path, "jsonl", **reading)


@SETTINGS
@given(data=msgpack_files(), reading=READINGS)
@example(data=msgpack.packb({"items": ["a"]}) + b"\x82\xa5items\x90\xa5items\x91\xa1a", reading={})
@example(data=msgpack.packb({"items": ["a"], "ts": 1.5})[:-1], reading={})
@example(data=b"\x81\xa5items\x90\x81", reading={})  # a map header the file ends after
@example(data=b"\x81\xa5items\x91\xca\x3f\xc0\x00\x00\x81", reading={})  # the same after a float32
@example(data=msgpack.packb({"items": ["a"]}) + msgpack.packb({"items": ["a", "a\0"]}), reading={})
@example(data=msgpack.packb({"items": ["a"]}) + msgpack.packb({"items": ["b", "b"]}), reading={})
def test_msgpack_read_at_once_is_read_as_one_by_one(tmp_path_factory, data, reading):
    path = tmp_path_factory.mktemp("msgpack") / "in.msgpack"
    path.write_bytes(data)
    assert outcome(path, "msgpack", **reading) == one_by_one(path, "msgpack", **reading)


def read_at_once(path, fmt):
    """The window read at once, or None where the file is read one record at a time."""
    data = path.read_bytes()
    if fmt == "jsonl":
        text = formats._decode(path, data)
        escapes = "\\u" in text
        return formats._at_once(path, formats._jsonl_blocks(text, escapes), Vocabulary(KNOWN), None, None, escapes)
    return formats._at_once(path, formats._msgpack_blocks(data), Vocabulary(KNOWN), None, None, False)


def common_records(count: int) -> list[dict]:
    """Records of the shapes files hold: text and integer items, a colon, a blank inside a label,
    text beyond ASCII, tids or none, a subject, a time."""
    records = []
    for position in range(count):
        record = {"tid": f"r{position}" if position % 3 else position, "items": ["a", f"i{position % 7}", "x:y"]}
        if position % 4 == 1:
            record = {"items": [position, "New York", "é"], "subject": f"s{position % 5}", "ts": 1.5 * position}
        elif position % 4 == 2:
            record["items"] = []
        records.append(record)
    return records


@pytest.mark.parametrize("count", [1, 255, 256, 257, 1000])
@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_the_shapes_files_hold_are_read_at_once_as_one_by_one(tmp_path, fmt, count):
    records = common_records(count)
    path = tmp_path / f"in.{fmt}"
    if fmt == "jsonl":
        # CRLF line ends, blank lines, escaped and bare text beyond ASCII, spaces around a colon
        lines = [json.dumps(record, ensure_ascii=position % 2 == 0).replace('"items":', '"items" :')
                 for position, record in enumerate(records)]
        path.write_bytes(("\r\n\n".join(lines) + "\r\n").encode())
    else:
        path.write_bytes(b"".join(map(msgpack.packb, records)))
    read = read_at_once(path, fmt)
    assert read is not None
    window, subjects = read
    assert outcome(path, fmt)[1:5] == one_by_one(path, fmt)[1:5] == (
        window.indptr.tolist(), window.indices.tolist(), window.tids, subjects)


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_a_repeated_key_past_the_first_block_is_refused_at_its_line(tmp_path, fmt):
    records = [{"items": ["a"]}] * 600
    path = tmp_path / f"in.{fmt}"
    if fmt == "jsonl":
        path.write_text('{"items": ["a"]}\n' * 599 + '{"items": ["x:y"], "items": ["b"]}\n')
        words = "an object repeats a key"
    else:
        path.write_bytes(b"".join(map(msgpack.packb, records[:599])) + b"\x82\xa5items\x90\xa5items\x91\xa1b")
        words = "a map repeats a key"
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}:600: {words}"


LABEL_PROBLEMS = {label_problem(label) for label in ["", "a" * 1025, " a", "a\0"]}
OBJECTS = st.one_of(st.builds(dict),
                    st.fixed_dictionaries({"items": VALUES["items"]}, optional={
                        "tid": SCALARS, "subject": SCALARS, "ts": TIMES, "other": st.just(1)}),
                    st.sampled_from([[], "x", None, ({"items": ["a"]},)]))


def plain(value):
    """A decoded value in place of JSON text."""
    if isinstance(value, Raw):
        return {}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return [plain(item) for item in value] if isinstance(value, list) else value


@settings(max_examples=800, deadline=None)
@given(objs=st.lists(OBJECTS.map(plain), max_size=6))
def test_record_columns_takes_what_parse_record_takes(objs):
    columns = record_columns(objs)
    parsed, refusals = [], []
    for obj in objs:
        try:
            parsed.append(parse_record(obj))
        except RecordError as error:
            refusals.append(error.reason)
    # taken at once, a record is one parse_record takes, or refuses only for a label's text or a
    # repeated item, which the reader checks by the labels' ids
    if columns is not None:
        assert all(reason.startswith("item ") and reason.split(" ", 2)[2] in LABEL_PROBLEMS
                   or reason == "'items' repeats an item" for reason in refusals)
        if not refusals:
            assert columns.lengths == [len(record.items) for record in parsed]
            assert columns.labels == [label for record in parsed for label in record.items]
            assert columns.tids == [record.tid for record in parsed]
            assert columns.subjects == [record.subject for record in parsed]
    # every map whose items are a list that parse_record takes is taken at once
    elif objs and not refusals:
        assert not all(type(obj) is dict and type(obj["items"]) is list for obj in objs)


def test_finite_times_and_msgpack_integers_are_taken_and_others_are_not():
    assert record_columns([{"items": [], "ts": 10**300, "tid": 2**64 - 1, "subject": -(2**63)}]) is not None
    for bad in [{"ts": 10**400}, {"ts": math.nan}, {"tid": 2**64}, {"subject": -(2**63) - 1}, {"tid": True}]:
        assert record_columns([{"items": [], **bad}]) is None


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.sampled_from(["a", "b", "7", "é", "z", "y"]), max_size=20),
       known=st.lists(st.sampled_from(["a", "b", "7"]), unique=True))
def test_numbering_gives_the_ids_of_intern_many_and_interns_nothing(labels, known):
    vocab, interned = Vocabulary(known), Vocabulary(known)
    ids, new = vocab.numbering(labels, len(labels))
    assert vocab.labels == tuple(known)
    assert ids.tolist() == interned.intern_many(labels).tolist()
    assert tuple(known) + tuple(new) == interned.labels


def test_colons_in_labels_tids_and_subjects_are_no_cause_to_decode_a_line_again(tmp_path, monkeypatch):
    # labels such as URLs or codes (ICD-10:J45) hold colons, and each such line was decoded twice
    hooked = []
    monkeypatch.setattr(formats, "unique_map", lambda pairs: hooked.append(1) or unique_map(pairs))
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"tid": f"t:{position}", "items": ["http://a", "b", position], "subject": "s:"})
                            + "\n" for position in range(300)))
    assert read_at_once(path, "jsonl") is not None
    assert hooked == []
    # a key repeated beside them is still found
    path.write_text(path.read_text() + '{"items": ["http://a"], "items": []}\n')
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}:301: an object repeats a key"
    assert hooked


def test_msgpack_packed_otherwise_than_msgpack_packs_it_is_read_at_once(tmp_path):
    # a producer's float32 times and longer string headers than needed: each block is unpacked
    # again with the check, where the whole file was read one record at a time
    def record(position: int) -> bytes:
        return (b"\x83" + msgpack.packb("tid") + msgpack.packb(position) + msgpack.packb("ts")
                + b"\xca" + struct.pack(">f", 1.5) + msgpack.packb("items") + b"\x92" + longer_string("a")
                + longer_string(f"i{position % 9}"))
    path = tmp_path / "in.msgpack"
    path.write_bytes(b"".join(map(record, range(600))))
    read = read_at_once(path, "msgpack")
    assert read is not None
    assert outcome(path, "msgpack")[1:5] == one_by_one(path, "msgpack")[1:5] == (
        read[0].indptr.tolist(), read[0].indices.tolist(), read[0].tids, read[1])
    # a repeated key among them is still found, at its record
    path.write_bytes(path.read_bytes() + b"\x82" + longer_string("items") + b"\x90" + msgpack.packb("items")
                     + msgpack.packb(["b"]))
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}:601: a map repeats a key"
