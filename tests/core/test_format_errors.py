"""Hostile input files: each is one InputError naming the file (and line), never a traceback,
and no message quotes the data."""

import gzip

import msgpack
import pytest

from setveil.core.errors import InputError
from setveil.core import formats
from setveil.core.formats import read_window, write_window
from setveil.core.records import RepeatedKey, unique_map

from .figure1 import FIGURE_1, MODEL, PRIVATE, run

BOM = b"\xef\xbb\xbf"


def anonymize(tmp_path, data, out):
    """The CLI run on ``data`` with Figure 1's sensitive items."""
    (tmp_path / "private.txt").write_text(PRIVATE)
    return run("anonymize", data, "-o", out, *MODEL, "--sensitive", tmp_path / "private.txt")


def damaged_deflate(content: bytes) -> bytes:
    """``content`` gzipped, with its first deflate byte flipped: zlib refuses the stream."""
    data = bytearray(gzip.compress(content))
    data[10] ^= 0xFF
    return bytes(data)


def bad_crc(content: bytes) -> bytes:
    data = gzip.compress(content)
    return data[:-8] + b"\0\0\0\0" + data[-4:]


@pytest.mark.parametrize(
    "data",
    [
        damaged_deflate(b"secret b c\n" * 100),
        b"secret b\n",  # not gzip at all: gzip's own message quotes the first bytes
        gzip.compress(b"a b\n") + b"secret",
        bad_crc(b"secret b\n"),
    ],
    ids=["damaged-deflate", "not-gzip", "trailing-garbage", "bad-crc"],
)
def test_bad_gzip_is_one_fixed_message(tmp_path, data):
    path = tmp_path / "x.dat.gz"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}: cannot read: not valid gzip data"


def test_truncated_gzip_says_so(tmp_path):
    path = tmp_path / "x.dat.gz"
    path.write_bytes(gzip.compress(b"a b\n")[:-4])
    with pytest.raises(InputError, match="gzip data ends early"):
        read_window(path)


def test_corrupt_gzip_through_the_cli_exits_2_with_one_line(tmp_path):
    data = tmp_path / "in.dat.gz"
    data.write_bytes(damaged_deflate(FIGURE_1.encode() * 20))
    result = anonymize(tmp_path, data, tmp_path / "out.dat")
    assert result.exit_code == 2
    assert result.output.strip().endswith(f"{data}: cannot read: not valid gzip data")
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "out.dat").exists()


@pytest.mark.parametrize(
    "record, words",
    [
        (r'{"items": ["\ud800", "b"]}', "item 0 is not valid Unicode text"),
        (r'{"items": ["a", "x\uDC00"]}', "item 1 is not valid Unicode text"),
        (r'{"tid": "\udfff", "items": ["a"]}', "'tid' is not valid Unicode text"),
        # regression: replay sends the subject, and ended on it in a traceback
        (r'{"subject": "p\ud800", "items": ["a"]}', "'subject' is not valid Unicode text"),
    ],
)
def test_lone_surrogates_are_refused_when_read(tmp_path, record, words):
    """Accepted, they would fail only when the release is written, quoting the character."""
    path = tmp_path / "in.jsonl"
    path.write_text('{"items": ["a"]}\n' + record + "\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}:2: {words}"


def test_escaped_text_that_is_valid_unicode_is_kept(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(r'{"tid": "t\u00e9", "items": ["\ud83d\ude00", "caf\u00e9"]}' + "\n")
    window = read_window(path)
    assert [sorted(t) for t in window] == [["café", "😀"]] and window.tids == ["té"]
    write_window(window, tmp_path / "out.jsonl")


@pytest.mark.parametrize(
    "line, words",
    [("[" * 100_000, "JSON nested too deeply"), ('{"items": [' + "7" * 5000 + "]}", "too many digits")],
)
def test_json_python_cannot_hold_names_the_line(tmp_path, line, words):
    path = tmp_path / "in.jsonl"
    path.write_text('{"items": ["a"]}\n' + line + "\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and words in info.value.problem


@pytest.mark.parametrize("key", [b"\x90", b"\x80"], ids=["list", "map"])
def test_msgpack_map_with_an_unhashable_key_names_the_record(tmp_path, key):
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["a"]}) + b"\x81" + key + b"\x01")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and "map key is a list or a map" in info.value.problem


@pytest.mark.parametrize(
    "record, words",
    [
        ({"items": [msgpack.ExtType(5, b"secret")]}, "item 0 is a msgpack extension"),
        ({"items": msgpack.ExtType(5, b"secret")}, "'items' is a msgpack extension"),
        ({"tid": msgpack.ExtType(5, b"secret"), "items": []}, "'tid' is a msgpack extension"),
        (msgpack.ExtType(5, b"secret"), "record is a msgpack extension"),
        ({"items": ["a", b"secret"]}, "item 1 is binary data"),
        ({"subject": b"secret", "items": []}, "'subject' is binary data"),
    ],
)
def test_msgpack_extension_values_are_named_as_such(tmp_path, record, words):
    """msgpack's ExtType is a tuple, which was reported as a list (or taken for one); binary data
    is named by its kind too, its bytes unshown."""
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb(record))
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 1 and words in info.value.problem and "secret" not in str(info.value)


@pytest.mark.parametrize(
    "name, content",
    [("in.dat", b"HIV a\nb\n"), ("in.jsonl", b'{"items": ["HIV", "a"]}\n{"items": ["b"]}\n')],
)
def test_a_leading_byte_order_mark_is_not_part_of_the_first_label(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(BOM + content)
    assert [sorted(t) for t in read_window(path)] == [["HIV", "a"], ["b"]]


def test_a_byte_order_mark_does_not_hide_a_sensitive_item(tmp_path):
    """With the mark kept, "HIV" in line 1 was an unknown public item and released as it was."""
    content = FIGURE_1.replace("a c d f g Diabetes", "HIV c d f g", 1)
    plain, marked = tmp_path / "plain.dat", tmp_path / "marked.dat"
    plain.write_text(content)
    marked.write_bytes(BOM + content.encode())
    expected, got = tmp_path / "expected.dat", tmp_path / "got.dat"
    assert anonymize(tmp_path, plain, expected).exit_code == 0
    result = anonymize(tmp_path, marked, got)
    assert result.exit_code == 0, result.output
    assert got.read_bytes() == expected.read_bytes()
    assert "\ufeff" not in got.read_text()


def test_a_label_with_whitespace_at_its_ends_is_refused(tmp_path):
    # Regression (QA): an item list is trimmed line by line, so it could never name "S ": that
    # item was released as public next to a protected "S", with only a note. Inner blanks stay.
    path = tmp_path / "in.jsonl"
    path.write_text('{"items": ["a", "New York"]}\n{"items": ["a", "S "]}\n')
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and "item 1 begins or ends with whitespace" in info.value.problem


def test_a_label_holding_a_nul_is_refused_in_records_as_in_text_files(tmp_path):
    # QA as a CLI user: JSONL took "x\u0000y", a label no item list can name (a NUL is refused
    # there) and no FIMI release can carry; the fast path of short labels took it too
    path = tmp_path / "in.jsonl"
    path.write_text('{"items": ["a"]}\n{"items": ["x\\u0000y", "b"]}\n')
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and info.value.problem == "item 0 holds a NUL"
    packed = tmp_path / "in.msgpack"
    packed.write_bytes(msgpack.packb({"items": ["a" * 600, "b\0" * 300]}))  # past the fast path's length
    with pytest.raises(InputError, match="item 1 holds a NUL"):
        read_window(packed)
    packed.write_bytes(msgpack.packb({"items": [7, "\0b"]}))  # an integer takes it off the fast path too
    with pytest.raises(InputError, match="item 1 holds a NUL"):
        read_window(packed)


@pytest.mark.parametrize("name", ["people.csv", "people.dat", "people"])
def test_a_csv_file_read_as_fimi_is_refused(tmp_path, name):
    # QA as a CLI user: each row was one item, and kanonymity --fanout released hierarchy nodes
    # named after whole rows (alice,flu,beer..bob,hiv,milk)
    path = tmp_path / name
    path.write_text("alice,flu,beer\nbob,hiv,milk\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 1 and "an item of this line holds a comma, as in a CSV file" in info.value.problem
    assert "alice" not in str(info.value)
    assert list(read_window(path, "fimi")) == [["alice,flu,beer"], ["bob,hiv,milk"]]  # asked for


def test_a_release_is_not_refused_for_a_comma_and_each_refusal_names_its_files_option(tmp_path):
    # QA re-check: anonymize wrote a release whose first label held a comma (a..a,c, the input's
    # comma being on line 2) and verify refused it, naming --format where RELEASE's option is
    # --release-format; a benchmark named --format, which it lacks; a JSONL line after blank lines
    # was placed on line 1
    release = tmp_path / "release.dat"
    release.write_text("a..a,c\nb\n")
    assert list(read_window(release, release=True)) == [["a..a,c"], ["b"]]
    with pytest.raises(InputError, match=r"\(--release-format fimi reads such items"):
        read_window(release, format_option="--release-format")
    with pytest.raises(InputError, match=r"\(this command reads FIMI only: replace the commas with blanks\)"):
        read_window(release, format_option=None)
    records = tmp_path / "records.dat"
    records.write_text('\n\n{"items": ["a"]}\n')
    for release_too in (False, True):
        with pytest.raises(InputError) as info:
            read_window(records, format_option="--release-format", release=release_too)
        assert info.value.line == 3 and info.value.problem.endswith("give --release-format jsonl (or --release-format fimi)")
    data, out = tmp_path / "in.dat", tmp_path / "out.dat"
    data.write_text("a\na,c\nb\nc\n")
    km = ["-m", "kanonymity", "-P", "k=2", "--fanout", "2"]
    assert run("anonymize", data, "-o", out, *km).exit_code == 0 and out.read_text().startswith("a..a,c\n")
    assert run("verify", data, out, *km).exit_code == 0


def test_msgpack_named_as_fimi_is_refused_naming_its_format(tmp_path):
    # QA re-check: it was "not valid UTF-8", with no hint of --format msgpack
    path = tmp_path / "records.dat"
    path.write_bytes(msgpack.packb({"tid": 1, "items": ["a", "b"]}))
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 1 and info.value.problem == ("read as FIMI, as its name says, but it starts like "
                                                           "msgpack: give --format msgpack")
    assert list(read_window(path, "msgpack")) == [["a", "b"]]


@pytest.mark.parametrize("value", [{}, [None] * 15])
def test_msgpack_of_any_small_map_or_array_named_as_fimi_is_refused_naming_its_format(tmp_path, value):
    # 0x80-0x8F open a map of up to 15 entries, 0x90-0x9F an array of up to 15: the bounds included
    path = tmp_path / "records.dat"
    path.write_bytes(msgpack.packb(value))
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 1 and info.value.problem.endswith("but it starts like msgpack: give --format msgpack")


def test_jsonl_named_as_fimi_is_refused(tmp_path):
    # QA as a CLI user: the check was made only when no suffix named a format
    path = tmp_path / "records.dat"
    path.write_text('{"tid": 1, "items": ["a", "b"]}\n')
    with pytest.raises(InputError, match="read as FIMI, as its name says, but it starts like JSONL"):
        read_window(path)


def test_a_first_label_that_begins_with_a_byte_order_mark_reads_back(tmp_path):
    # QA as a CLI user: written bare on line 1, it was read back as a byte-order mark and a
    # shorter label, and verify failed the release (uncovered-item, foreign-label)
    original = tmp_path / "in.dat"
    original.write_bytes(BOM + BOM + b"1 2\n1 2\n")
    window = read_window(original)
    assert [sorted(labels) for labels in window] == [["2", "\ufeff1"], ["1", "2"]]
    for name in ("out.dat", "out.dat.gz"):
        write_window(window, tmp_path / name)
        assert list(read_window(tmp_path / name)) == list(window)


@pytest.mark.parametrize(
    "lines, line, words",
    [
        (['{"tid": 1, "items": ["a"]}', '{"items": ["b"]}'], 2, "the tid it is given (its position) repeats the tid of line 1"),
        (['{"tid": "x", "items": ["a"]}', "", '{"tid": "x", "items": ["b"]}'], 3, "the tid repeats the tid of line 1"),
    ],
    ids=["position-collides", "explicit-repeat"],
)
def test_a_repeated_tid_names_both_lines(tmp_path, lines, line, words):
    # Regression (review): a record without a tid was given its position, which could be another
    # record's tid, and the release then carried two transactions with tid 1.
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == line and info.value.problem == words
    assert read_window(_written(tmp_path, ['{"tid": 5, "items": ["a"]}', '{"items": ["b"]}'])).tids == [5, 1]


def _written(tmp_path, lines):
    path = tmp_path / "ok.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("in.jsonl", b'{"items": ["a"]}\n{"items": ["b", "c"], "items": ["d"]}\n', "an object repeats a key"),
        ("in.msgpack", msgpack.packb({"items": ["a"]}) + b"\x82\xa5items\x91\xa1b\xa5items\x91\xa1c",
         "a map repeats a key"),
    ],
    ids=["jsonl", "msgpack"],
)
def test_a_repeated_key_is_refused_not_dropped(tmp_path, name, content, words):
    # Regression (QA): the last of a repeated key won, and the other list was dropped in silence
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and info.value.problem == words


def test_map_pairs_may_come_as_a_generator():
    # Regression: msgpack's pure-Python unpacker before 1.0.4 (the one pip installs for a Python
    # newer than the release's wheels) passes a map's pairs as a generator, and every map was
    # refused as "a map key is a list or a map"
    assert unique_map((k, v) for k, v in [("items", ["a"]), ("tid", 1)]) == {"items": ["a"], "tid": 1}
    with pytest.raises(RepeatedKey):
        unique_map((k, v) for k, v in [("tid", 1), ("tid", 2)])


def test_a_fimi_label_of_exactly_the_longest_length_is_read(tmp_path):
    path = tmp_path / "in.dat"
    path.write_text("a b\n" + "c " + "7" * 1024 + "\n")
    assert [len(label) for label in read_window(path).labels(1)] == [1, 1024]


def test_a_fimi_label_longer_than_a_record_may_hold_is_refused(tmp_path):
    # Regression (QA): FIMI took a label of 2,000 characters and wrote it to a JSONL release that
    # anonymize and verify then refused to read
    path = tmp_path / "in.dat"
    path.write_text("a b\n" + "c " + "7" * 1025 + "\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and "longer than 1024 characters" in info.value.problem
    assert "7777" not in str(info.value)


def test_jsonl_read_as_fimi_for_want_of_a_format_is_refused(tmp_path):
    # regression (QA as a new user): JSONL on standard input was read as FIMI, items like
    # '{"tid":', and anonymized with exit 0
    lines = '{"tid": 1, "items": ["a", "b"]}\n{"tid": 2, "items": ["a"]}\n'
    sensitive = _write(tmp_path / "sensitive.txt", "b\n")
    result = run("anonymize", "-", "-o", tmp_path / "out.dat", *MODEL, "--sensitive", sensitive, input=lines)
    assert result.exit_code == 2
    assert "standard input:1: read as FIMI, for want of a format, but it starts like JSONL" in result.output
    assert read_window(_write(tmp_path / "records", lines), "fimi").vocab.labels[0] == '{"tid":'  # asked for
    assert list(read_window(_write(tmp_path / "records.jsonl", lines))) == [["a", "b"], ["a"]]
    # QA re-check: a blank after the brace, or a byte-order mark, slipped through
    for start in ('{ "tid": 1, "items": ["a"]}\n', '\ufeff{"items": ["a"]}\n'):
        result = run("anonymize", "-", "-o", tmp_path / "out.dat", *MODEL, "--sensitive", sensitive, input=start)
        assert result.exit_code == 2 and "starts like JSONL" in result.output


def _write(path, text):
    path.write_text(text)
    return path


def test_a_tid_msgpack_cannot_hold_is_refused_when_read(tmp_path):
    # QA: JSONL took tid 2**64, and writing the release as msgpack ended in a traceback
    data = tmp_path / "t.jsonl"
    data.write_text('{"tid": 1, "items": ["a"]}\n{"tid": 18446744073709551616, "items": ["a"]}\n')
    with pytest.raises(InputError) as refused:
        read_window(data)
    assert str(refused.value) == (f"{data}:2: 'tid' is an integer outside -2**63 to 2**64 - 1, which msgpack cannot "
                                  "hold; give it as a string")
    data.write_text('{"subject": -9223372036854775809, "items": ["a"]}\n')
    with pytest.raises(InputError, match="'subject' is an integer outside"):
        read_window(data)
    data.write_text('{"tid": 18446744073709551615, "items": ["a"]}\n{"tid": -9223372036854775808, "items": ["b"]}\n')
    out = tmp_path / "t.msgpack"
    write_window(read_window(data), out)
    assert read_window(out).tids == [2**64 - 1, -(2**63)]


def test_a_fimi_item_that_ends_one_line_and_starts_the_next_is_no_repeat(tmp_path):
    path = tmp_path / "in.dat"
    path.write_text("a b\nb c\n")
    assert list(read_window(path)) == [["a", "b"], ["b", "c"]]


def test_blank_jsonl_lines_are_skipped_whatever_their_blanks(tmp_path):
    # "blank lines are skipped" (core.formats): a CRLF file's empty line is "\r", others hold blanks
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"items": ["a"]}\r\n\r\n \t\n{"items": ["b"]}\r\n')
    assert list(read_window(path)) == [["a"], ["b"]]


def test_a_truncated_msgpack_record_is_named_by_its_position(tmp_path):
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["a"]}) + msgpack.packb({"items": ["b"]})[:-1])
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (2, "truncated msgpack record")


@pytest.mark.parametrize("joint, line, problem", [
    (b"\n", 2, "a byte-order mark at the start of this line, where only a file's first line may have one: "
               "files joined with cat?"),
    (b"\n\n", 3, "a byte-order mark at the start of this line, where only a file's first line may have one: "
                 "files joined with cat?"),
    # the first file did not end its last line
    (b"", 1, "not valid JSON: a byte-order mark at character 19 of this line"),
])
def test_a_byte_order_mark_inside_a_jsonl_file_is_named(tmp_path, joint, line, problem):
    # QA: two JSONL files, each with a byte-order mark, joined with cat gave "not valid JSON
    # (Expecting value)", which did not say what was there
    path = tmp_path / "in.jsonl"
    path.write_bytes(BOM + b'{"items": ["HIV"]}' + joint + BOM + b'{"items": ["b"]}\n')
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (line, problem)
    assert "HIV" not in str(info.value)


@pytest.mark.parametrize("record, kind", [
    (b"\xdd\xff\xff\xff\xff", "a list"),
    (b"\xdf\xff\xff\xff\xff", "a map"),
    (b"\x81\xa5items\xdd\x10\x00\x00\x00", "a list"),
    # msgpack 1.0 reads this one as "0 exceeds max_ext_len": its length plus one wraps to 0
    (b"\xc9\xff\xff\xff\xff\x05", "an extension"),
])
def test_a_msgpack_length_past_the_end_of_the_file_is_named_in_words(tmp_path, record, kind):
    # QA: a header claiming billions of entries gave "malformed msgpack (ValueError)"
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["HIV"]}) + record)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (2, f"the length of {kind} in this record runs past the end of "
                                                        "the file")


@pytest.mark.parametrize("entries, problem", [
    (40, "the length of a list in this record is over 16 bytes, more than a record may take"),
    (13, "the length of a list in this record runs past the end of the file"),
], ids=["larger-file", "file-of-a-record"])
def test_a_msgpack_length_past_what_a_record_may_take_is_said_to_run_past_the_end_only_where_it_must(
        tmp_path, monkeypatch, entries, problem):
    # in a file larger than a record may be, such a length might end inside it, and the message
    # says what is true then; a file no larger than a record may be holds no entry past that
    # many, so there the length runs past its end (rev65: a mutant taking only smaller files for
    # such passed every test). The limit is made small, so the file need not be 100 MiB
    monkeypatch.setattr(formats, "MSGPACK_RECORD_BYTES", 16)
    path = tmp_path / "in.msgpack"
    path.write_bytes(b"\xdc\x00\x14" + b"\x01" * entries)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (1, problem)


@pytest.mark.parametrize("record, problem", [
    (b"\x81\xa5items\x91\xa3\xff\xfeH", "a string in this record is not valid UTF-8"),
    (b"\x81\xa3\xff\xfeH\x91\xa3HIV", "a string in this record is not valid UTF-8"),
    (b"\x91" * 5000 + b"\xa3HIV", "msgpack nested too deeply"),
    (b"\x81\xa5items\x91\xc1", "not msgpack: byte 0xc1, which msgpack reserves"),
    (b"\x81\xa5items\x91\xd5\xff\x00\x01", "a msgpack timestamp of a length msgpack does not define (4, 8 or 12 "
                                           "bytes)"),
    # timestamp 64 and 96 with 1,000,000,000 nanoseconds: the class alone, "malformed msgpack (ValueError)", before
    (b"\x81\xa5items\x91\xd7\xff\xee\x6b\x28\x00\x00\x00\x00\x05",
     "a msgpack timestamp whose nanoseconds are over 999,999,999"),
    (b"\x81\xa5items\x91\xc7\x0c\xff\x3b\x9a\xca\x00" + b"\x00" * 7 + b"\x05",
     "a msgpack timestamp whose nanoseconds are over 999,999,999"),
], ids=["item", "key", "nested", "reserved", "timestamp", "nanoseconds-64", "nanoseconds-96"])
def test_a_msgpack_record_msgpack_refuses_is_named_in_words(tmp_path, record, problem):
    # QA (rev65, malformed files through anonymize and verify): these gave "malformed msgpack"
    # and the class of msgpack's error (UnicodeDecodeError, StackError, FormatError, ValueError),
    # where a JSONL file's are "not valid UTF-8" and "JSON nested too deeply"
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["HIV"]}) + record)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (2, problem)
    assert "HIV" not in str(info.value)


def test_a_second_byte_order_mark_at_the_start_of_a_jsonl_file_is_named_as_such(tmp_path):
    # rev65: an empty file an editor saved with a byte-order mark, joined with cat before a JSONL
    # file that has one, gave "a byte-order mark at the start of this line, where only a file's
    # first line may have one" on line 1, the first line
    path = tmp_path / "in.jsonl"
    path.write_bytes(BOM + BOM + b'{"items": ["HIV"]}\n')
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (1, "a second byte-order mark at the start of the file: files "
                                                        "joined with cat?")


@pytest.mark.parametrize("entry", [b"\xa5items\x91\xd9\x41" + b"x" * 65, b"\xa5items\x91\xc4\x41" + b"x" * 65,
                                   b"\xa4note\xc7\x41\x05" + b"x" * 65], ids=["string", "binary", "extension"])
def test_a_msgpack_string_longer_than_the_unpacker_holds_is_named_in_words(tmp_path, monkeypatch, entry):
    # review: one label of 101 MiB (105,906,232-byte file) gave "malformed msgpack (BufferFull)"
    # through anonymize and verify; msgpack holds a string, binary data or an extension whole, a
    # list or a map entry by entry (a record of 108,888,926 bytes in 12,000,000 labels was read).
    # The limit made small, so the file need not be 100 MiB.
    monkeypatch.setattr(formats, "MSGPACK_RECORD_BYTES", 64)
    (tmp_path / "private.txt").write_text(PRIVATE)
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["HIV"]}) + b"\x81" + entry + msgpack.packb({"items": ["b"]}))
    problem = ("a string, binary data or an extension in this record is over 64 bytes, more than msgpack reads of "
               "one entry")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (2, problem)
    for command in (["anonymize", path, "-o", tmp_path / "out.msgpack"], ["verify", path, path]):
        result = run(*command, *MODEL, "--sensitive", tmp_path / "private.txt")
        assert (result.exit_code, result.output) == (2, f"setveil: error: {path}:2: {problem}\n"), command
    # one of 64 bytes is held whole
    path.write_bytes(msgpack.packb({"items": ["HIV"]}) + msgpack.packb({"items": ["x" * 64]}))
    assert list(read_window(path)) == [["HIV"], ["x" * 64]]


@pytest.mark.parametrize("blanks", [b" ", b"\t", b" \t "])
def test_a_jsonl_byte_order_mark_after_blanks_is_at_the_start_of_its_line(tmp_path, blanks):
    # review: blanks before the mark are no character of the record (as a blank line is none),
    # so it is still "at the start of this line"; a _json_error that did not strip them passed
    # every test, saying "a byte-order mark at character 2 of this line"
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"items": ["HIV"]}\n' + blanks + BOM + b'{"items": ["b"]}\n')
    with pytest.raises(InputError) as info:
        read_window(path)
    assert (info.value.line, info.value.problem) == (2, "a byte-order mark at the start of this line, where only a "
                                                        "file's first line may have one: files joined with cat?")
    assert "HIV" not in str(info.value)
