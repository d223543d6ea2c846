"""Regressions from a QA pass on reading inputs: line ends, FIMI's separators, gzip data under any
name, and the wording of record errors (core/formats.py, core/labeltext.py, core/records.py)."""

import gzip
import json

import pytest

from setveil.core.errors import InputError
from setveil.core.formats import read_window, write_window
from setveil.core.hierarchy import Hierarchy
from setveil.core.labeltext import field_text, label_text
from setveil.core.schema import read_label_file
from setveil.core.window import Window

from .figure1 import FIGURE_1, MODEL, run


@pytest.mark.parametrize("suffix", [".dat", ".jsonl"])
def test_a_lone_carriage_return_is_refused_at_its_line(tmp_path, suffix):
    # 'p1 q1 Diabetes\rp2 q2 HIV' was one transaction of six items, exit 0
    rows = ["p1 q1 Diabetes", "p2 q2 HIV", "p1 q1 HIV", "p2 q2 Diabetes"]
    if suffix == ".jsonl":
        rows = [json.dumps({"items": row.split()}) for row in rows]
    path = tmp_path / f"cr{suffix}"
    path.write_bytes(f"{rows[0]}\n{rows[1]}\r{rows[2]}\n{rows[3]}\n".encode())
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.line == 2 and info.value.problem.startswith("a carriage return inside a line")
    path.write_bytes("\r\n".join(rows).encode() + b"\r\n")  # CRLF keeps working
    assert [set(items) for items in read_window(path)] == [set(row.split()) for row in
                                                            ["p1 q1 Diabetes", "p2 q2 HIV", "p1 q1 HIV", "p2 q2 Diabetes"]]


def test_utf16_without_a_byte_order_mark_is_refused_at_its_first_nul(tmp_path):
    # Regression (QA): it decoded as UTF-8 with a NUL after each letter, so `--sensitive` matched
    # nothing and the diagnoses were released as they were, exit 0
    data, listed = tmp_path / "u16.dat", tmp_path / "private.txt"
    data.write_bytes("a Diabetes\nb HIV\n".encode("utf-16-le"))
    listed.write_bytes("Diabetes\nHIV\n".encode("utf-16-le"))
    for read in (read_window, read_label_file):
        with pytest.raises(InputError) as info:
            read(data if read is read_window else listed)
        assert info.value.line == 1 and "a NUL character" in info.value.problem and "UTF-16" in info.value.problem
    second = tmp_path / "nul.jsonl"
    second.write_bytes(b'{"items": ["a"]}\n{"items": ["b"]}\0\n')
    with pytest.raises(InputError) as info:
        read_window(second)
    assert info.value.line == 2


def test_label_files_refuse_a_lone_carriage_return_too(tmp_path):
    listed, tree = tmp_path / "private.txt", tmp_path / "h.csv"
    listed.write_bytes(b"Diabetes\r\nHIV\rHepatitis\n")
    with pytest.raises(InputError) as info:
        read_label_file(listed)
    assert info.value.line == 2 and info.value.problem.startswith("a carriage return inside a line")
    listed.write_bytes(b"Diabetes\r\nHIV\r\n")
    assert read_label_file(listed) == {"Diabetes", "HIV"}
    tree.write_bytes(b"a,ALL\r\nb,ALL\rc,ALL\n")
    with pytest.raises(InputError, match="carriage return") as info:
        Hierarchy.read(tree)
    assert info.value.line == 2


SEPARATORS = [" ", "\t", "\v", "\f", "\x1c", "\x1f", "\x85", "\u00a0", "\u2028", "\u2029", "\u3000", "\u2007"]


def test_a_label_holding_a_nul_is_written_as_a_json_string_in_item_lists_and_refused_in_fimi(tmp_path):
    # a NUL is refused in every text file read (UTF-16 read as UTF-8), so none may be written raw;
    # records refuse it too (QA as a CLI user), so only a window a plugin builds can hold one
    records = tmp_path / "in.jsonl"
    records.write_text(json.dumps({"items": ["a\0b"]}) + "\n")
    with pytest.raises(InputError, match="item 0 holds a NUL"):
        read_window(records)
    labelled = Window.from_transactions([["a\0b"]])
    with pytest.raises(InputError, match="a NUL, which FIMI cannot carry"):
        write_window(labelled, tmp_path / "never.dat")
    assert label_text("a\0b") == '"a\\u0000b"' and field_text("a\0b") == '"a\\u0000b"'
    listed = tmp_path / "items.txt"
    listed.write_text(label_text("a\0b") + "\n")
    assert read_label_file(listed) == {"a\0b"}


@pytest.mark.parametrize("separator", SEPARATORS)
def test_fimi_reader_and_writer_share_one_separator(tmp_path, separator):
    data, again = tmp_path / "in.dat", tmp_path / "out.dat"
    data.write_text(f"a{separator}b c\n")
    window = read_window(data)
    assert list(window) == [["a", "b", "c"]]
    write_window(window, again)
    assert list(read_window(again)) == [["a", "b", "c"]]
    # the same label from JSONL cannot be written as FIMI, which would read it back as two
    records = tmp_path / "in.jsonl"
    records.write_text(json.dumps({"items": ["x", f"a{separator}b"]}) + "\n" + json.dumps({"items": ["c"]}) + "\n")
    labelled = read_window(records)
    with pytest.raises(InputError, match="whitespace or a NUL, which FIMI cannot carry") as info:
        write_window(labelled, tmp_path / "never.dat")
    # the file was never written, so the transaction is named in the problem, not as a line of it
    assert info.value.line is None and "nothing written: transaction 0 (counted from 0) would hold" in info.value.problem
    assert not (tmp_path / "never.dat").exists()
    write_window(labelled, tmp_path / "out.jsonl")
    assert list(read_window(tmp_path / "out.jsonl")) == list(labelled)


def test_gzip_data_reads_under_any_name_and_on_stdin(tmp_path):
    packed = gzip.compress(FIGURE_1.encode())
    (tmp_path / "fig1.dat").write_bytes(packed)
    (tmp_path / "private.txt").write_text("Diabetes\nHepatitis\nHIV\n")
    assert [set(items) for items in read_window(tmp_path / "fig1.dat")] == [set(row.split()) for row in FIGURE_1.splitlines()]
    result = run("anonymize", "-", "-o", "-", *MODEL, "--sensitive", tmp_path / "private.txt", input=packed)
    assert result.exit_code == 0 and result.output.splitlines()[2] == "f Hepatitis"
    (tmp_path / "cut.dat").write_bytes(packed[:20])
    with pytest.raises(InputError, match="gzip data ends early"):
        read_window(tmp_path / "cut.dat")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_refused_as_utf16(tmp_path, encoding):
    # regression (QA, hostile input files): refused as "not valid UTF-8", where the same file without
    # its mark is asked "is it UTF-16?"; PowerShell 5's `>` writes UTF-16 with the mark
    text = "a Diabetes\nb HIV\n"
    marked = ("\ufeff" + text).encode(encoding) if encoding.endswith("be") else text.encode(encoding)
    data, listed = tmp_path / "u16.dat", tmp_path / "private.txt"
    data.write_bytes(marked)
    listed.write_bytes(marked)
    for read in (read_window, read_label_file):
        with pytest.raises(InputError) as info:
            read(data if read is read_window else listed)
        assert (info.value.line, info.value.problem) == (1, "UTF-16 (it starts with UTF-16's byte-order mark): "
                                                            "setveil reads UTF-8")


def test_a_gzipped_label_file_is_read_as_the_data_is(tmp_path):
    # a gzipped item list, hierarchy or pattern file was refused (QA, hostile input files), while
    # an output named .gz was plain text; now every output named .gz is gzipped, so what reads it
    # back reads gzip under any name as the data does (privacy-auditor review)
    listed = tmp_path / "private.txt.gz"
    listed.write_bytes(gzip.compress(b"Diabetes\nHepatitis\nHIV\n"))
    hierarchy = tmp_path / "h.csv"  # no .gz: gzip is known by its first bytes
    hierarchy.write_bytes(gzip.compress(b"Diabetes,illness\nHIV,illness\n"))
    assert read_label_file(listed) == {"Diabetes", "Hepatitis", "HIV"}
    assert sorted(Hierarchy.read(hierarchy).edges()) == [("Diabetes", "illness"), ("HIV", "illness")]
    (tmp_path / "fig1.dat").write_text(FIGURE_1)
    result = run("anonymize", tmp_path / "fig1.dat", "-o", tmp_path / "o.dat", *MODEL, "--sensitive", listed)
    assert result.exit_code == 0, result.output
    damaged = tmp_path / "public.txt"
    damaged.write_bytes(gzip.compress(b"a\n")[:-4])
    with pytest.raises(InputError) as info:
        read_label_file(damaged)
    assert str(info.value) == f"{damaged}: cannot read: gzip data ends early"


def test_a_quoted_label_with_a_lone_surrogate_is_refused_at_its_line(tmp_path):
    # regression (QA, hostile input files): "\ud800" read as a label; a hierarchy node so named
    # made anonymize --output-format jsonl end in a UnicodeEncodeError traceback
    data, tree, listed = tmp_path / "d.dat", tmp_path / "h.csv", tmp_path / "private.txt"
    data.write_text("a b\na c\nb c\n")
    tree.write_text("".join(f'{item},"P\\ud800"\n' for item in "abc"))
    listed.write_text('a\n"\\udc00x"\n')
    words = "label 2 is not valid Unicode text (a lone surrogate escape)"
    with pytest.raises(InputError, match=r"label 2 is not valid Unicode") as info:
        Hierarchy.read(tree)
    assert info.value.line == 1
    with pytest.raises(InputError, match=r"label 1 is not valid Unicode") as info:
        read_label_file(listed)
    assert info.value.line == 2
    out = tmp_path / "o.jsonl"
    result = run("anonymize", data, "-o", out, "--model", "kanonymity", "-P", "k=3", "--hierarchy", tree)
    assert result.exit_code == 2 and result.output == f"setveil: error: {tree}:1: {words}\n" and not out.exists()


@pytest.mark.parametrize(
    "record, problem",
    [
        ("5", "record is an integer, expected a map"),
        ('"x"', "record is a string, expected a map"),
        ("null", "record is null, expected a map"),
        ('{"items": 1.5}', "'items' is a float, expected a list"),
        ('{"items": [], "tid": []}', "'tid' is a list, expected a string or an integer"),
        ('{"items": [{}]}', "item 0 is a map, expected a string or an integer"),
    ],
)
def test_record_errors_read_as_english(tmp_path, record, problem):
    path = tmp_path / "in.jsonl"
    path.write_text(record + "\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert info.value.problem == problem
