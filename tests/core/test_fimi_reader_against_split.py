"""The FIMI reader against the straightforward reading of a file: ``text.split('\n')``, a last
empty line dropped, ``str.split`` of each line, each label interned in turn. Whatever the blanks
(every ASCII kind, runs of them, at line starts and ends, and Unicode's), line ends, block sizes
and labels already known, the two read the same transactions with the same ids, and refuse the
same file at the same line: a carriage return inside a line, a label over MAX_LABEL_LENGTH, an
item repeated in a transaction."""

import re
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import formats
from setveil.core.errors import InputError
from setveil.core.records import MAX_LABEL_LENGTH
from setveil.core.vocabulary import Vocabulary

LONG = "L" * (MAX_LABEL_LENGTH + 1)
#: labels, ASCII and not; \x01, \x7f, U+200B and U+180E are no blanks to str.split
LABELS = ["a", "b", "7", "07", "ab", "\x01", "a\x7f", "é", "日本", "\u200b", "x\u180e", "\ufeffa", LONG,
          "L" * MAX_LABEL_LENGTH]
#: every ASCII blank str.split splits at, a lone \r (which no line may hold), CRLF, Unicode blanks
BLANKS = [" ", "\t", "\x0b", "\x0c", "\r", "\r\n", "\x1c", "\x1d", "\x1e", "\x1f", " \t\x0b\x0c\x1c\x1d\x1e\x1f",
          "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\u2000", "\n", "\n\n"]
_LONE_CR = re.compile(r"\r(?!\n)")


def straightforward(text: str, vocab: Vocabulary) -> tuple[list[list[int]], str | None]:
    """Each line's ids in the order the labels occur, or the refusal (line number and reason)."""
    known = len(vocab)
    if found := _LONE_CR.search(text):
        number = text.count("\n", 0, found.start()) + 1
        return [], f"{number}: a carriage return inside a line (lines end at \\n or \\r\\n)"
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    labels = [line.split() for line in lines]
    ids = [[vocab.intern(label) for label in held] for held in labels]
    if any(len(label) > MAX_LABEL_LENGTH for label in vocab.labels[known:]):
        number = next(n for n, held in enumerate(labels, 1) if any(len(label) > MAX_LABEL_LENGTH for label in held))
        return ids, f"{number}: an item is longer than {MAX_LABEL_LENGTH} characters"
    repeated = next((n for n, held in enumerate(labels, 1) if len(set(held)) < len(held)), None)
    if repeated is not None:
        return ids, f"{repeated}: an item is repeated in this transaction"
    return ids, None


@settings(max_examples=1500, deadline=None)
@given(pieces=st.lists(st.sampled_from(LABELS + BLANKS), max_size=50), mark=st.booleans(),
       ascii_only=st.booleans(), known=st.lists(st.sampled_from(LABELS[:-2] + ["z"]), unique=True),
       characters=st.integers(1, 16), lines=st.integers(1, 5), ending=st.sampled_from(["", "\n", "\n\n", " \n"]))
def test_the_reader_reads_what_the_straightforward_reading_reads(pieces, mark, ascii_only, known, characters,
                                                                 lines, ending):
    if ascii_only:
        pieces = [piece for piece in pieces if piece.isascii()]
    text = ("\ufeff" if mark else "") + "".join(pieces) + ending
    expected_vocab = Vocabulary(known)
    # one byte-order mark opening the file is no part of its first label
    ids, refusal = straightforward(text.removeprefix("\ufeff"), expected_vocab)
    vocab = Vocabulary(known)
    data = text.encode("utf-8")
    with mock.patch.object(formats, "_CHARACTERS_AT_ONCE", characters), \
            mock.patch.object(formats, "_LINES_AT_ONCE", lines):
        if refusal is not None:
            with pytest.raises(InputError) as refused:
                formats._parse_fimi("in.dat", data, vocab)
            assert str(refused.value) == f"in.dat:{refusal}"
            return
        window, subjects = formats._parse_fimi("in.dat", data, vocab)
    assert subjects is None
    assert vocab.labels == expected_vocab.labels
    assert len(window) == len(ids)
    assert window.lengths.tolist() == [len(held) for held in ids]
    assert [window.row(position).tolist() for position in range(len(window))] == [sorted(held) for held in ids]
    assert window.indices.dtype == np.int32 and window.indptr.dtype == np.int64


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(st.sampled_from(["a", "b", "c", "é", "d"]), max_size=4), max_size=12),
       known=st.lists(st.sampled_from(["c", "b", "q"]), unique=True), characters=st.integers(1, 6))
def test_known_labels_keep_their_ids_and_new_ones_follow_in_the_order_they_first_occur(rows, known, characters):
    # a vocabulary given with labels already known (the service's and --vocab's case): the ids of the
    # labels it holds stand, each new label the next id at its first occurrence, a repeat a refusal
    text = "".join(" ".join(row) + "\n" for row in rows)
    vocab = Vocabulary(known)
    with mock.patch.object(formats, "_CHARACTERS_AT_ONCE", characters), \
            mock.patch.object(formats, "_LINES_AT_ONCE", 2):
        try:
            window, _ = formats._parse_fimi("in.dat", text.encode("utf-8"), vocab)
        except InputError as refused:
            first = next(n for n, row in enumerate(rows, 1) if len(set(row)) < len(row))
            assert str(refused) == f"in.dat:{first}: an item is repeated in this transaction"
            return
    order = list(known)
    for label in (label for row in rows for label in row):
        if label not in order:
            order.append(label)
    assert list(vocab.labels) == order
    assert [window.labels(position) for position in range(len(window))] == \
        [sorted(row, key=order.index) for row in rows]
