"""Library use that reads a str as its characters, keeps numpy scalars as tids, takes offsets
that hold no window or leaves a pool's death unexplained (library walkthrough, api74)."""

import json

import msgpack
import numpy as np
import pytest

from setveil import Hierarchy, Vocabulary, Window
from setveil.core.formats import read_window, write_window


def test_a_window_of_no_offsets_is_refused_naming_indptr():
    # taken, its len() raised "__len__() should return >= 0" wherever it was first asked
    with pytest.raises(ValueError) as refused:
        Window(Vocabulary(), [], [])
    assert str(refused.value) == ("Window's indptr is empty: it holds n+1 offsets for n transactions, so at least "
                                  "one offset, 0 (Window.empty() gives a window of no transactions)")
    with pytest.raises(ValueError, match="^Window's indptr is empty"):
        Window(Vocabulary(), np.zeros(0, np.int64), np.zeros(0, np.int32))


def test_the_one_offset_0_is_a_window_of_no_transactions():
    window = Window(Vocabulary(), [0], [])
    assert len(window) == 0 and list(window) == [] and len(Window.empty()) == 0


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_a_window_over_numpy_tids_is_written_as_jsonl_and_msgpack(tmp_path, fmt):
    # np.int64 tids stayed numpy scalars in the window, and both writers raised TypeError
    out = tmp_path / f"release.{fmt}"
    window = Window.from_transactions([["a"], ["b", "c"], []], tids=np.arange(10, 13))
    write_window(window, out)
    if fmt == "jsonl":
        records = [json.loads(line) for line in out.read_text().splitlines()]
    else:
        records = list(msgpack.Unpacker(out.open("rb")))
    assert records == [{"tid": 10, "items": ["a"]}, {"tid": 11, "items": ["b", "c"]}, {"tid": 12, "items": []}]
    assert read_window(out).tids == [10, 11, 12]


@pytest.mark.parametrize("given, kept", [
    (np.arange(3), [0, 1, 2]),
    (np.arange(3, dtype=np.uint8), [0, 1, 2]),
    (np.array(["x", "y", "z"]), ["x", "y", "z"]),
    ([np.int32(7), "7", np.str_("s")], [7, "7", "s"]),
    (range(3), [0, 1, 2]),
])
def test_tids_are_kept_as_plain_int_and_str_however_given(given, kept):
    for window in (Window.from_transactions([["a"]] * 3, tids=given),
                   Window(Vocabulary(["a"]), [0, 1, 2, 3], [0, 0, 0], given),
                   Window.from_transactions([["a"]] * 3).with_tids(given)):
        assert window.tids == kept
        assert [type(tid) for tid in window.tids] == [type(tid) for tid in kept]
        assert [type(window.tid(p)) for p in range(3)] == [type(tid) for tid in kept]


@pytest.mark.parametrize("given, named", [
    ([0, 1.0], "a float (the first at position 1)"),
    (np.array([0.0, 1.0]), "a float (the first at position 0)"),
    ([0, True], "a bool (the first at position 1)"),
    (np.array([True, False]), "a bool (the first at position 0)"),
    ([None, 1], "a NoneType (the first at position 0)"),
    ([b"t0", b"t1"], "a bytes (the first at position 0)"),
])
def test_a_tid_neither_str_nor_int_is_refused_by_its_type_and_position(given, named):
    with pytest.raises(TypeError) as refused:
        Window.from_transactions([["a"], ["b"]], tids=given)
    assert str(refused.value) == f"Window's tids hold {named}; a tid is a str or an int"


@pytest.mark.parametrize("transactions, refused", [
    # "ab" was the transaction of items a and b
    (["ab"], "Window.from_transactions: transaction 0 is one str; give its items as a collection of str labels"),
    ([["a"], b"ab"], "Window.from_transactions: transaction 1 is one bytes; give its items as a collection of str "
                     "labels"),
    ([["a"], ["b"], 7], "Window.from_transactions: transaction 2 is an int; give its items as a collection of str "
                        "labels"),
    # each character a transaction of one item
    ("ab", "Window.from_transactions: transactions is one str; give a collection of transactions, each a "
           "collection of str labels"),
])
def test_from_transactions_refuses_one_str_for_a_transaction_or_for_all(transactions, refused):
    with pytest.raises(TypeError) as raised:
        Window.from_transactions(transactions)
    assert str(raised.value) == refused


@pytest.mark.parametrize("call, refused", [
    # ids("hiv") looked up 'h', 'i' and 'v', not 'hiv'
    (lambda vocab: vocab.ids("hiv"), "Vocabulary.ids: labels is one str"),
    (lambda vocab: vocab.ids(b"hiv"), "Vocabulary.ids: labels is one bytes"),
    (lambda vocab: vocab.mask("hiv"), "Vocabulary.mask: labels is one str"),
    (lambda vocab: vocab.ids(3), "Vocabulary.ids: labels is an int"),
    (lambda vocab: Vocabulary("hiv"), "Vocabulary: labels is one str"),
    # a tree over the leaves 'a', 'b' and 'c'
    (lambda vocab: Hierarchy.balanced("abc", 2), "Hierarchy.balanced: labels is one str"),
    (lambda vocab: Hierarchy.balanced(np.str_("abc"), 2), "Hierarchy.balanced: labels is one str_"),
])
def test_one_str_for_a_collection_of_labels_is_refused_by_its_type(call, refused):
    with pytest.raises(TypeError) as raised:
        call(Vocabulary(["hiv", "h", "i", "v"]))
    assert str(raised.value) == f"{refused}; give the labels as a collection of str"


def test_collections_of_labels_are_taken_as_before():
    vocab = Vocabulary(["hiv", "flu"])
    assert vocab.ids(["hiv", "cold"]).tolist() == [0, -1]
    assert vocab.ids(label for label in ("flu",)).tolist() == [1]
    assert vocab.ids(np.array(["flu", "hiv"])).tolist() == [1, 0]
    assert vocab.mask({"flu"}).tolist() == [False, True]
    assert Vocabulary(("a", "b")).labels == ("a", "b")
    assert Hierarchy.balanced(["a", "b", "c"], 2).labels == ["a..c", "a..b", "a", "b", "c"]
    assert list(Window.from_transactions([["ab"], ("c", "d"), {"e"}, []])) == [["ab"], ["c", "d"], ["e"], []]
