"""The release tail and the demo read back, held compact (streams/released.py): it must read as
the same transactions, labels and windows as the batches gave, whatever order they came in."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from setveil.core.window import Window
from setveil.streams.released import Released, ReleaseError

labels = st.sampled_from(["a", "b", "c", "New York", "é", "\ufeffHIV", "10", "2"])
transactions = st.lists(st.lists(labels, unique=True, max_size=5), max_size=40)


@given(transactions, st.randoms(use_true_random=False), st.integers(1, 7))
def test_batches_in_any_order_read_back_as_the_transactions_by_tid(rows, random, per_batch):
    tids = list(range(len(rows)))
    random.shuffle(tids)  # two partitions' windows interleave the tids
    release = Released()
    windows = {}
    for start in range(0, len(tids), per_batch):
        window_id = f"in/{start % 2}/{start}-{start + per_batch - 1}"
        chosen = tids[start:start + per_batch]
        release.add(window_id, [{"tid": tid, "items": rows[tid]} for tid in chosen])
        windows.update(dict.fromkeys(chosen, window_id))
    window, named = release.numbered()
    # the vocabulary a release read from a file would have: labels in the order first named
    expected = Window.from_transactions(rows, tids=list(range(len(rows))))
    assert [sorted(row) for row in window] == [sorted(row) for row in rows]
    assert window.vocab.labels == expected.vocab.labels
    assert list(window) == list(expected) and [window.tid(i) for i in range(len(window))] == expected.tids
    assert named == [windows[tid] for tid in range(len(rows))]
    assert len(release) == len(rows)


def test_a_repeated_tid_names_both_windows_never_the_tid():
    for tid in (7, 1 << 40, -3, "SECRET-PATIENT-7"):
        release = Released()
        release.add("in/0/0-9", [{"tid": 1, "items": ["a"]}, {"tid": tid, "items": ["b"]}])
        with pytest.raises(ReleaseError) as info:
            release.add("in/1/0-9", [{"tid": tid, "items": ["a"]}])
        assert str(info.value) == "windows in/0/0-9 and in/1/0-9 release one tid under different window ids"
    release = Released()
    with pytest.raises(ReleaseError, match="windows in/0/0-9 and in/0/0-9"):
        release.add("in/0/0-9", [{"tid": 4, "items": ["a"]}, {"tid": 4, "items": ["b"]}])


def test_a_repeated_tid_names_forged_window_ids_by_their_first_80_characters():
    # Regression (hostile-input pass): any producer may write the output topic, and a window id of
    # a million characters was shown whole
    release = Released()
    release.add("w" * 1_000_000, [{"tid": 1, "items": ["a"]}])
    with pytest.raises(ReleaseError) as info:
        release.add("in/1/0-9", [{"tid": 1, "items": ["a"]}])
    assert str(info.value) == f"windows {'w' * 80}… and in/1/0-9 release one tid under different window ids"
    with pytest.raises(ReleaseError) as info:
        release.add("v" * 1_000_000, [{"tid": 1, "items": ["a"]}])
    assert str(info.value) == f"windows {'w' * 80}… and {'v' * 80}… release one tid under different window ids"


def test_tids_other_than_0_to_n_minus_1_are_ordered_but_not_numbered():
    release = Released()
    release.add("in/0/0-1", [{"tid": 1 << 40, "items": ["b"]}, {"tid": 5, "items": ["a", "b"]}])
    window, named = release.by_tid()
    assert window.tids == [5, 1 << 40] and list(window) == [["a", "b"], ["b"]] and named == ["in/0/0-1"] * 2
    with pytest.raises(ReleaseError, match="2 tids are missing"):
        release.numbered()
    empty = Released()
    assert len(empty.numbered()[0]) == 0


def test_each_tid_of_an_added_batch_is_refused_again():
    # tids below 2**26 share a bitmap, eight to a byte: marking one must not unmark its neighbours
    release = Released()
    release.add("in/0/0-19", [{"tid": tid, "items": ["a"]} for tid in range(20)])
    for tid in range(20):
        with pytest.raises(ReleaseError, match="windows in/0/0-19 and in/1/0-0"):
            release.add("in/1/0-0", [{"tid": tid, "items": ["a"]}])
    assert len(release) == 20


def test_a_tid_beyond_64_bits_is_held_and_out_refuses_it_by_name():
    release = Released()
    release.add("in/0/0-1", [{"tid": 1 << 70, "items": ["a"]}, {"tid": 0, "items": ["b"]}])
    with pytest.raises(ReleaseError, match="windows in/0/0-1 and in/0/2-2"):
        release.add("in/0/2-2", [{"tid": 1 << 70, "items": ["a"]}])
    for read in (release.by_tid, release.numbered):
        with pytest.raises(ReleaseError, match="--out needs integer tids 0..n-1"):
            read()


def test_the_tids_missing_from_0_to_n_minus_1_are_counted_past_negative_ones():
    release = Released()
    release.add("in/0/0-2", [{"tid": -1, "items": ["a"]}, {"tid": 0, "items": ["b"]}, {"tid": 1, "items": ["a"]}])
    with pytest.raises(ReleaseError, match="not every tid from 0 to 2: 1 tid is missing"):
        release.numbered()
