"""A JSONL or msgpack file read a block at a time (core/formats.py ``_at_once``) checks the text of
every label its records hold, those the given vocabulary already holds too: a vocabulary built by
a library user (``Vocabulary([" a"])``) may hold labels no reader takes, and a file naming one is
refused at its line as when read one record at a time, the vocabulary left as it was."""

import json

import msgpack
import pytest

from setveil.core.errors import InputError
from setveil.core.formats import read_window
from setveil.core.vocabulary import Vocabulary

#: labels a Vocabulary holds as given and no reader takes, with the reason the reader gives
REFUSED = [(" a", "begins or ends with whitespace"), ("a\0b", "holds a NUL"),
           ("a" * 1025, "is longer than 1024 characters")]


def _write(path, fmt, records):
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
    else:
        path.write_bytes(b"".join(map(msgpack.packb, records)))


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
@pytest.mark.parametrize("label, reason", REFUSED, ids=["blank", "nul", "long"])
def test_a_label_the_given_vocabulary_holds_is_checked_as_a_new_one_is(tmp_path, fmt, label, reason):
    path = tmp_path / f"in.{fmt}"
    # 300 records, so that the one naming the label is in the second block of 256
    records = [{"items": ["b", f"i{position % 7}"]} for position in range(299)] + [{"items": ["b", label]}]
    _write(path, fmt, records)
    vocab = Vocabulary(["b", label])
    with pytest.raises(InputError) as info:
        read_window(path, fmt, vocab)
    assert str(info.value) == f"{path}:300: item 1 {reason}"
    assert vocab.labels == ("b", label)


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_labels_the_given_vocabulary_holds_and_the_file_does_not_name_are_not_checked(tmp_path, fmt):
    path = tmp_path / f"in.{fmt}"
    _write(path, fmt, [{"items": ["b", "c"]}, {"items": ["c"]}])
    vocab = Vocabulary([" a", "b"])
    window = read_window(path, fmt, vocab)
    assert window.vocab is vocab
    assert vocab.labels == (" a", "b", "c")
    assert window.indptr.tolist() == [0, 2, 3] and window.indices.tolist() == [1, 2, 2]


def test_a_lone_surrogate_the_given_vocabulary_holds_is_refused_in_jsonl(tmp_path):
    # the one label text a \u escape spells that no UTF-8 release can hold
    path = tmp_path / "in.jsonl"
    _write(path, "jsonl", [{"items": ["b"]}, {"items": ["b", "\ud800"]}])
    vocab = Vocabulary(["b", "\ud800"])
    with pytest.raises(InputError) as info:
        read_window(path, "jsonl", vocab)
    assert str(info.value) == f"{path}:2: item 1 is not valid Unicode text"
    assert vocab.labels == ("b", "\ud800")
