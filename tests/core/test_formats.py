import gzip
import json

import msgpack
import pytest

from setveil.core.errors import InputError
from setveil.core.formats import read_window, read_window_and_subjects, write_window
from setveil.core.window import Window


def test_fimi_round_trip_keeps_empty_transactions(tmp_path):
    source = tmp_path / "in.dat"
    source.write_text("1 2 3 \n\n4\n")
    window = read_window(source)
    assert [sorted(r) for r in window] == [["1", "2", "3"], [], ["4"]]
    out = tmp_path / "out.dat"
    write_window(window, out)
    assert out.read_text() == "1 2 3\n\n4\n"


def test_fimi_keeps_trailing_empty_transactions(tmp_path):
    # only the newline that ends the last line is not a transaction; each blank line before it is one
    source = tmp_path / "in.dat"
    source.write_text("a\n\n\n")
    window = read_window(source)
    assert [list(r) for r in window] == [["a"], [], []]
    out = tmp_path / "out.dat"
    write_window(window, out)
    assert out.read_text() == "a\n\n\n"


def test_fimi_writer_ends_every_line_past_its_chunk_of_65536(tmp_path):
    rows = [[str(i % 7)] for i in range(70_000)]
    out = tmp_path / "big.dat"
    write_window(Window.from_transactions(rows), out)
    assert out.read_text().split("\n")[:-1] == [r[0] for r in rows]
    assert [list(r) for r in read_window(out)] == rows


@pytest.mark.parametrize("name", ["x.jsonl", "x.msgpack", "x.jsonl.gz", "x.dat.gz"])
def test_round_trips(tmp_path, name):
    window = Window.from_transactions([["a", "b"], [], ["c"]], tids=[10, 11, "t12"])
    path = tmp_path / name
    write_window(window, path)
    back = read_window(path)
    assert [sorted(r) for r in back] == [["a", "b"], [], ["c"]]
    if "dat" not in name:
        assert back.tids == [10, 11, "t12"]


@pytest.mark.parametrize("name", ["X.JSONL.GZ", "x.jsonl.Gz", "X.MSGPACK"])
def test_suffixes_name_the_format_and_gzip_in_any_case(tmp_path, name):
    # Regression (mutation pass): the format's suffix was read in any case but ".gz" only in lower
    # case, so X.JSONL.GZ was written as plain FIMI
    path = tmp_path / name
    write_window(Window.from_transactions([["a", "b"]], tids=["t0"]), path)
    data = path.read_bytes()
    assert data.startswith(b"\x1f\x8b") == name.lower().endswith(".gz")
    assert read_window(path).tids == ["t0"]


def test_a_gzipped_release_holds_no_time_so_the_same_release_is_the_same_bytes(tmp_path):
    path = tmp_path / "x.dat.gz"
    write_window(Window.from_transactions([["a", "b"]]), path)
    assert path.read_bytes()[4:8] == bytes(4)  # gzip's MTIME field (RFC 1952)


def test_integer_items_are_labels_by_their_text(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"items": [1, "2"]}\n{"tid": 7, "items": ["1"]}\n')
    window = read_window(path)
    assert [sorted(r) for r in window] == [["1", "2"], ["1"]]
    assert window.tids == [0, 7]


def test_duplicate_item_names_file_and_line_but_not_the_item(tmp_path):
    path = tmp_path / "in.dat"
    path.write_text("a b\nsecret c secret\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value).startswith(f"{path}:2: ")
    assert "secret" not in str(info.value)


@pytest.mark.parametrize(
    "content, line, words",
    [
        ('{"items": ["a"]}\n{"items": "ab"}\n', 2, "expected a list"),
        ('{"items": ["a"]}\nnot json\n', 2, "not valid JSON"),
        ('{"tid": 1}\n', 1, "no 'items'"),
        ('{"items": [["a"]]}\n', 1, "item 0 is a list"),
        ('{"items": [true]}\n', 1, "item 0 is a boolean"),
        ('[1, 2]\n', 1, "expected a map"),
        ('{"items": ["a"], "ts": true}\n', 1, "'ts' is a boolean, expected a number"),
        # JSON writes an integer of any length, and one past a float's range is no finite time
        ('{"items": ["a"], "ts": 1' + "0" * 400 + '}\n', 1, "'ts' is not a finite number"),
    ],
)
def test_jsonl_errors(tmp_path, content, line, words):
    path = tmp_path / "in.jsonl"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == line and words in info.value.problem


def test_msgpack_errors_name_the_record(tmp_path):
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["a"]}) + msgpack.packb({"items": 3}))
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2
    path.write_bytes(msgpack.packb({"items": ["a"]})[:-1])
    with pytest.raises(InputError, match="truncated"):
        read_window(path)


def test_empty_and_unreadable_inputs(tmp_path):
    empty = tmp_path / "empty.dat"
    empty.write_text("")
    with pytest.raises(InputError, match="no transactions"):
        read_window(empty)
    with pytest.raises(InputError, match="cannot read"):
        read_window(tmp_path / "missing.dat")
    bad = tmp_path / "bad.dat"
    bad.write_bytes(b"a b\n\xff\n")
    with pytest.raises(InputError) as info:
        read_window(bad)
    assert info.value.line == 2
    broken = tmp_path / "broken.dat.gz"
    broken.write_bytes(gzip.compress(b"a b\n")[:-4])
    with pytest.raises(InputError):
        read_window(broken)


def test_failed_write_leaves_nothing(tmp_path):
    window = Window.from_transactions([["a b"]])
    out = tmp_path / "out.dat"
    with pytest.raises(InputError, match="whitespace"):
        write_window(window, out)
    assert list(tmp_path.iterdir()) == []


def test_jsonl_output_carries_tids(tmp_path):
    window = Window.from_transactions([["a"], []])
    out = tmp_path / "out.jsonl"
    write_window(window, out)
    assert [json.loads(x) for x in out.read_text().splitlines()] == [
        {"tid": 0, "items": ["a"]},
        {"tid": 1, "items": []},
    ]


def test_output_in_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="cannot write"):
        write_window(Window.from_transactions([["a"]]), tmp_path / "no" / "out.dat")


def test_release_gets_ordinary_permissions(tmp_path):
    import os
    out = tmp_path / "out.dat"
    write_window(Window.from_transactions([["a"]]), out)
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_a_records_subject_is_read_for_the_producers_that_send_it(tmp_path, fmt):
    rows = [{"tid": 5, "subject": "p1", "items": ["a"]}, {"items": ["b"]}, {"subject": 7, "items": ["a", "c"]}]
    path = tmp_path / f"in.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        path.write_bytes(b"".join(msgpack.packb(row) for row in rows))
    window, subjects, compression = read_window_and_subjects(path)
    assert subjects == ["p1", None, 7] and window.tids == [5, 1, 2] and compression is None


@pytest.mark.parametrize("subject, kind", [({"name": "p1"}, "a map"), (["p1"], "a list"), (1.0, "a float"),
                                           (msgpack.Timestamp(1, 0), "a Timestamp")])
def test_a_subject_neither_a_string_nor_an_integer_is_refused_naming_its_kind(tmp_path, subject, kind):
    # docs/cli.md's Subjects: refused whether or not subjects are merged, the value unshown
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb({"items": ["a"]}) + msgpack.packb({"subject": subject, "items": ["b"]}))
    with pytest.raises(InputError) as info:
        read_window_and_subjects(path)
    assert (info.value.line, info.value.problem) == (2, f"'subject' is {kind}, expected a string or an integer")
    assert "p1" not in str(info.value)


def test_a_subject_is_read_as_given_untrimmed_and_unnormalised(tmp_path):
    # docs/batch-format.md: subjects compare exactly, so " 1" and "1" are two, as NFC and NFD are
    subjects = [" 1", "1", "Jos\u00e9", "Jose\u0301", ""]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"subject": who, "items": ["a"]}) + "\n" for who in subjects))
    assert read_window_and_subjects(path)[1] == subjects


def test_fimi_has_no_subjects(tmp_path):
    path = tmp_path / "in.dat"
    path.write_text("a b\n\nc\n")
    assert read_window_and_subjects(path)[1] == [None, None, None]


@pytest.mark.parametrize("name", ["out.dat", "out.dat.gz"])
def test_a_label_that_begins_with_u_feff_on_a_later_line_reads_back(tmp_path, name):
    # review: a FIMI line other than the first that starts with a byte-order mark (files joined
    # with cat) makes a label such as '\ufeffHIV', where JSONL refuses the mark. FIMI cannot refuse
    # it: a JSONL or msgpack input may hold such a label, and the FIMI writer writes it bare at the
    # start of its line, as it must be read back (only on the first line is a mark put before it)
    records = tmp_path / "in.jsonl"
    records.write_text('{"items": ["a"]}\n{"items": ["\\ufeffHIV", "b"]}\n', encoding="utf-8")
    window = read_window(records)
    write_window(window, tmp_path / name)
    assert list(read_window(tmp_path / name)) == [["a"], ["\ufeffHIV", "b"]]
    joined = tmp_path / "joined.dat"
    joined.write_bytes(b"\xef\xbb\xbfa\n" + b"\xef\xbb\xbfHIV b\n")
    assert list(read_window(joined)) == list(window)
