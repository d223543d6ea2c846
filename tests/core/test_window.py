import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.bitset import clear, holds, members, popcount, row_members, set_bits
from setveil.core.errors import ContractError
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import DuplicateItem, Window, detached

rows_strategy = st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=6, unique=True), max_size=25)


@settings(max_examples=100, deadline=None)
@given(rows=rows_strategy)
def test_views_agree_with_the_rows(rows):
    window = Window.from_transactions(rows)
    assert [set(r) for r in window] == [set(r) for r in rows]
    assert window.n_occurrences == sum(len(r) for r in rows)
    items = np.arange(len(window.vocab))
    bits = window.bitsets(items)
    for item in items:
        expected = [i for i, r in enumerate(rows) if window.vocab.label(int(item)) in r]
        assert window.tidset(int(item)).tolist() == expected
        assert members(bits[item]).tolist() == expected
        assert popcount(bits[item : item + 1])[0] == window.supports[item] == len(expected)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=6, unique=True), min_size=1, max_size=150),
       gone=st.lists(st.integers(0, 149)), back=st.lists(st.integers(0, 149)))
def test_bit_queries_clearing_and_setting_agree_with_the_tidlists(rows, gone, back):
    window = Window.from_transactions(rows)
    items = np.arange(len(window.vocab))
    bits = window.bitsets(items)
    assert row_members(bits).tolist() == [t for item in items for t in members(bits[item]).tolist()]
    n = len(rows)
    every = np.arange(n)
    held = holds(bits, items[:, None], every[None, :])
    assert [set(np.flatnonzero(row).tolist()) for row in held] == [set(window.tidset(int(i)).tolist()) for i in items]
    if len(items):
        gone = [t for t in gone if t < n]
        clear(bits, 0, np.array(gone, dtype=np.int64))
        assert members(bits[0]).tolist() == sorted(set(window.tidset(0).tolist()) - set(gone))
        # setting a bit that is set, or the same bit twice, leaves it set
        back = [t for t in back if t < n]
        set_bits(bits, 0, np.array(back, dtype=np.int64))
        assert members(bits[0]).tolist() == sorted(set(window.tidset(0).tolist()) - set(gone) | set(back))


@settings(max_examples=100, deadline=None)
@given(rows=rows_strategy, drop=st.sets(st.sampled_from("abcdefgh")), picks=st.lists(st.integers(0, 24)))
def test_transformations(rows, drop, picks):
    window = Window.from_transactions(rows)
    ids = [window.vocab.get(x) for x in drop if x in window.vocab]
    suppressed = window.suppress(np.array(ids, dtype=np.int64))
    assert [set(r) for r in suppressed] == [set(r) - drop for r in rows]
    picks = [p for p in picks if p < len(rows)]
    taken = window.take(np.array(picks, dtype=np.int64))
    assert [set(r) for r in taken] == [set(rows[p]) for p in picks]
    other = Window.from_transactions(list(reversed(rows)))
    joined = Window.concat([window, other])
    assert [set(r) for r in joined] == [set(r) for r in rows + list(reversed(rows))]


def test_suppress_and_take_read_a_boolean_mask_as_a_mask():
    # Regression (QA as a plugin author): a mask was converted to ids 0 and 1, so
    # suppress(window.supports < 2) removed items 0 and 1 and kept the rare one, and take() of a
    # mask over the transactions repeated transactions 0 and 1
    window = Window.from_transactions([["a", "b", "c"], ["c", "d"], ["c", "b"]])
    assert list(window.suppress(window.supports < 2)) == [["b", "c"], ["c"], ["b", "c"]]
    assert list(window.suppress([])) == list(window)
    assert list(window.take([True, False, True])) == [["a", "b", "c"], ["b", "c"]]
    assert list(window.take([2, 0])) == [["b", "c"], ["a", "b", "c"]]
    with pytest.raises(ValueError, match=r"suppress was given a boolean mask of shape \(2,\); a mask holds one entry "
                                         r"per vocabulary item \(4\)"):
        window.suppress([True, False])
    with pytest.raises(ValueError, match=r"take was given a boolean mask of shape \(2,\); a mask holds one entry per "
                                         r"transaction \(3\)"):
        window.take([True, False])


def test_suppress_and_take_given_labels_say_what_they_take_without_quoting_one():
    # Regression (a plugin author's walkthrough): suppress(["b"]) raised numpy's "invalid literal for
    # int() with base 10: np.str_('b')", which quoted the label and said nothing of ids
    window = Window.from_transactions([["a", "b"], ["b"]])
    with pytest.raises(ValueError) as given:
        window.suppress(["b"])
    assert str(given.value) == ("suppress was given text; it takes item ids (window.vocab.ids maps labels to them) "
                                "or a boolean mask")
    with pytest.raises(ValueError, match=r"^take was given text; it takes transaction positions or a boolean mask$"):
        window.take(["b"])


def test_keep_occurrences_reads_positions_as_positions_and_refuses_a_mask_of_another_length():
    # Regression (QA as a plugin author): positions were converted to a mask, so keep_occurrences([0, 3])
    # kept occurrences 0 and 1 and, here, nothing else; a mask over the transactions was numpy's IndexError
    window = Window.from_transactions([["a", "b", "c"], ["c", "d"], ["c", "b"]])
    assert list(window.keep_occurrences([0, 3])) == [["a"], ["c"], []]
    assert list(window.keep_occurrences(np.arange(7) % 2 == 0)) == [["a", "c"], ["d"], ["c"]]
    assert list(window.keep_occurrences([])) == [[], [], []]
    with pytest.raises(ValueError, match=r"keep_occurrences was given a boolean mask of shape \(3,\); a mask holds "
                                         r"one entry per occurrence \(7\)"):
        window.keep_occurrences([True, False, True])


def test_slices_keep_positions_as_tids():
    window = Window.from_transactions([["a"], ["b"], [], ["c"], ["d"]])
    parts = list(window.slices(2))
    assert [len(p) for p in parts] == [2, 2, 1]
    assert [p.tids for p in parts] == [[0, 1], [2, 3], [4]]
    assert list(parts[1]) == [[], ["c"]]


def test_duplicate_items_are_refused():
    try:
        Window.from_transactions([["a"], ["b", "b"]])
    except DuplicateItem as exc:
        assert exc.position == 1
    else:
        raise AssertionError("duplicate accepted")


def test_relabel_into_another_vocabulary_keeps_rows_sorted():
    vocab = Vocabulary(["z", "y"])
    window = Window.from_transactions([["a", "y"], ["z", "a"]]).relabel(vocab)
    assert window.vocab is vocab
    for position in range(len(window)):
        row = window.row(position)
        assert list(row) == sorted(row)
    assert [set(r) for r in window] == [{"a", "y"}, {"z", "a"}]


@settings(max_examples=100, deadline=None)
@given(rows=rows_strategy, target=st.lists(st.sampled_from("abcdefghij"), max_size=10), shared=st.booleans())
def test_relabel_gives_each_label_its_id_in_the_target_whatever_prefix_they_share(rows, target, shared):
    # The core copies and relabels the input's whole vocabulary for every window it checks: labels
    # a target vocabulary starts with are mapped in one comparison, the rest interned (QA, speed)
    window = Window.from_transactions(rows)
    vocab = Vocabulary([*window.vocab.labels, *target] if shared else target)
    before = len(set(vocab.labels))
    relabeled = window.relabel(vocab)
    assert list(relabeled) == [sorted(row, key=vocab.get) for row in rows]
    assert list(vocab.labels[:before]) == list(dict.fromkeys([*window.vocab.labels, *target] if shared else target))
    assert all(vocab.get(label) == ident for ident, label in enumerate(vocab.labels))


def test_a_vocabulary_keeps_the_first_id_of_a_repeated_label_and_a_copy_grows_alone():
    vocab = Vocabulary(["b", "a", "b", "c"])
    assert vocab.labels == ("b", "a", "c") and [vocab.get(x) for x in "bac"] == [0, 1, 2]
    copied = vocab.copy()
    assert copied.intern("d") == 3 and "d" not in vocab and copied.labels == ("b", "a", "c", "d")


def test_relabel_sorts_rows_that_were_not_sorted_even_when_the_ids_keep_their_order():
    # QA re-check: the shortcut for an order-keeping mapping left an unchecked release's rows unsorted
    vocab = Vocabulary(["a", "b", "c"])
    unsorted = Window(vocab, [0, 3], [2, 0, 1])
    assert unsorted.relabel(Vocabulary(["a", "b", "c"])).indices.tolist() == [0, 1, 2]
    extended = Window(vocab, [0, 2, 3], [0, 2, 1]).relabel(Vocabulary(["a", "b", "c", "d"]))
    assert extended.indices.tolist() == [0, 2, 1] and list(extended) == [["a", "c"], ["b"]]


def test_from_flat_takes_an_item_that_ends_one_transaction_and_starts_the_next():
    # the duplicate test compares neighbours of the sorted occurrences: b ends row 0 and starts row 1
    vocab = Vocabulary(["a", "b", "c"])
    window = Window.from_flat(vocab, [2, 2], [1, 0, 2, 1])
    assert list(window) == [["a", "b"], ["b", "c"]]


def test_from_flat_names_the_first_transaction_that_repeats_an_item():
    with pytest.raises(DuplicateItem) as info:
        Window.from_flat(Vocabulary(["a", "b"]), [1, 2, 2], [0, 1, 1, 0, 0])
    assert info.value.position == 1  # the line a file's reader names


def test_concat_gives_windows_without_tids_their_positions_in_the_whole():
    vocab = Vocabulary()
    parts = [Window.from_transactions([["a"], ["b"]], vocab=vocab), Window.from_transactions([["c"]], vocab=vocab)]
    assert Window.concat(parts).tids == [0, 1, 2]


def test_an_item_interned_after_the_inverted_index_was_built_holds_no_transaction():
    # the vocabulary a window shares only grows: a later label's id is past the cached index
    window = Window.from_transactions([["a"], ["a", "b"]])
    assert window.tidset(1).tolist() == [1]
    later = window.vocab.intern("c")
    assert window.tidset(later).tolist() == []


def test_copies_of_one_vocabulary_are_checked_once_and_grow_alone():
    # detached() remembers the label tuples it has checked (QA: rechecking retail's whole
    # vocabulary for every window cost more than the checks); each copy still has its own map
    window = Window.from_transactions([["a", "b"], ["c"]])
    first, = detached(window)
    second, = detached(first)
    assert second.vocab is not first.vocab and second.vocab.labels is first.vocab.labels
    assert first.vocab.intern("z") == 3 and "z" not in second.vocab and "z" not in window.vocab
    assert list(second) == [["a", "b"], ["c"]] and detached(first)[0].vocab.labels == ("a", "b", "c", "z")


def test_a_window_refuses_tids_that_are_not_one_per_transaction():
    vocab = Vocabulary(["a", "b"])
    with pytest.raises(ValueError, match="tids must have one entry per transaction"):
        Window(vocab, [0, 1, 2], [0, 1], tids=["t0"])


def test_from_flat_sorts_each_transaction_of_a_window_whose_positions_times_items_pass_2_to_the_31():
    # the sort key is position * (largest id + 1) + id: 50,000 transactions over 50,000 items
    # reach 2.5e9, past int32, where a key computed in int32 wraps and mixes transactions
    n = 50_000
    ids = np.empty(2 * n, dtype=np.int32)
    ids[0::2], ids[1::2] = n - 1, np.arange(n) % (n - 1)
    window = Window.from_flat(Vocabulary(str(i) for i in range(n)), np.full(n, 2), ids)
    assert window.indptr[-1] == 2 * n
    expected = np.sort(ids.reshape(n, 2), axis=1).ravel()
    assert np.array_equal(window.indices, expected)


def test_slices_and_take_keep_the_tids_a_window_has():
    # a file's own tids (anonymize --window) must come out with their transactions
    window = Window.from_transactions([["a"], ["b"], ["c"]], tids=["v7", "v3", "v9"])
    assert [p.tids for p in window.slices(2)] == [["v7", "v3"], ["v9"]]
    assert window.take([2, 0]).tids == ["v9", "v7"]
    assert window.take([False, True, False]).tids == ["v3"]


def test_relabel_sorts_rows_next_to_empty_transactions():
    # rows that start or end the window empty share their boundary offset with a neighbour
    vocab = Vocabulary(["a", "b", "c"])
    for indptr, indices, rows in [([0, 0, 2], [2, 0], [[], ["a", "c"]]), ([0, 2, 2], [2, 0], [["a", "c"], []]),
                                  ([0, 0, 2, 2, 4], [1, 0, 2, 1], [[], ["a", "b"], [], ["b", "c"]])]:
        relabeled = Window(vocab, indptr, indices).relabel(Vocabulary(["a", "b", "c", "d"]))
        assert list(relabeled) == rows


def test_a_read_only_copy_made_writable_again_leaves_the_original_as_it_was():
    window = Window.from_transactions([["a", "b"], ["c"]])
    copy = window.read_only_copy()
    with pytest.raises(ValueError, match="read-only"):
        copy.indices[0] = 2
    copy.indices.flags.writeable = copy.indptr.flags.writeable = True
    copy.indices[:] = 2
    copy.indptr[1] = 0
    assert list(window) == [["a", "b"], ["c"]]


def test_detached_copies_share_no_memory_with_the_windows_they_copy():
    window = Window.from_transactions([["a", "b"], ["c"]])
    copy, = detached(window)
    assert not np.shares_memory(copy.indices, window.indices)
    assert not np.shares_memory(copy.indptr, window.indptr)
    assert window.indices.flags.writeable  # the plugin's own window is left as it was
    window.indices[0] = 2
    assert list(copy) == [["a", "b"], ["c"]]


def test_detached_windows_over_unrelated_vocabularies_keep_their_own_labels():
    # only labels that extend one another's share a snapshot: x, y is no prefix of a, b, c
    first = Window.from_transactions([["a", "b"], ["c"]])
    second = Window.from_transactions([["x"], ["y", "x"]])
    copies = detached(first, second)
    assert [list(copy) for copy in copies] == [[["a", "b"], ["c"]], [["x"], ["x", "y"]]]


def test_detached_refuses_a_vocabulary_with_a_label_that_is_not_a_str_or_is_there_twice():
    class NotStr(Vocabulary):  # the constructor refuses a label that is not a str; a subclass may show one
        __slots__ = ()

        @property
        def labels(self):
            return ("a", 7)

    with pytest.raises(ContractError, match="a label that is not a str, or one label twice"):
        detached(Window(NotStr(["a", "b"]), [0, 2], [0, 1]))

    class Twice(Vocabulary):
        __slots__ = ()

        @property
        def labels(self):
            return ("a", "a")

    with pytest.raises(ContractError, match="a label that is not a str, or one label twice"):
        detached(Window(Twice(["a", "b"]), [0, 2], [0, 1]))


def test_a_boolean_mask_longer_than_what_it_masks_is_refused():
    # a mask of another window's transactions or vocabulary is a plugin's mistake, not a choice
    window = Window.from_transactions([["a", "b"], ["c"]])
    with pytest.raises(ValueError, match=r"suppress was given a boolean mask of shape \(4,\); a mask holds one entry "
                                         r"per vocabulary item \(3\)"):
        window.suppress([True, False, False, False])
    with pytest.raises(ValueError, match=r"take was given a boolean mask of shape \(3,\); a mask holds one entry per "
                                         r"transaction \(2\)"):
        window.take([True, False, False])


def test_an_id_or_position_outside_the_window_is_refused_not_read_from_the_end():
    # vocab.ids() gives -1 for a label the vocabulary lacks, and numpy reads -1 as the last entry:
    # suppress(vocab.ids(["a", "z"])) removed a and, in silence, whatever item was interned last
    window = Window.from_transactions([["a", "b", "c"], ["c", "d"], ["c", "b"]])
    with pytest.raises(ValueError, match=r"suppress was given vocabulary item -1; vocabulary items run from 0 to 3 "
                                         r"\(Vocabulary.ids gives -1 for a label it lacks\)"):
        window.suppress(window.vocab.ids(["a", "z"]))
    with pytest.raises(ValueError, match=r"take was given transaction 3; transactions run from 0 to 2$"):
        window.take([0, 3])
    with pytest.raises(ValueError, match=r"keep_occurrences was given occurrence -2; occurrences run from 0 to 6$"):
        window.keep_occurrences([0, -2])
    assert list(window.suppress(window.vocab.ids(["a", "d"]))) == [["b", "c"], ["c"], ["b", "c"]]


def test_a_window_reads_its_tids_labels_in_id_order_and_every_item_as_a_column():
    vocab = Vocabulary(["b", "a", "unused"])
    window = Window(vocab, [0, 2, 3], [0, 1, 1], tids=["t9", "t2"])
    assert (window.tid(1), window.with_tids(None).tid(1)) == ("t2", 1)
    assert window.labels(0) == ["b", "a"]  # id order, as iteration gives them
    assert window.matrix().shape == (2, 3)  # an item no transaction holds is a column of zeros
    assert window.matrix().toarray().tolist() == [[1, 1, 0], [0, 1, 0]]


def test_empty_and_concat_of_nothing_keep_the_vocabulary_given():
    vocab = Vocabulary(["a"])
    for window in (Window.empty(vocab), Window.concat([], vocab)):
        assert (len(window), window.n_occurrences, window.tids, window.vocab) == (0, 0, [], vocab)
