"""The FIMI reader splits its text a block at a time and interns the labels at once
(:meth:`Vocabulary.intern_many`); ASCII text has its lines' label counts from where the labels
start. Whatever the blocks, it reads what splitting each line and interning its labels one by
one reads: the same transactions, the same ids, the same refusal of a repeated item."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import formats
from setveil.core.errors import InputError
from setveil.core.vocabulary import Vocabulary

LABELS = ["a", "b", "c", "7", "07", "é", "ab", "\ufeffa"]
#: every kind of blank str.split splits at, ASCII and not, and both line ends
BLANKS = [" ", "  ", "\t", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\n", "\r\n"]
KNOWN = ["b", "z"]


def one_by_one(text: str, vocab: Vocabulary) -> tuple[list[int], list[int], int | None]:
    """Each line's label count, the labels' ids, and the first line repeating a label (None if none)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    labels = [line.split() for line in lines]
    repeated = next((number for number, held in enumerate(labels, 1) if len(set(held)) < len(held)), None)
    return [len(held) for held in labels], [vocab.intern(label) for held in labels for label in held], repeated


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(LABELS + BLANKS), max_size=40), mark=st.booleans(),
       ascii_only=st.booleans(), characters=st.integers(1, 12), lines=st.integers(1, 4))
def test_the_reader_reads_what_splitting_each_line_reads(pieces, mark, ascii_only, characters, lines):
    if ascii_only:
        pieces = [piece for piece in pieces if piece.isascii()]
    text = ("\ufeff" if mark else "") + "".join(pieces)
    expected_vocab = Vocabulary(KNOWN)
    # a byte-order mark opening the file is no part of its first label
    lengths, ids, repeated = one_by_one(text.removeprefix("\ufeff"), expected_vocab)
    data = text.encode("utf-8")
    vocab = Vocabulary(KNOWN)
    with mock.patch.object(formats, "_CHARACTERS_AT_ONCE", characters), \
            mock.patch.object(formats, "_LINES_AT_ONCE", lines):
        if repeated is not None:
            with pytest.raises(InputError) as refused:
                formats._parse_fimi("in.dat", data, vocab)
            assert str(refused.value) == f"in.dat:{repeated}: an item is repeated in this transaction"
            return
        window, _ = formats._parse_fimi("in.dat", data, vocab)
    assert vocab.labels == expected_vocab.labels
    assert window.lengths.tolist() == lengths
    assert [sorted(window.row(position).tolist()) for position in range(len(window))] == \
        [sorted(ids[start:start + count]) for start, count in zip(np.cumsum([0] + lengths).tolist(), lengths)]


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.sampled_from(LABELS + ["z", "y"]), max_size=30), known=st.lists(st.sampled_from(LABELS),
                                                                                          unique=True))
def test_intern_many_gives_the_ids_interning_one_by_one_gives(labels, known):
    one, many = Vocabulary(known), Vocabulary(known)
    expected = [one.intern(label) for label in labels]
    found = many.intern_many(iter(labels))
    assert found.dtype == np.int32
    assert found.tolist() == expected
    assert many.labels == one.labels
    assert [many.get(label) for label in one.labels] == list(range(len(one)))
