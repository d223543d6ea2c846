"""A notebook user's window built from their own integer arrays: the ids and offsets are the ones
given, or the window is refused, never cast into other ones in silence."""

import numpy as np
import pytest

from setveil import Vocabulary, Window


def vocab() -> Vocabulary:
    return Vocabulary(["a", "b", "c"])


@pytest.mark.parametrize(("indices", "position"), [
    (np.array([1.0, 0.5]), 1),  # truncated to item 0
    (np.array([0, 2**32 + 1]), 1),  # int64 wrapped to item 1
    (np.array([0, 2**63], dtype=np.uint64), 1),
    ([0, 2**70], 1),  # numpy's OverflowError
    (np.array([0.0, np.nan]), 1),
    (np.array(["0", "1"]), 0),  # text, which numpy casts as numbers
    (np.array(["0", "x"]), 0),
])
def test_item_ids_an_int32_cannot_hold_as_given_are_refused(indices, position):
    with pytest.raises(ValueError) as refused:
        Window(vocab(), [0, 1, 2], indices)
    assert str(refused.value) == (f"Window's indices hold a value that is not an integer an int32 holds (the first at "
                                  f"position {position}): item ids are whole numbers below 2**31, and the cast would "
                                  "change it")


@pytest.mark.parametrize("indptr", [np.array([0, 1.5, 2]), np.array([0, 1, 2**64 - 1], dtype=np.uint64)])
def test_offsets_an_int64_cannot_hold_as_given_are_refused(indptr):
    with pytest.raises(ValueError) as refused:
        Window(vocab(), indptr, [0, 1])
    assert str(refused.value).startswith(
        "Window's indptr hold a value that is not an integer an int64 holds (the first at position ")


def test_from_flat_refuses_ids_the_cast_would_change():
    with pytest.raises(ValueError, match=r"^Window's ids hold a value that is not an integer an int32 holds \(the "
                                         r"first at position 0\)"):
        Window.from_flat(vocab(), [1, 1], np.array([2**32 + 2, 0]))


@pytest.mark.parametrize(("indptr", "indices"), [([[0, 1, 2]], [0, 1]), ([0, 1, 2], [[0], [1]])])
def test_arrays_of_more_dimensions_are_refused(indptr, indices):
    shape = r"^Window's (indptr|indices) must be one-dimensional; got shape \((1, 3|2, 1)\)$"
    with pytest.raises(ValueError, match=shape):
        Window(vocab(), indptr, indices)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.float64])
def test_ids_any_integer_or_integral_array_holds_are_taken(dtype):
    window = Window(vocab(), np.array([0, 2, 3], dtype=dtype), np.array([0, 2, 1], dtype=dtype))
    assert list(window) == [["a", "c"], ["b"]]
    assert window.indptr.dtype == np.int64 and window.indices.dtype == np.int32


def test_an_empty_list_is_no_transaction_and_no_item():
    window = Window(vocab(), [0], [])
    assert len(window) == 0 and window.n_occurrences == 0


@pytest.mark.parametrize(("call", "message"), [
    # before: transactions 0 and 1, item 0 suppressed, occurrence 1 kept, in silence
    (lambda window: window.take([0.5, 1.7]), "take was given transaction 0.5; transactions run from 0 to 1"),
    (lambda window: window.suppress([0.9]), "suppress was given vocabulary item 0.9; vocabulary items run from 0 to 2"),
    (lambda window: window.keep_occurrences(np.array([1.5])),
     "keep_occurrences was given occurrence 1.5; occurrences run from 0 to 2"),
    (lambda window: window.suppress([np.nan]),
     "suppress was given vocabulary item nan; vocabulary items run from 0 to 2"),
    # before: wrapped to -1, and the message named it
    (lambda window: window.take(np.array([2**64 - 1], dtype=np.uint64)),
     "take was given transaction 18446744073709551615; transactions run from 0 to 1"),
    # before: numpy's OverflowError
    (lambda window: window.take([2**70]),
     "take was given transaction 1180591620717411303424; transactions run from 0 to 1"),
])
def test_positions_and_ids_that_are_not_whole_numbers_are_refused(call, message):
    with pytest.raises(ValueError) as refused:
        call(Window(vocab(), [0, 2, 3], [0, 2, 1]))
    assert str(refused.value) == f"{message}, in whole numbers"


def test_positions_and_ids_of_any_integer_type_or_integral_floats_are_taken():
    window = Window(vocab(), [0, 2, 3], [0, 2, 1])
    assert list(window.take(np.array([1, 0], dtype=np.uint64))) == [["b"], ["a", "c"]]
    assert list(window.take([1.0])) == [["b"]]
    assert list(window.suppress(np.array([2], dtype=np.int8))) == [["a"], ["b"]]
    assert list(window.keep_occurrences(np.array([0, 2], dtype=np.uint16))) == [["a"], ["b"]]
