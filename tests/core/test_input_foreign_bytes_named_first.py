"""Data that starts as no format setveil reads can (UTF-16's byte-order mark, another compression's
magic number, gzip within gzip) is named so on line 1 whatever the format read, given or guessed,
and before the reader guesses anything from its bytes: a comma before the first newline of xz,
bzip2 or twice-gzipped data made it "a CSV file" (a docs audit: 3 of 4 compressions of retail's first
2,000 lines), and msgpack read "record is an integer" of xz's first byte."""

import gzip

import pytest

from .figure1 import run

#: each start, then text whose first line holds a comma, as compressed bytes often do
STARTS = {
    "utf-16": (b"\xff\xfe", "UTF-16 (it starts with UTF-16's byte-order mark): setveil reads UTF-8"),
    "xz": (b"\xfd7zXZ\x00\x00\x04", "xz data (it starts with xz's magic number): setveil reads gzip or "
                                    "uncompressed data, so decompress it first"),
    "bzip2": (b"BZh91AY&SY", "bzip2 data (it starts with bzip2's magic number): setveil reads gzip or "
                             "uncompressed data, so decompress it first"),
    "zip": (b"PK\x03\x04", "zip data (it starts with zip's magic number): setveil reads gzip or "
                           "uncompressed data, so decompress it first"),
}
TAIL = b"\x80a,b c\nb c d\n"
MODEL = ("-m", "kanonymity", "--fanout", "4", "-P", "k=1")


@pytest.mark.parametrize("fmt", [None, "fimi", "jsonl", "msgpack"])
@pytest.mark.parametrize("name", STARTS)
def test_a_foreign_start_is_named_before_any_format(tmp_path, name, fmt):
    start, message = STARTS[name]
    path = tmp_path / "in.dat"
    path.write_bytes(start + TAIL)
    given = () if fmt is None else ("--format", fmt)
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *given, *MODEL)
    assert (result.exit_code, result.output) == (2, f"setveil: error: {path}:1: {message}\n")


def test_gzip_within_gzip_with_a_comma_is_named(tmp_path):
    path = tmp_path / "in.dat.gz"
    path.write_bytes(gzip.compress(b"\x1f\x8b\x08" + TAIL, mtime=0))
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *MODEL)
    assert (result.exit_code, result.output) == (
        2, f"setveil: error: {path}:1: gzip data within gzip data (compressed twice?): setveil unzips it once\n")


def test_verify_names_a_foreign_release(tmp_path):
    (tmp_path / "in.dat").write_bytes(b"a b\nb c\n")
    release = tmp_path / "out.dat"
    release.write_bytes(STARTS["xz"][0] + TAIL)
    result = run("verify", tmp_path / "in.dat", release, *MODEL)
    assert (result.exit_code, result.output) == (2, f"setveil: error: {release}:1: {STARTS['xz'][1]}\n")
