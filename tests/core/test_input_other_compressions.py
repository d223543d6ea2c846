"""Data compressed in a way setveil does not read (zstd, xz, bzip2, zip), or gzipped twice, is
named as such on line 1, as UTF-16 is, where it was "not valid UTF-8" with no word of why: the
data, an item list and a hierarchy alike, since they share the reader's words."""

import bz2
import gzip
import io
import lzma
import zipfile

import pytest

from .figure1 import run

TEXT = b"a b c\nb c d\na c d\na b d\n"
MODEL = ("-m", "kanonymity", "--fanout", "4", "-P", "k=1")


def zipped(data: bytes) -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        handle.writestr("in.dat", data)
    return archive.getvalue()


COMPRESSED = {
    # a zstd frame header (magic number, descriptor, window) and what follows it: the standard
    # library writes no zstd
    "zstd": b"\x28\xb5\x2f\xfd\x24\x19\x00\x00\xe8\xa1" + TEXT,
    "xz": lzma.compress(TEXT),
    "bzip2": bz2.compress(TEXT),
    "zip": zipped(TEXT),
}


@pytest.mark.parametrize("name", COMPRESSED)
def test_data_of_another_compression_is_named(tmp_path, name):
    path = tmp_path / "in.dat.z"
    path.write_bytes(COMPRESSED[name])
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *MODEL)
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: {path}:1: {name} data (it starts with {name}'s magic number): "
                             "setveil reads gzip or uncompressed data, so decompress it first\n")


def test_gzip_data_gzipped_twice_is_named(tmp_path):
    path = tmp_path / "in.dat.gz"
    path.write_bytes(gzip.compress(gzip.compress(TEXT)))
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *MODEL)
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: {path}:1: gzip data within gzip data (compressed twice?): "
                             "setveil unzips it once\n")


def test_an_item_list_of_another_compression_is_named(tmp_path):
    (tmp_path / "in.dat").write_bytes(TEXT)
    (tmp_path / "private.txt").write_bytes(lzma.compress(b"a\n"))
    result = run("anonymize", tmp_path / "in.dat", "-o", tmp_path / "out.dat", "-m", "coherence", "--sensitive",
                 tmp_path / "private.txt", "-P", "h=0.5", "-P", "k=2", "-P", "p=2")
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: {tmp_path / 'private.txt'}:1: xz data (it starts with xz's magic "
                             "number): setveil reads gzip or uncompressed data, so decompress it first\n")


@pytest.mark.parametrize("start", [b"BZh9 a", b"PK a", b"\x1f a"])
def test_text_that_only_begins_like_a_magic_number_is_not_utf8_at_its_line(tmp_path, start):
    path = tmp_path / "in.dat"
    path.write_bytes(start + b"\nb c\nc \xff d\n")
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *MODEL)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {path}:3: not valid UTF-8\n"


@pytest.mark.parametrize("start", [b"\x28\xb5\x2f a", b"\xfd7zXZ a"])
def test_a_line_that_begins_like_part_of_a_magic_number_is_not_utf8(tmp_path, start):
    # zstd's four bytes and xz's six are matched whole: a Latin-1 "(µ/" is no zstd frame
    path = tmp_path / "in.dat"
    path.write_bytes(start + b"\nb c\n")
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *MODEL)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {path}:1: not valid UTF-8\n"


@pytest.mark.parametrize("magic, line", [(b"\x28\xb5\x2f\xfd", 5), (b"\xfd7zXZ\x00", 5), (b"BZh91AY&SY", 6),
                                         (b"PK\x03\x04", 6)], ids=["zstd", "xz", "bzip2", "zip"])
def test_a_magic_number_past_the_start_is_not_taken_for_a_compression(tmp_path, magic, line):
    # text holding an archive's first bytes on a later line is text that is not UTF-8, at the line
    # of its first bad byte: the magic's own, or the Latin-1 line after it
    path = tmp_path / "in.dat"
    path.write_bytes(TEXT + magic + b" a\n\xe9\n")
    result = run("anonymize", path, "-o", tmp_path / "out.dat", *MODEL)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {path}:{line}: not valid UTF-8\n"
