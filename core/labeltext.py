"""How item labels are written in the line-based files a user gives: item lists (one label per
line), restrictive patterns (several labels per line, separated by whitespace) and hierarchies
(``child,parent`` lines, :mod:`setveil.core.hierarchy`).

A label is written bare, or as a JSON string. JSONL and msgpack records may hold labels with
blanks inside ("New York", "chest pain"); bare, such a label would read as several, so it could
never be listed as sensitive and would be released as an ordinary item. A token that begins with
``"`` is therefore read as a JSON string (escapes included) and must be followed by whitespace or
the end of the line. A bare label cannot begin with ``"``; :func:`label_text` quotes the labels
that need it, so every file setveil writes reads back as it was.

A quoted label is held to the rules of the data (:func:`setveil.core.records.item_label`): not
empty, valid Unicode (no lone surrogate escape), and no whitespace at its ends, since no item can
have such a label.
"""

from __future__ import annotations

import gzip
import itertools
import json
import operator
import os
import re
import unicodedata
import zlib
from collections.abc import Iterator, Sequence

from .errors import InputError, ParameterError
from .output import gzipped_name, refuse_reading_standard_output
from .records import MAX_LABEL_LENGTH

_DECODER = json.JSONDecoder()
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_LONE_CR = re.compile(r"\r(?!\n)")
STDIN = "-"


def label_order(label: str) -> tuple[int, int, str]:
    """The order of labels in every list setveil writes: labels that are decimal integers
    (ASCII digits, with a sign or leading zeros) first, numerically, then the others as text.
    (``str.isdigit`` is no test of that: it holds for "²", which ``int`` refuses.)"""
    if _INTEGER.match(label):
        return (0, int(label), label)
    return (1, 0, label)


class LabelSyntaxError(ValueError):
    """A line of labels cannot be read; the message names the label's position, never its text."""


#: Unicode's default-ignorable code points (DerivedCoreProperties.txt, Default_Ignorable_Code_Point,
#: Unicode 15.1): drawn as nothing, so a label pasted with one looks like the label without it.
#: Most are format characters (category Cf), but not variation selectors, the combining grapheme
#: joiner or the Hangul fillers, and NFKC maps the Hangul fillers onto one another rather than
#: dropping them (review: ``hiv`` with a variation selector was another item, and unlisted).
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


def _visible(text: str) -> str:
    """``text`` without default-ignorable, format and control characters; whitespace is kept (a
    tab inside a quoted label is seen as a gap)."""
    return "".join(char for char in _IGNORABLE.sub("", text)
                   if unicodedata.category(char) not in ("Cf", "Cc") or char.isspace())


def unmarked(label: str) -> str:
    """``label`` without what a reader cannot see: in one Unicode normalization (NFKC: é as one
    code point, not e and a combining accent; full-width ＨＩＶ as HIV) and without invisible
    characters (default-ignorable, format or control but whitespace: a zero-width space or a
    soft hyphen pasted into a list, a byte-order mark, a variation selector, a DEL or an escape
    that a terminal draws as nothing). Case is kept: two labels that differ only in case may be
    two items the data tells apart on purpose, two that are alike unmarked are one item written
    twice."""
    if label.isascii() and label.isprintable():
        # no invisible character, and NFKC changes nothing: the labels of most inputs, every window
        return label
    # dropped before NFKC too, not only the default-ignorable: NFKC composes no letter and accent
    # that a kept format character parts (e, U+FFF9 and a combining acute were not é: review);
    # and after it, in case a later Unicode's NFKC maps a kept character onto an invisible one, as
    # it maps the halfwidth Hangul filler (dropped already) onto the Hangul filler; under Unicode 14
    # none does
    return _visible(unicodedata.normalize("NFKC", _visible(label)))


def folded(label: str) -> str:
    """``label`` as a user may mean it: :func:`unmarked`, and in one case. Two labels that fold
    alike are two items to every model, so a listed label that only folds like an item of the
    input is a misspelling. NFKC is taken again after casefolding, which can undo it (as
    Unicode's NFKC_Casefold does). Each run of whitespace is one space: a list's "New York"
    over records that all spell it "New  York" or with a tab is as likely a misspelling as
    "new york" (both held, they stay two items, as :func:`unmarked` keeps them)."""
    if label.isascii() and label.isprintable():
        return _one_space(label.casefold())
    return _one_space(_visible(unicodedata.normalize("NFKC", unmarked(label).casefold())))


def turkic_folded(label: str) -> str:
    """:func:`folded` with Turkish and Azerbaijani casing, where I is the capital of ı and İ that
    of i: ``istanbul`` folds like ``İstanbul`` only so (review). Compare it with the same fold of
    another label, never with :func:`folded`'s, which would make I and ı alike."""
    if label.isascii() and label.isprintable():
        # no invisible character, and ı is its own case fold and NFKC form
        return _one_space(label.replace("I", "\u0131").casefold())
    text = unmarked(label).replace("I", "\u0131").replace("\u0130", "i")
    return _one_space(_visible(unicodedata.normalize("NFKC", text.casefold())))


#: what :func:`label_folds` gives: the :func:`unmarked`, :func:`folded` and :func:`turkic_folded` forms
LabelFolds = tuple[Sequence[str], list[str], list[str]]


def label_folds(labels: Sequence[str]) -> LabelFolds:
    """:func:`unmarked`, :func:`folded` and :func:`turkic_folded` of each of ``labels``, in their
    order. A worker folds every window's labels to find an item list's misspellings, and three
    calls per label cost a worker of retail's windows of 1,000 three quarters of its model's
    anonymize time (bench stream under py-spy); labels that are ASCII and printable, most labels
    of most windows, are folded at once, joined by a line end, which none of them holds. Where the
    Turkish casing changes none of them the third list is the second itself, not a copy."""
    joined = "\n".join(labels)
    if not labels:
        return [], [], []
    if joined.isascii() and "".join(labels).isprintable():
        return _plain_folds(labels, joined)
    # one label with an accent made a window fold every label one by one, eight times the cost:
    # only those not ASCII or not printable are, the others at once with an empty label in their place
    others = list(itertools.compress(range(len(labels)), map(operator.not_, map(
        operator.and_, map(str.isascii, labels), map(str.isprintable, labels)))))
    plain = list(labels)
    for position in others:
        plain[position] = ""
    _, folds, turkic = _plain_folds(plain, "\n".join(plain))
    if turkic is folds:  # one list for both where no label held an I: each now takes its own fold
        turkic = list(folds)
    for position in others:
        label = labels[position]
        plain[position], folds[position], turkic[position] = unmarked(label), folded(label), turkic_folded(label)
    return plain, folds, turkic


def _plain_folds(labels: Sequence[str], joined: str) -> LabelFolds:
    """:func:`label_folds` of ``labels``, all ASCII and printable, which ``joined`` joins by line ends."""
    # as one label each: ASCII's case folding and the Turkish replacement are of one character at
    # a time, and a space is the only whitespace that is printable
    folds = joined.casefold().split("\n")
    if " " in joined:
        folds = [_one_space(text) if " " in text else text for text in folds]
    if "I" not in joined:
        # the Turkish casing folds these labels as the other does: one list, which a misspelling
        # check of a window then reads once (most windows' labels, retail's numbers among them)
        return labels, folds, folds
    turkic = joined.replace("I", "\u0131").casefold().split("\n")
    if " " in joined:
        turkic = [_one_space(text) if " " in text else text for text in turkic]
    return labels, folds, turkic


def _one_space(text: str) -> str:
    """``text`` with each run of whitespace (``str.split``'s) one space, and none at its ends,
    where a dropped invisible character can leave one (a label itself never has one there)."""
    return " ".join(text.split())


def split_labels(line: str) -> list[str]:
    """The labels of ``line``, bare or quoted, in order."""
    if '"' not in line:
        return line.split()
    labels: list[str] = []
    position, end = 0, len(line)
    while True:
        while position < end and line[position].isspace():
            position += 1
        if position == end:
            return labels
        number = len(labels) + 1
        if line[position] == '"':
            label, position = read_quoted(line, position, number)
            if position < end and not line[position].isspace():
                raise LabelSyntaxError(f"label {number} is a JSON string followed by more text; separate labels by blanks")
        else:
            start = position
            while position < end and not line[position].isspace():
                position += 1
            label = line[start:position]
        labels.append(label)


def read_quoted(line: str, position: int, number: int) -> tuple[str, int]:
    """The label quoted at ``line[position]`` (a ``"``) and the position after it; ``number``
    names the label in an error."""
    try:
        label, after = _DECODER.raw_decode(line, position)
    except json.JSONDecodeError as exc:
        raise LabelSyntaxError(
            f"label {number} begins with '\"', so it is read as a JSON string, and it is not one ({exc.msg})"
        ) from None
    if not label:
        raise LabelSyntaxError(f"label {number} is an empty string")
    try:
        label.encode("utf-8")
    except UnicodeEncodeError:
        # a \ud800 escape spells half a surrogate pair: no item holds one, and writing it (a
        # hierarchy node in a release, an itemset's label in a naming) ended in a traceback (QA)
        raise LabelSyntaxError(f"label {number} is not valid Unicode text (a lone surrogate escape)") from None
    if label != label.strip():
        raise LabelSyntaxError(f"label {number} begins or ends with whitespace, which no item can")
    return label, after


def label_text(label: str) -> str:
    """``label`` as :func:`split_labels` reads it back: bare when it can be, else a JSON string
    (which escapes a NUL: a raw one is refused in every text file, see :func:`check_text`). A
    leading U+FEFF is quoted too: on a file's first line it would be read as a byte-order mark."""
    if label.startswith(('"', "\ufeff")) or "\0" in label or any(ch.isspace() for ch in label):
        return json.dumps(label, ensure_ascii=False)
    return label


def split_fields(line: str) -> list[str]:
    """The comma-separated fields of a stripped ``child,parent`` line, bare (blanks around them
    dropped, inside kept) or quoted, so that a label may hold a comma."""
    if '"' not in line:
        return [field.strip() for field in line.split(",")]
    fields: list[str] = []
    position, end = 0, len(line)
    while True:
        while position < end and line[position].isspace():
            position += 1
        if position < end and line[position] == '"':
            label, position = read_quoted(line, position, len(fields) + 1)
            while position < end and line[position].isspace():
                position += 1
            if position < end and line[position] != ",":
                raise LabelSyntaxError(f"label {len(fields) + 1} is a JSON string followed by more text")
        else:
            comma = line.find(",", position)
            stop = end if comma < 0 else comma
            label, position = line[position:stop].strip(), stop
        fields.append(label)
        if position >= end:
            return fields
        position += 1


def field_text(label: str) -> str:
    """``label`` as :func:`split_fields` reads it back; a leading ``#`` would make a comment, and a
    line end or other whitespace but a space would end or garble the line (a ``\r`` is refused),
    and a leading U+FEFF would be read as a byte-order mark on the first line."""
    if "," in label or label.startswith(('"', "#", "\ufeff")) or "\0" in label or any(ch.isspace() and ch != " " for ch in label):
        return json.dumps(label, ensure_ascii=False)
    return label


def check_text(path: str | os.PathLike, text: str) -> None:
    """Lines end at ``\n``; the ``\r`` of a CRLF line end is a blank at the end of the line, dropped
    like the others. A ``\r`` alone (an old Mac line end) would join two lines, in the data two
    transactions and in an item list two labels, in silence: :class:`InputError` names its line.
    It names the line of the first NUL too: UTF-16 without a byte-order mark decodes as UTF-8
    with a NUL after every ASCII letter, and its labels would match no listed item (QA: released
    raw)."""
    if "\r" in text and (found := _LONE_CR.search(text)):
        raise InputError(path, "a carriage return inside a line (lines end at \\n or \\r\\n)",
                         text.count("\n", 0, found.start()) + 1)
    if (nul := text.find("\0")) >= 0:
        raise InputError(path, "a NUL character, which no text file holds: is it UTF-16? setveil reads UTF-8",
                         text.count("\n", 0, nul) + 1)


#: the byte-order marks of UTF-16, which Windows tools write (PowerShell 5's ``>``, Notepad's "Unicode")
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


#: how the compressed data setveil does not read begins (bzip2's block size digit and xz's stream
#: header included, so that no text file's first label is taken for one)
_OTHER_COMPRESSIONS = {"zstd": re.compile(rb"\x28\xb5\x2f\xfd"), "xz": re.compile(rb"\xfd7zXZ\x00"),
                       "bzip2": re.compile(rb"BZh[1-9]1AY&SY"), "zip": re.compile(rb"PK\x03\x04")}


def not_utf8(path: str | os.PathLike, data: bytes, error: UnicodeDecodeError) -> InputError:
    """The error for ``data`` that is not UTF-8, naming the line of the first bad byte, or what
    :func:`foreign_bytes` names it ("not valid UTF-8" alone did not say why)."""
    return foreign_bytes(path, data) or InputError(path, "not valid UTF-8", data[: error.start].count(b"\n") + 1)


def foreign_bytes(path: str | os.PathLike, data: bytes) -> InputError | None:
    """The error for ``data`` that no format setveil reads can hold, named by how it starts: UTF-16
    by its byte-order mark, or the compression setveil does not read by its magic number (``data.zst``
    read as "not valid UTF-8" at line 1), gzip data within gzip data included; None for other data.
    Each such start is a record no JSONL or msgpack reader takes, so the reader names it before it
    guesses a format from the bytes (a comma in xz data read as a CSV row's, a docs audit)."""
    if data.startswith(_UTF16_MARKS):
        return InputError(path, "UTF-16 (it starts with UTF-16's byte-order mark): setveil reads UTF-8", 1)
    if data.startswith(GZIP_MAGIC):  # left by unzipped(), which unzips once
        return InputError(path, "gzip data within gzip data (compressed twice?): setveil unzips it once", 1)
    for name, magic in _OTHER_COMPRESSIONS.items():
        if magic.match(data):
            return InputError(path, f"{name} data (it starts with {name}'s magic number): setveil reads gzip or "
                                    "uncompressed data, so decompress it first", 1)
    return None


def check_user_file(path: str | os.PathLike, option: str | None = None) -> None:
    """Refuse ``-`` for a file of labels a user gives (naming ``option`` when given): these files
    are read before the data, which may be standard input, so they are never read from it (the
    error would otherwise say that no file ``-`` exists)."""
    if os.fspath(path) == STDIN:
        if option is None:
            raise InputError(path, "not supported for this file ('-'); give a path")
        raise ParameterError(option, "standard input ('-') is not supported for this file; give a path")


#: why a file could not be read whole: setveil sets no limit of its own on a file's size, so an
#: endless one (/dev/zero) or one past a ``ulimit -v`` ends in this line, not in a traceback
OUT_OF_MEMORY_READING = "cannot read: out of memory before its end (a file is read whole)"


def read_utf8(path: str | os.PathLike) -> str:
    """The text of a UTF-8 file a user gives (item lists, patterns, hierarchies), without a
    byte-order mark, unzipped when it is gzip data as the data is (:func:`unzipped`), since a
    ``.gz`` output is written gzipped; :class:`InputError` names the file, and the line of bytes
    that are not UTF-8 or of a lone carriage return or a NUL."""
    check_user_file(path)
    refuse_reading_standard_output(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    except MemoryError:
        raise InputError(path, OUT_OF_MEMORY_READING) from None
    data, _ = unzipped(path, data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise not_utf8(path, data, exc) from None
    check_text(path, text)
    return text


#: the first two bytes of gzip data, which neither UTF-8 text nor a stream of msgpack records (maps) begins with
GZIP_MAGIC = b"\x1f\x8b"


def unzipped(path: str | os.PathLike, data: bytes) -> tuple[bytes, str | None]:
    """``data``, read from ``path``, unzipped when it is gzip data, known by its first two bytes or
    a ``.gz`` name, and ``"gzip"`` then, else None. Damaged gzip data is :class:`InputError` with a
    fixed message: gzip's own can quote the file's first bytes."""
    if not (gzipped_name(path) or data.startswith(GZIP_MAGIC)):
        return data, None
    try:
        return gzip.decompress(data), "gzip"
    except (gzip.BadGzipFile, zlib.error):
        raise InputError(path, "cannot read: not valid gzip data") from None
    except EOFError:
        raise InputError(path, "cannot read: gzip data ends early") from None
    except MemoryError:
        # gzip unzips up to about a thousand times its size: a bomb of a few megabytes asked for
        # gigabytes and ended in a traceback
        raise InputError(path, f"cannot read: out of memory unzipping its {len(data):,} bytes of gzip data "
                               "(gzip can unzip to a thousand times its size)") from None


def label_lines(path: str | os.PathLike, text: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """The line number and labels of each non-blank line of a UTF-8 file of several labels per
    line (a byte-order mark allowed), lines split at ``\n`` alone as in the FIMI data. Raises
    :class:`InputError` naming the file, and the line where one is at fault; a label longer than
    a transaction's may be is one (it could name no item of the data). ``text``, when given, is
    the file's text as :func:`read_utf8` read it, for a caller that read it once already: a pipe
    (``<(...)``) can be read only once."""
    path = os.fspath(path)
    for number, line in enumerate((read_utf8(path) if text is None else text).split("\n"), start=1):
        try:
            labels = split_labels(line)
        except LabelSyntaxError as exc:
            raise InputError(path, str(exc), number) from None
        for position, label in enumerate(labels, start=1):
            if len(label) > MAX_LABEL_LENGTH:
                raise InputError(path, f"field {position} is longer than {MAX_LABEL_LENGTH} characters", number)
        if labels:
            yield number, labels
