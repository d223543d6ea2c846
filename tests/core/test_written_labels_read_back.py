"""What setveil writes it reads back: a label none of its readers takes (a Window built in Python
holds any text) is refused by the writer, naming the transaction and the problem, before a byte is
written, where JSONL and msgpack wrote files that read_window then refused (deep property sweep)."""

import pytest

from setveil.core.errors import InputError
from setveil.core.formats import read_window, write_window
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

UNREADABLE = {
    "": "is an empty string",
    " a": "begins or ends with whitespace",
    "a\0b": "holds a NUL",
    "x" * 1025: "is longer than 1024 characters",
}


@pytest.mark.parametrize("suffix", [".jsonl", ".msgpack", ".jsonl.gz"])
@pytest.mark.parametrize("label", list(UNREADABLE), ids=["empty", "blank-led", "nul", "long"])
def test_a_label_no_reader_takes_is_refused_before_anything_is_written(tmp_path, suffix, label):
    path = tmp_path / f"release{suffix}"
    window = Window.from_transactions([["a"], ["b"], ["a", label]])
    with pytest.raises(InputError) as caught:
        write_window(window, path)
    assert str(caught.value) == (f"{path}: nothing written: transaction 2 (counted from 0) would hold an item label "
                                 f"that {UNREADABLE[label]}, which no reader of setveil's takes")
    assert not path.exists()


def test_fimi_names_a_label_too_long_to_read_back_as_the_others_do(tmp_path):
    path = tmp_path / "release.dat"
    with pytest.raises(InputError, match=r"transaction 1 \(counted from 0\) would hold an item label that is longer "
                                         r"than 1024 characters, which no reader of setveil's takes$"):
        write_window(Window.from_transactions([["a"], ["x" * 1025]]), path)
    assert not path.exists()


@pytest.mark.parametrize("suffix", [".dat", ".jsonl", ".msgpack"])
def test_labels_at_the_readers_limits_are_written_and_read_back(tmp_path, suffix):
    path = tmp_path / f"release{suffix}"
    rows = [["x" * 1024], ["a b" if suffix != ".dat" else "a", "é"], []]
    write_window(Window.from_transactions(rows), path)
    assert [sorted(labels) for labels in read_window(path)] == [sorted(row) for row in rows]


def test_the_problem_named_is_that_of_the_label_the_named_transaction_holds(tmp_path):
    # windows may share a vocabulary (a release shares its input's), whose order is then not theirs
    vocab = Vocabulary()
    Window.from_transactions([["a\0b", " a"]], vocab=vocab)
    path = tmp_path / "release.jsonl"
    with pytest.raises(InputError) as caught:
        write_window(Window.from_transactions([["a"], [" a"], ["a\0b"]], vocab=vocab), path)
    assert str(caught.value) == (f"{path}: nothing written: transaction 1 (counted from 0) would hold an item label "
                                 "that begins or ends with whitespace, which no reader of setveil's takes")


@pytest.mark.parametrize("suffix", [".dat", ".jsonl", ".msgpack"])
def test_a_label_of_the_vocabulary_no_transaction_holds_is_not_checked(tmp_path, suffix):
    # a release shares its input's vocabulary: the label of an item it suppressed is not written
    vocab = Vocabulary()
    Window.from_transactions([[" a", "b"]], vocab=vocab)
    path = tmp_path / f"release{suffix}"
    write_window(Window.from_transactions([["b"], []], vocab=vocab), path)
    assert [list(labels) for labels in read_window(path)] == [["b"], []]
