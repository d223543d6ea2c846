"""Transaction files: FIMI ``.dat``, JSONL and msgpack, optionally gzip-compressed.

- FIMI: one transaction per line, item labels separated by whitespace; an empty line is an
  empty transaction (a release keeps transactions emptied by suppression as empty lines).
  Transaction ids are the 0-based line positions. Whitespace is what ``str.split`` splits at
  (:func:`fimi_labels`), for the reader and the writer alike: the ASCII blanks (space, tab,
  vertical tab, form feed), the separators ``\x1c``-``\x1f``, U+0085, no-break and other Unicode
  spaces, U+2028 and U+2029. A label holding any of them cannot be written as FIMI (it would read
  back as several): the writer refuses it, naming the line; JSONL and msgpack carry it. It refuses
  a label holding a NUL too: no text file is read with one (UTF-16 read as UTF-8 is full of
  them). Lines end at ``\n`` or ``\r\n``; a carriage return elsewhere is refused, naming its
  line, as it would join two transactions. A U+FEFF that begins a line other than the first is
  the first character of its label, not a byte-order mark: a label may begin with one (JSONL and
  msgpack carry it) and the writer writes it bare there, so files joined with ``cat`` keep each
  one's mark in that line's first label.
- JSONL: one record per line, ``{"tid": ..., "items": [...]}`` (see :mod:`.records`); blank
  lines are skipped. A record's ``subject`` is validated and, for a producer that sends it on
  (``setveil replay``), read by :func:`read_window_and_subjects`; windows hold none.
- msgpack: a sequence of such records, one after another.

gzip data is read whatever the file's name (or on standard input): it is known by its first two
bytes, which neither UTF-8 text nor a stream of msgpack records (maps) can begin with. A path
ending in ``.gz`` is written gzipped. Suffixes are read in any case (``OUT.JSONL.GZ``).

Line i of a release is transaction i of the input (with ``anonymize --merge-subjects``, of the
input with each subject's records merged into one: :mod:`.subjects`). Writes are atomic: a
failed write leaves nothing at the output path.
"""

from __future__ import annotations

import errno
import io
import itertools
import json
import operator
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, cast

import msgpack
import numpy as np

from .errors import InputError
from .labeltext import OUT_OF_MEMORY_READING, STDIN, check_text, foreign_bytes, not_utf8, unzipped
from .output import gzip_writer, gzipped_name, refuse_reading_standard_output, write_output
from .records import (MAX_LABEL_LENGTH, RecordError, RepeatedKey, extension, kind_of, label_problem, parse_record,
                      record_columns, unique_map)
from .vocabulary import Vocabulary
from .window import DuplicateItem, Tid, Window

FORMATS = ("fimi", "jsonl", "msgpack")
#: the fields of a release's records as setveil writes them (:func:`_write`), and with the
#: ``tids`` of merged subjects
RELEASE_FIELDS = ("tid", "items")
MERGED_RELEASE_FIELDS = ("tid", "tids", "items")
#: the fields a record may hold that setveil reads or writes, which a refusal may name
_KNOWN_FIELDS = frozenset({"tid", "tids", "items", "subject", "ts"})
_SUFFIXES = {
    ".dat": "fimi",
    ".txt": "fimi",
    ".fimi": "fimi",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".msgpack": "msgpack",
    ".mpk": "msgpack",
    ".msgp": "msgpack",
}


def _unzipped_name(path: str | os.PathLike) -> str:
    name = os.fspath(path)
    return name[:-3] if gzipped_name(name) else name


def detect_format(path: str | os.PathLike, explicit: str | None = None) -> str:
    """The format named by ``explicit``, else by the file's suffix in any case (``.gz`` ignored),
    else FIMI."""
    if explicit is not None:
        if explicit not in FORMATS:
            raise InputError(path, f"unknown format {explicit!r} (known: {', '.join(FORMATS)})")
        return explicit
    return _SUFFIXES.get(Path(_unzipped_name(path)).suffix.lower(), "fimi")


def named_format(path: str | os.PathLike) -> str | None:
    """The format the file's suffix names (``.gz`` ignored), None when it names none."""
    return _SUFFIXES.get(Path(_unzipped_name(path)).suffix.lower())


#: a line that opens a JSON object with a key, after an optional byte-order mark and blanks
_JSON_OBJECT_START = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"')


def _guessed(path: str | os.PathLike) -> bool:
    """Whether ``detect_format`` fell back to FIMI: no suffix it knows names the format."""
    return Path(_unzipped_name(path)).suffix.lower() not in _SUFFIXES


def written_compression(path: str | os.PathLike) -> str | None:
    """``"gzip"`` for an output :func:`write_window` gzips (a ``.gz`` name), else None."""
    return "gzip" if gzipped_name(path) else None


def _read_bytes(path: str | os.PathLike) -> tuple[bytes, str | None]:
    """The bytes of ``path`` (``-``: standard input), unzipped when they are gzip data, and
    ``"gzip"`` then, else None."""
    if os.fspath(path) == STDIN:
        if sys.stdin is None:
            raise InputError(STDIN, "cannot read: it is closed")
        refuse_reading_standard_output(STDIN)
        data = sys.stdin.buffer.read()
    else:
        refuse_reading_standard_output(path)
        with open(path, "rb") as handle:
            data = handle.read()
    # without this, gzip data named .dat read as "not valid UTF-8" at line 1
    return unzipped(path, data)


def refuse_unreadable(path: str | os.PathLike) -> None:
    """Refuse a file that does not exist or is a directory, in the words its read would use,
    without opening it: a command that reads another file first names it before that read (QA:
    verify named a mistyped RELEASE after reading ORIGINAL, 9.1 s over 1,000,000 transactions;
    a hierarchy was then read once the data was). A pipe is not opened, which would cut its writer off;
    standard input is left to the read."""
    if os.fspath(path) == STDIN:
        return
    try:
        is_directory = stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if is_directory:
        raise InputError(path, f"cannot read: {os.strerror(errno.EISDIR)}")


def read_window(path: str | os.PathLike, fmt: str | None = None, vocab: Vocabulary | None = None, *,
                format_option: str | None = "--format", release: bool = False, shared_format: str | None = None,
                fields: Sequence[str] | None = None, merged_tids: Sequence[Sequence[Tid] | None] | None = None
                ) -> Window:
    """Read a whole transaction file. Raises :class:`InputError` naming file and line.

    ``format_option`` is the command's option that sets this file's format, which a refusal of
    data that looks like another format names (None: the command reads FIMI only). A ``release``
    (setveil's own output, read back to be checked) is not refused for a comma on its first line:
    a generalized label can hold one (``a..a,c``) where the input had it on a later line.
    ``shared_format`` names the option that gave ``fmt`` for several files at once (verify's
    --format): FIMI so given is still refused for data that starts like another format, as a
    guess is, since the option was given for another file's sake. ``fields``, for a release, are
    the only fields its JSONL or msgpack records may hold (:data:`RELEASE_FIELDS`); None: any,
    as an input's fields other than a record's are ignored. ``merged_tids``, each transaction's
    tids when the records of subjects were merged (:func:`~setveil.core.subjects.merge_window`),
    are what a release record's ``tids``, where it has them, must be: its own tid alone where
    none was merged into it."""
    return _read(path, fmt, vocab, format_option, release, shared_format, fields, merged_tids)[0]


def read_window_and_subjects(path: str | os.PathLike, fmt: str | None = None, vocab: Vocabulary | None = None
                             ) -> tuple[Window, list[str | int | None], str | None]:
    """Read a whole transaction file, each transaction's subject (None where its record has
    none; FIMI has none), and the file's compression: ``"gzip"`` when its data was gzipped,
    whatever its name, else None."""
    window, subjects, compression = _read(path, fmt, vocab)
    return window, [None] * len(window) if subjects is None else subjects, compression


def _read(path, fmt: str | None, vocab: Vocabulary | None, format_option: str | None = "--format",
          release: bool = False, shared_format: str | None = None, fields: Sequence[str] | None = None,
          merged_tids: Sequence[Sequence[Tid] | None] | None = None
          ) -> tuple[Window, list[str | int | None] | None, str | None]:
    explicit_fmt = fmt
    fmt = detect_format(path, fmt)
    try:
        data, compression = _read_bytes(path)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    except MemoryError:
        raise InputError(path, OUT_OF_MEMORY_READING) from None
    if (foreign := foreign_bytes(path, data)) is not None:
        raise foreign
    if fmt == "fimi" and (explicit_fmt is None or shared_format is not None):
        _refuse_other_formats(path, data, format_option, release, shared_format)
    vocab = Vocabulary() if vocab is None else vocab
    try:
        if fmt == "fimi":
            window, subjects = _parse_fimi(path, data, vocab)
        else:
            window, subjects = (_parse_jsonl if fmt == "jsonl" else _parse_msgpack)(path, data, vocab, fields,
                                                                                          merged_tids)
    except MemoryError:
        # its text and transactions take several times its bytes
        raise InputError(path, f"cannot read: out of memory holding its {len(data):,} bytes as transactions") from None
    if len(window) == 0:
        raise InputError(path, "no transactions")
    return window, subjects, compression


def _refuse_other_formats(path, data: bytes, option: str | None, release: bool, shared_format: str | None = None
                          ) -> None:
    """Refuse data read as FIMI by its name or for want of one that starts like another format:
    JSON lines read as FIMI make items like '{"tid":', msgpack is "not valid UTF-8" with no word
    of why (QA re-check), and a CSV row one item of a whole row,
    which a generalizing model then releases as the name of its hierarchy node (QA). Either
    passes every check; ``option`` (``--format``, ``--release-format``) set to fimi reads them
    as they are."""
    if shared_format is not None:
        why = f"as {shared_format} says"
    else:
        why = "for want of a format" if _guessed(path) else "as its name says"
    json_start = _JSON_OBJECT_START.match(data)
    if json_start:
        hint = f"give {option} jsonl (or {option} fimi)" if option else "and this command reads FIMI only"
        line = data.count(b"\n", 0, data.index(b"{")) + 1  # blank lines may come first
        raise InputError(path, f"read as FIMI, {why}, but it starts like JSONL: {hint}", line)
    if data[:1] and 0x80 <= data[0] <= 0x9F:
        # a msgpack map or array of up to 15 entries; no UTF-8 text starts with such a byte
        hint = f"give {option} msgpack" if option else "and this command reads FIMI only"
        raise InputError(path, f"read as FIMI, {why}, but it starts like msgpack: {hint}", 1)
    line_end = data.find(b"\n")
    if not release and data.find(b",", 0, len(data) if line_end < 0 else line_end) >= 0:  # not a copy of the data
        hint = (f"{option} fimi reads such items as they are" if option
                else "this command reads FIMI only: replace the commas with blanks")
        raise InputError(path, f"read as FIMI, {why}, but an item of this line holds a comma, as in a CSV file: "
                         f"FIMI items are separated by blanks ({hint})", 1)


def _decode(path, data: bytes) -> str:
    """The text of ``data``, without a leading byte-order mark (else it would join the first label)."""
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise not_utf8(path, data, exc) from None
    check_text(path, text)
    return text


def fimi_labels(line: str) -> list[str]:
    """The labels of a FIMI line: what the reader takes a label to be, and the writer checks each
    label against, so that every release written reads back (see the module's docstring)."""
    return line.split()


def fimi_carries(label: str) -> bool:
    """Whether FIMI can carry ``label``: it reads back as the one label (no whitespace) and holds
    no NUL."""
    return fimi_labels(label) == [label] and "\0" not in label


#: lines of a FIMI file whose labels the reader holds at once, where it splits them line by line
_LINES_AT_ONCE = 1 << 14
#: characters of an ASCII FIMI file whose labels the reader holds at once
_CHARACTERS_AT_ONCE = 1 << 18
#: the ASCII characters ``str.split`` splits at, by code
_ASCII_BLANK = np.array([chr(code).isspace() for code in range(256)]) & (np.arange(256) < 128)


def _parse_fimi(path, data: bytes, vocab: Vocabulary) -> tuple[Window, None]:
    text = _decode(path, data)
    known = len(vocab)
    if text.isascii():
        lengths, flat = _ascii_fimi(text, vocab)
    else:
        lengths, flat = _fimi_by_line(text, vocab)
    if len(vocab) > known and max(map(len, vocab.labels[known:])) > MAX_LABEL_LENGTH:
        # the limit of JSONL and msgpack records and of the service, so that every release
        # setveil writes reads back; the line is looked for only when a label is too long
        number = next(n for n, line in enumerate(text.split("\n"), 1)
                      if any(len(t) > MAX_LABEL_LENGTH for t in fimi_labels(line)))
        raise InputError(path, f"an item is longer than {MAX_LABEL_LENGTH} characters", number)
    try:
        return Window.from_flat(vocab, lengths, flat), None
    except DuplicateItem as exc:
        raise InputError(path, "an item is repeated in this transaction", exc.position + 1) from None


def _fimi_lines(text: str) -> int:
    """How many transactions ``text`` holds: its lines, where the file's last ``\n`` ends the last one."""
    return text.count("\n") + (text[-1:] not in ("", "\n"))


def _ascii_fimi(text: str, vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """Each line's label count and the labels' ids of ASCII ``text``, as :func:`_fimi_by_line`
    gives them: a label starts at a non-blank after a blank, a line's count is the starts
    between its line ends, and the text is split a block of lines at a time."""
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    blank = _ASCII_BLANK[codes]
    starts = np.flatnonzero(~blank & np.concatenate(([True], blank[:-1])))
    before_ends = np.searchsorted(starts, np.flatnonzero(codes == ord("\n")))
    lengths = np.diff(np.concatenate(([0], before_ends, [len(starts)])))[:_fimi_lines(text)]
    return lengths.astype(np.int64), vocab.intern_many(itertools.chain.from_iterable(map(str.split, _blocks(text))),
                                                      len(starts))


def _blocks(text: str) -> Iterator[str]:
    """``text`` in blocks of about :data:`_CHARACTERS_AT_ONCE` characters, each ending at a line
    end (or the text's), so that no label is cut in two."""
    begin = 0
    while begin < len(text):
        end = text.find("\n", begin + _CHARACTERS_AT_ONCE)
        end = len(text) if end < 0 else end + 1
        yield text[begin:end]
        begin = end


def _fimi_by_line(text: str, vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """Each line's label count and the labels' ids, interned in the order they occur."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lengths = [np.zeros(0, dtype=np.int64)]

    def block_labels(start: int) -> Iterator[str]:
        # only a block's labels are held as text at once
        labels = list(map(fimi_labels, lines[start:start + _LINES_AT_ONCE]))
        lengths.append(np.fromiter(map(len, labels), dtype=np.int64, count=len(labels)))
        return itertools.chain.from_iterable(labels)

    blocks = map(block_labels, range(0, len(lines), _LINES_AT_ONCE))
    flat = vocab.intern_many(itertools.chain.from_iterable(blocks))
    return np.concatenate(lengths), flat


def _records_to_window(path, records, vocab: Vocabulary, fields: Sequence[str] | None,
                       merged_tids: Sequence[Sequence[Tid] | None] | None) -> tuple[Window, list[str | int | None]]:
    lengths: list[int] = []
    # the labels are interned at once when every record has passed (Vocabulary.intern_many, in C):
    # interned one by one, they took a quarter of reading retail as JSONL
    labels: list[str] = []
    tids: list[Any] = []
    subjects: list[str | int | None] = []
    seen: dict[Any, int] = {}
    for line, obj in records:
        try:
            record = parse_record(obj)
        except RecordError as exc:
            raise InputError(path, exc.reason, line) from None
        if fields is not None:
            _refuse_other_fields(path, obj, fields, line)
        tid = record.tid if record.tid is not None else len(tids)
        if merged_tids is not None and "tids" in obj:
            _check_merged_tids(path, obj["tids"], merged_tids, len(tids), tid, line)
        first = seen.setdefault(tid, line)
        if first != line:
            # the release is joined back by tid; a record without one is given its position,
            # which may be another record's tid
            given = "the tid" if record.tid is not None else "the tid it is given (its position)"
            raise InputError(path, f"{given} repeats the tid of line {first}", line)
        lengths.append(len(record.items))
        labels.extend(record.items)
        tids.append(tid)
        subjects.append(record.subject)
    # parse_record has refused a repeated item, so from_flat finds none
    flat = vocab.intern_many(labels, len(labels))
    return Window.from_flat(vocab, np.array(lengths, np.int64), flat, tids), subjects


def _refuse_other_fields(path, record: Mapping[Any, Any], fields: Sequence[str], line: int) -> None:
    """A release holds what setveil writes and nothing else: verify checks its items, and another
    field, which it does not check, would pass unseen (a subject says whom a transaction is about)."""
    others = [name for name in record if name not in fields]
    if not others:  # not None for none: msgpack takes nil as a key
        return
    other = others[0]
    # named only when setveil knows the name: another could be an item's label
    what = repr(other) if other in _KNOWN_FIELDS else "a field setveil does not write"
    hint = "; give --merge-subjects for a release of `anonymize --merge-subjects`" if other == "tids" else ""
    names = [repr(name) for name in fields]
    raise InputError(path, f"a release's records hold {', '.join(names[:-1])} and {names[-1]} only, as setveil writes "
                           f"them, and this one holds {what}: verify checks the items, not what another field "
                           f"reveals{hint}", line)


def _check_merged_tids(path, given: Any, merged_tids: Sequence[Sequence[Tid] | None], position: int, tid: Tid,
                       line: int) -> None:
    """A merged release's ``tids`` say which records a transaction holds, so they must be those
    merged into it; past the original's transactions the count's refusal says more."""
    if not isinstance(given, (list, tuple)):
        raise InputError(path, f"'tids' is {kind_of(given)}, expected a list", line)
    if position >= len(merged_tids):
        return
    merged = merged_tids[position]
    expected = [tid] if merged is None else merged
    # typed: a list compares true == 1 and 4.0 == 4, which no record takes as a tid
    if len(given) != len(expected) or any(type(a) is not type(b) or a != b for a, b in zip(given, expected)):
        # not quoted: a tid may be a producer's record id
        raise InputError(path, f"transaction {position}'s 'tids' are not the tids of the records merged into it", line)


#: records decoded and checked at a time: a block's maps are dropped before the next block is
#: decoded, since Python's cyclic collector walks every live list and map each time it runs
#: (read_window of retail as JSONL in blocks of 256 records: 0.44 s of CPU, of 1,024: 0.54 s,
#: of 4,096: 0.74 s, the whole file as one block: 0.88 s; medians of 3 runs, load 3.7-4.0)
_RECORDS_AT_ONCE = 1 << 8


class _Unsure(Exception):
    """Records that reading at once cannot vouch for (:func:`_at_once`): the file is read one
    record at a time, which names the first fault at its line."""


def _at_once(path, blocks: Iterator[list[Any]], vocab: Vocabulary, fields: Sequence[str] | None,
             merged_tids: Sequence[Sequence[Tid] | None] | None, escapes: bool
             ) -> tuple[Window, list[str | int | None]] | None:
    """The window and subjects :func:`_records_to_window` gives the records of ``blocks``, found
    a block at a time (:func:`record_columns`), or None where a record may be refused or is of
    a shape not taken at once, for the caller to read the file one record at a time. The labels
    are interned only when every record has passed, so that a file refused leaves ``vocab`` as
    it was; each distinct label's text is checked once, and a record's repeated item is found by
    the labels' ids. ``escapes``: whether JSON text holds a ``\\u`` escape, the only way a lone
    surrogate gets into decoded text."""
    lengths: list[int] = []
    labels: list[str] = []
    tids: list[Any] = []
    subjects: list[str | int | None] = []
    allowed = None if fields is None else set(fields)
    try:
        for objs in blocks:
            columns = record_columns(objs)
            if columns is None or (allowed is not None and not {*itertools.chain.from_iterable(objs)} <= allowed):
                return None
            given = cast(list[Tid], columns.tids)
            if None in columns.tids:  # a record without a tid is given its position
                given = [len(tids) + position if tid is None else tid for position, tid in enumerate(columns.tids)]
            if merged_tids is not None:
                for position, (obj, tid) in enumerate(zip(objs, given), len(tids)):
                    if "tids" in obj:
                        _check_merged_tids(path, obj["tids"], merged_tids, position, tid, 0)
            lengths += columns.lengths
            labels += columns.labels
            tids += given
            subjects += columns.subjects
    except (_Unsure, InputError):
        return None
    if len(set(tids)) != len(tids):
        return None
    ids, new = vocab.numbering(labels, len(labels))
    held = _held_labels(vocab.labels + tuple(new), ids) if len(vocab) else new
    texts = [*held, *(value for value in tids + subjects if type(value) is str)] if escapes else held
    if any(map(label_problem, held)) or not _is_unicode("".join(texts)):
        return None
    try:
        window = Window.from_flat(vocab, np.array(lengths, np.int64), ids, tids)
    except DuplicateItem:
        return None
    vocab.intern_many(new, len(new))  # the ids numbering gave them
    return window, subjects


def _held_labels(labels: tuple[str, ...], ids: np.ndarray) -> list[str]:
    """The labels of ``ids``, each once."""
    return [labels[ident] for ident in np.flatnonzero(np.bincount(ids, minlength=len(labels))).tolist()]


#: the blanks JSON allows around a value, but the \n a line ends at
_JSON_BLANKS = " \t\r"
_VALUE = operator.itemgetter(0)
_END = operator.itemgetter(1)


def _jsonl_blocks(text: str, escapes: bool) -> Iterator[list[Any]]:
    """The records of JSONL ``text``, :data:`_RECORDS_AT_ONCE` at a time, each block decoded at
    once by the JSON decoder's scanner, in C, with no hook; :class:`_Unsure` where a line does not
    decode whole or a map may repeat a key (the decoder keeps the last). ``escapes``: whether
    ``text`` holds a ``\\u`` escape."""
    scan: Callable[[str, int], tuple[Any, int]] = vars(json.JSONDecoder())["scan_once"]  # not in typeshed
    strict = json.JSONDecoder(object_pairs_hook=unique_map).decode
    bodies = [*filter(None, map(str.strip, text.split("\n"), itertools.repeat(_JSON_BLANKS)))]
    for first in range(0, len(bodies), _RECORDS_AT_ONCE):
        lines = bodies[first:first + _RECORDS_AT_ONCE]
        try:
            decoded = [*map(scan, lines, itertools.repeat(0))]
        except (ValueError, RecursionError):
            raise _Unsure from None
        # each line is one value, whole; the scanner's StopIteration, where a line opens with no
        # JSON value, ended the list short
        if [*map(_END, decoded)] != [*map(len, lines)]:
            raise _Unsure
        objs = [*map(_VALUE, decoded)]
        if {*map(type, objs)} != {dict}:
            raise _Unsure
        # a key is followed by a colon, so maps that hold as many keys as their lines hold colons
        # but those inside their strings repeat none; a line holding more is decoded again with the
        # check. A string's colons are its text's only without escapes (\u003a is one)
        colons, keys = sum(map(str.count, lines, itertools.repeat(":"))), sum(map(len, objs))
        if colons != keys and (escapes or colons != keys + _colons_in_strings(objs)):
            for line, obj in zip(lines, objs):
                if line.count(":") != len(obj):
                    try:
                        strict(line)
                    except (ValueError, RecursionError):
                        raise _Unsure from None
        yield objs


def _colons_in_strings(maps: list[dict[str, Any]]) -> int:
    """How many colons the keys of ``maps``, their string items and their tids and subjects that
    are strings hold: no more than the strings of their lines hold, each being one of them."""
    items = [value for value in map(dict.get, maps, itertools.repeat("items")) if type(value) is list]
    try:
        labels = "".join(itertools.chain.from_iterable(items))
    except TypeError:  # integer items, which hold no colon
        labels = "".join(item for item in itertools.chain.from_iterable(items) if type(item) is str)
    fields = [value for name in ("tid", "subject") for value in map(dict.get, maps, itertools.repeat(name))
              if type(value) is str]
    return "".join(itertools.chain.from_iterable(maps)).count(":") + labels.count(":") + "".join(fields).count(":")


def _parse_jsonl(path, data: bytes, vocab: Vocabulary, fields: Sequence[str] | None = None,
                 merged_tids: Sequence[Sequence[Tid] | None] | None = None) -> tuple[Window, list[str | int | None]]:
    text = _decode(path, data)
    escapes = "\\u" in text
    read = _at_once(path, _jsonl_blocks(text, escapes), vocab, fields, merged_tids, escapes)
    return read if read is not None else _jsonl_one_by_one(path, text, vocab, fields, merged_tids)


def _jsonl_one_by_one(path, text: str, vocab: Vocabulary, fields: Sequence[str] | None = None,
                      merged_tids: Sequence[Sequence[Tid] | None] | None = None
                      ) -> tuple[Window, list[str | int | None]]:
    """JSONL ``text``'s records read one at a time, each decoded with the check for a repeated
    key and parsed (:func:`parse_record`): the reading that names a fault at its line."""
    decode = json.JSONDecoder(object_pairs_hook=unique_map).decode  # one decoder, not one per line

    def records():
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                obj = decode(line)
            except RepeatedKey:
                raise InputError(path, "an object repeats a key", number) from None
            except json.JSONDecodeError as exc:
                raise InputError(path, _json_error(exc, number), number) from None
            except RecursionError:
                raise InputError(path, "JSON nested too deeply", number) from None
            except ValueError:  # an integer past Python's limit on digits
                raise InputError(path, "a JSON number has too many digits", number) from None
            if "\\u" in line:  # text decoded from UTF-8 gets a surrogate only from an escape
                _reject_lone_surrogates(path, obj, number)
            yield number, obj

    return _records_to_window(path, records(), vocab, fields, merged_tids)


def _json_error(exc: json.JSONDecodeError, line: int) -> str:
    """Why JSONL line ``line`` is not JSON, naming a byte-order mark where the error is at one:
    ``cat`` of files that each open with one leaves one at the start of a line, or inside one that
    the file before did not end, and "Expecting value" did not say what was there."""
    if not exc.doc.startswith("\ufeff", exc.pos):
        return f"not valid JSON ({exc.msg})"
    if exc.doc[:exc.pos].strip():
        return f"not valid JSON: a byte-order mark at character {exc.colno} of this line"
    if line == 1 and exc.pos == 0:  # the file's own was taken off (_decode): an empty file saved with one came first
        return "a second byte-order mark at the start of the file: files joined with cat?"
    return ("a byte-order mark at the start of this line, where only a file's first line may have one: "
            "files joined with cat?")


def _reject_lone_surrogates(path, obj, line: int) -> None:
    """A ``\\u`` escape can spell half a surrogate pair, text no UTF-8 release can hold."""
    if not isinstance(obj, dict):
        return
    items = obj.get("items")
    for position, item in enumerate(items if isinstance(items, list) else ()):
        if isinstance(item, str) and not _is_unicode(item):
            raise InputError(path, f"item {position} is not valid Unicode text", line)
    for name in ("tid", "subject"):
        value = obj.get(name)
        if isinstance(value, str) and not _is_unicode(value):
            raise InputError(path, f"'{name}' is not valid Unicode text", line)


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


#: the most bytes msgpack's unpacker holds at once (its own default): one string, binary data or
#: extension of a record, which it holds whole, may take no more (a record may: it reads a list or a
#: map entry by entry), and it refuses lists of more entries than this, maps of half as many pairs
MSGPACK_RECORD_BYTES = 100 * 1024 * 1024
#: msgpack's words for a length over those limits, which hold two numbers and nothing of the data
_MSGPACK_LENGTH = re.compile(r"\d+ exceeds max_(str|bin|array|map|ext)_len\(\d+\)")
_MSGPACK_KINDS = {"str": "a string", "bin": "binary data", "array": "a list", "map": "a map", "ext": "an extension"}


#: msgpack's words for a timestamp (extension -1) of another length, which it decodes itself:
#: "invalid timestamp data (length 2)" or "Timestamp type can only be created from 32, 64, ..."
_MSGPACK_TIMESTAMP = re.compile(r"invalid timestamp data|timestamp type can only", re.IGNORECASE)


def msgpack_fault(exc: Exception, holder: str, end: str) -> str | None:
    """Why msgpack refused data with ``exc``, in words that quote nothing of it, or None for an
    error msgpack does not name: the class of msgpack's error did not say it ("malformed msgpack
    (UnicodeDecodeError)"). ``holder`` names what holds the fault ("this record"), ``end`` the data
    whose end a length over msgpack's limits runs past ("the file"), since those limits are the
    data's size (a file's up to :data:`MSGPACK_RECORD_BYTES`, a message's own)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"a string in {holder} is not valid UTF-8"
    if isinstance(exc, msgpack.StackError):
        return "msgpack nested too deeply"
    if isinstance(exc, msgpack.FormatError):  # the one byte no msgpack value begins with
        return "not msgpack: byte 0xc1, which msgpack reserves"
    if type(exc) is ValueError and _MSGPACK_TIMESTAMP.match(str(exc)):
        return "a msgpack timestamp of a length msgpack does not define (4, 8 or 12 bytes)"
    if type(exc) is ValueError and str(exc).startswith("nanoseconds must be"):
        return "a msgpack timestamp whose nanoseconds are over 999,999,999"
    found = _MSGPACK_LENGTH.fullmatch(str(exc)) if type(exc) is ValueError else None
    if found is None:
        return None
    return f"the length of {_MSGPACK_KINDS[found[1]]} in {holder} runs past the end of {end}"


def _msgpack_error(exc: Exception, size: int) -> str:
    """Why msgpack refused a record of a file of ``size`` bytes. Every entry takes a byte at least,
    so in a file no larger than a record may be, a length over the limits runs past its end."""
    if isinstance(exc, msgpack.BufferFull):
        return (f"a string, binary data or an extension in this record is over {MSGPACK_RECORD_BYTES:,} bytes, more "
                "than msgpack reads of one entry")
    found = _MSGPACK_LENGTH.fullmatch(str(exc)) if type(exc) is ValueError else None
    if found is not None and size > MSGPACK_RECORD_BYTES:
        return (f"the length of {_MSGPACK_KINDS[found[1]]} in this record is over {MSGPACK_RECORD_BYTES:,} bytes, "
                "more than a record may take")
    return msgpack_fault(exc, "this record", "the file") or f"malformed msgpack ({type(exc).__name__})"


def _msgpack_blocks(data: bytes) -> Iterator[list[Any]]:
    """The records of msgpack ``data``, :data:`_RECORDS_AT_ONCE` at a time, each block unpacked
    at once, in C, with no hook; :class:`_Unsure` where the data does not unpack whole or a map
    may repeat a key (msgpack keeps the last)."""
    unpacker = msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False, ext_hook=extension,
                                max_buffer_size=MSGPACK_RECORD_BYTES)
    pack = msgpack.Packer().pack
    start = 0
    while True:
        try:
            objs = [*itertools.islice(unpacker, _RECORDS_AT_ONCE)]
        except (msgpack.UnpackException, ValueError, TypeError):
            raise _Unsure from None
        if not objs:
            break
        end = unpacker.tell()
        # a map that repeats a key unpacks to fewer pairs than it holds, and packs shorter: records
        # that pack to their own bytes, as msgpack (setveil's writer and most producers) packs
        # them, repeat none; a block packed otherwise (a float32, a longer header than needed) is
        # unpacked again with the check
        try:
            same = b"".join(map(pack, objs)) == data[start:end]
        except (TypeError, ValueError, OverflowError):  # an extension, which no record holds
            raise _Unsure from None
        if not same:
            again = msgpack.Unpacker(io.BytesIO(data[start:end]), raw=False, strict_map_key=False,
                                     ext_hook=extension, object_pairs_hook=unique_map,
                                     max_buffer_size=MSGPACK_RECORD_BYTES)
            last = 0
            try:
                for _ in again:
                    last = again.tell()
            except (msgpack.UnpackException, ValueError, TypeError):
                raise _Unsure from None
            # the unpacker counts the part of a record a truncated file ends in as read
            if last != end - start:
                raise _Unsure
        start = end
        yield objs
    if start != len(data):  # truncated: the unpacker stops at the last whole record
        raise _Unsure


def _parse_msgpack(path, data: bytes, vocab: Vocabulary, fields: Sequence[str] | None = None,
                   merged_tids: Sequence[Sequence[Tid] | None] | None = None) -> tuple[Window, list[str | int | None]]:
    read = _at_once(path, _msgpack_blocks(data), vocab, fields, merged_tids, False)
    return read if read is not None else _msgpack_one_by_one(path, data, vocab, fields, merged_tids)


def _msgpack_one_by_one(path, data: bytes, vocab: Vocabulary, fields: Sequence[str] | None = None,
                        merged_tids: Sequence[Sequence[Tid] | None] | None = None
                        ) -> tuple[Window, list[str | int | None]]:
    """msgpack ``data``'s records read one at a time, each unpacked with the check for a repeated
    key and parsed (:func:`parse_record`): the reading that names a fault at its record."""
    unpacker = msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False, ext_hook=extension,
                                object_pairs_hook=unique_map, max_buffer_size=MSGPACK_RECORD_BYTES)

    def records():
        number = 0
        consumed = 0
        while True:
            number += 1
            try:
                obj = unpacker.unpack()
            except msgpack.OutOfData:
                if consumed < len(data):
                    raise InputError(path, "truncated msgpack record", number) from None
                return
            except RepeatedKey:
                raise InputError(path, "a map repeats a key", number) from None
            except (msgpack.UnpackException, ValueError) as exc:
                raise InputError(path, _msgpack_error(exc, len(data)), number) from None
            except TypeError:  # a list or map as a map key: Python cannot hash it
                raise InputError(path, "a map key is a list or a map", number) from None
            consumed = unpacker.tell()
            yield number, obj

    return _records_to_window(path, records(), vocab, fields, merged_tids)


def write_window(window: Window, path: str | os.PathLike, fmt: str | None = None) -> None:
    """Write ``window`` in ``fmt`` (detected from the suffix when None), gzipped for a ``.gz``
    path. The whole output is rendered first, so a label FIMI cannot carry fails before a byte
    is written; :func:`setveil.core.output.write_output` then writes it (atomically for a file)."""
    write_output(path, render_window(window, path, fmt))


def render_window(window: Window, path: str | os.PathLike, fmt: str | None = None, *,
                  merged_tids: Sequence[Sequence[Tid] | None] | None = None) -> bytes:
    """The bytes :func:`write_window` would write to ``path``, for a command that writes several
    outputs at once (:func:`setveil.core.output.write_outputs`). ``merged_tids``, one entry per
    transaction, gives a JSONL or msgpack record the ``tids`` of the records merged into it (None
    for one that merges none), as a batch does (:mod:`.subjects`); FIMI carries items only."""
    fmt = detect_format(path, fmt)
    rendered = io.BytesIO()
    if gzipped_name(path):
        with gzip_writer(rendered) as handle:
            _write(window, handle, fmt, path, merged_tids)
    else:
        _write(window, rendered, fmt, path, merged_tids)
    return rendered.getvalue()


def _write(window: Window, handle: IO[bytes] | io.BufferedIOBase, fmt: str, path: str | os.PathLike,
           merged_tids: Sequence[Sequence[Tid] | None] | None = None) -> None:
    buffered = io.BufferedWriter(handle, buffer_size=1 << 20) if not isinstance(handle, io.BufferedIOBase) else handle
    vocabulary = window.vocab.labels
    # each label the release uses is checked once, not once per occurrence
    used = np.unique(window.indices).tolist()
    if fmt == "fimi":
        blank = [i for i in used if not fimi_carries(vocabulary[i])]
        if blank:
            position, _ = _first_held(window, blank)
            raise InputError(path, f"nothing written: transaction {position} (counted from 0) would hold an item label "
                             "with whitespace or a NUL, which FIMI cannot carry (write JSONL or msgpack)")
    # a Window built in Python takes any text: written, a label no reader takes made a file that
    # setveil itself refused to read back (deep property sweep: "", " a", "a\0b" in JSONL and msgpack)
    unreadable = {i: problem for i in used if (problem := label_problem(vocabulary[i])) is not None}
    if unreadable:
        position, item = _first_held(window, list(unreadable))
        raise InputError(path, f"nothing written: transaction {position} (counted from 0) would hold an item label "
                         f"that {unreadable[item]}, which no reader of setveil's takes")
    if fmt == "fimi":
        if len(window) and (leading := window.labels(0)) and leading[0].startswith("\ufeff"):
            # the reader takes a leading U+FEFF for a byte-order mark: one written first keeps it
            buffered.write("\ufeff".encode("utf-8"))
        texts = _label_texts(vocabulary, used, str)
        for rows in _row_blocks(window):
            heads = [""] * len(rows)
            buffered.write("".join(_pieces(window, rows, texts, heads, " ", "\n")).encode("utf-8"))
    elif fmt == "jsonl":
        encode = json.JSONEncoder(ensure_ascii=False).encode
        texts = _label_texts(vocabulary, used, encode)
        for rows in _row_blocks(window):
            # each record as the encoder writes {"tid": ..., "tids": [...], "items": [...]}
            heads = [f'{{"tid": {encode(window.tid(position))}, '
                     + ("" if (tids := _merged_into(merged_tids, position)) is None
                        else f'"tids": {encode(list(tids))}, ')
                     + '"items": [' for position in rows]
            buffered.write("".join(_pieces(window, rows, texts, heads, ", ", "]}\n")).encode("utf-8"))
    else:
        packer = msgpack.Packer(use_bin_type=True)
        pack, array_header = packer.pack, packer.pack_array_header
        texts = _label_texts(vocabulary, used, pack)
        tid_key, tids_key, items_key = pack("tid"), pack("tids"), pack("items")
        for rows in _row_blocks(window):
            lengths = np.diff(window.indptr[rows.start:rows.stop + 1]).tolist()
            # each record as the packer packs {"tid": ..., "tids": [...], "items": [...]}
            heads = [(packer.pack_map_header(2) + tid_key + pack(window.tid(position))
                      if (tids := _merged_into(merged_tids, position)) is None
                      else packer.pack_map_header(3) + tid_key + pack(window.tid(position))
                      + tids_key + pack(list(tids)))
                     + items_key + array_header(length) for position, length in zip(rows, lengths)]
            buffered.write(b"".join(_pieces(window, rows, texts, heads, b"", b"")))
    buffered.flush()
    if buffered is not handle:
        buffered.detach()


#: transactions of a release whose text is made at once
_ROWS_AT_ONCE = 1 << 14


def _label_texts(vocabulary: tuple[str, ...], used: list[int], text: Callable[[str], str]) -> np.ndarray:
    """Each used label's ``text`` by id, as an object array (None for a label the release does not use)."""
    texts = np.full(len(vocabulary), None, dtype=object)
    texts[used] = [text(vocabulary[i]) for i in used]
    return texts


def _merged_into(merged_tids: Sequence[Sequence[Tid] | None] | None, position: int) -> Sequence[Tid] | None:
    """The tids of the records merged into transaction ``position``, or None where none were."""
    return None if merged_tids is None else merged_tids[position]


def _row_blocks(window: Window) -> Iterator[range]:
    """The positions of ``window``'s transactions, :data:`_ROWS_AT_ONCE` at a time."""
    for first in range(0, len(window), _ROWS_AT_ONCE):
        yield range(first, min(first + _ROWS_AT_ONCE, len(window)))


def _pieces(window: Window, rows: range, texts: np.ndarray, heads: Sequence[Any], between: Any, end: Any) -> list[Any]:
    """Transactions ``rows`` of ``window`` as the pieces of their text: each its head, its labels'
    ``texts`` with ``between`` between two, and ``end``. They are laid out with numpy, to be
    joined at once: joined transaction by transaction, Python's work per transaction and label took
    longer than anything else of writing a release (perf task)."""
    indptr = window.indptr[rows.start:rows.stop + 1]
    lengths = np.diff(indptr)
    # a transaction of m labels takes 2m + 1 pieces (head, label, between, ..., label, end), an empty one 2
    sizes = 2 * lengths + 1 + (lengths == 0)
    firsts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    owners = np.repeat(np.arange(len(rows)), lengths)
    at = firsts[owners] + 1 + 2 * (np.arange(indptr[-1] - indptr[0]) - (indptr[:-1] - indptr[0])[owners])
    pieces = np.empty(int(sizes.sum()), dtype=object)
    pieces[firsts] = heads
    pieces[at] = texts[window.indices[indptr[0]:indptr[-1]]]
    pieces[at + 1] = between
    pieces[firsts + sizes - 1] = end
    return pieces.tolist()


def _first_held(window: Window, items: list[int]) -> tuple[int, int]:
    """The first occurrence in ``window`` of one of ``items``: its transaction's position and the item."""
    first = int(np.flatnonzero(np.isin(window.indices, items))[0])
    return int(window.owners()[first]), int(window.indices[first])
