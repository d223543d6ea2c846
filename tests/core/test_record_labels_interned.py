"""JSONL and msgpack records have their labels interned at once, when every record has passed
(:meth:`Vocabulary.intern_many`): the ids are those of interning each label in turn, over a
vocabulary given with labels already known, integers by their decimal text (a transaction holds
its items in ascending id order); and a file refused
at a record leaves the given vocabulary as it was."""

import json

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.errors import InputError
from setveil.core.formats import read_window
from setveil.core.vocabulary import Vocabulary

LABELS = st.sampled_from(["a", "b", "c", "é", "ab", 7, 70, "7"])
KNOWN = ["b", "7", "z"]


def written(tmp_path, records, fmt):
    path = tmp_path / f"in.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    else:
        path.write_bytes(b"".join(msgpack.packb(record) for record in records))
    return path


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.lists(LABELS, unique_by=str, max_size=5), min_size=1, max_size=12),
       fmt=st.sampled_from(["jsonl", "msgpack"]))
def test_the_ids_are_those_of_interning_each_label_in_turn(tmp_path_factory, rows, fmt):
    path = written(tmp_path_factory.mktemp("records"), [{"items": row} for row in rows], fmt)
    expected = Vocabulary(KNOWN)
    ids = [sorted(expected.intern(str(label)) for label in row) for row in rows]
    window = read_window(path, vocab=Vocabulary(KNOWN))
    assert window.vocab.labels == expected.labels
    assert [window.indices[window.indptr[i]:window.indptr[i + 1]].tolist() for i in range(len(rows))] == ids


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_a_file_refused_at_a_record_leaves_the_vocabulary_given_as_it_was(tmp_path, fmt):
    path = written(tmp_path, [{"items": ["new", "b"]}, {"items": ["c", "c"]}], fmt)
    vocab = Vocabulary(KNOWN)
    with pytest.raises(InputError, match="'items' repeats an item"):
        read_window(path, vocab=vocab)
    assert vocab.labels == tuple(KNOWN)
