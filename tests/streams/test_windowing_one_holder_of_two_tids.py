"""A cut that makes a message repeat no tid any longer, when a later message holds two of its tids:
that message is decided again once, and the pending messages are counted as a windower given only
them counts them."""

from __future__ import annotations

from setveil.streams.windowing import Cut, Windower

from .test_windowing import assert_counted_afresh, tid_message


def test_a_later_message_holding_two_tids_of_one_that_stops_repeating_comes_to_repeat_them():
    # A holds tid 3, so B (tids 1, 2, 3) repeats it and C takes tids 1 and 2. Cut after A, B repeats
    # nothing and holds 1 and 2, which C then repeats: C is reached through both of B's tids
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([0])
    windower.add(tid_message(0, 3))
    windower.add(tid_message(1, 1, 2, 3))
    windower.add(tid_message(2, 1, 2))
    assert windower.pending_transactions == 3  # A's one transaction and C's two
    (cut,) = windower.cuts(now=0.0)
    assert [m.offset for m in cut.messages] == [0]
    assert windower.pending_transactions == 3  # B's three; C is a repeat now
    assert windower._repeated == {2} and windower._holder == {1: 1, 2: 1, 3: 1}
    assert list(Cut(list(windower.pending)).repeated_tids) == [2]
    assert_counted_afresh(windower)
