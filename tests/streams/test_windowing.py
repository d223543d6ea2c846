"""Cutting a partition into windows: no message lost or repeated, sizes and planned cuts kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.records import Record
from setveil.streams.windowing import Cut, Message, Windower

RECORD = Record(["a"])


def message(offset: int, size: int = 1, received: float = 0.0, nbytes: int = 0) -> Message:
    return Message(offset, [RECORD] * size, received, size=nbytes)


steps = st.lists(
    st.one_of(
        # messages taken in at once (as a fetch brings them: a cut can leave some held), each the
        # subject and tid of each of its records (None: a record without one); few tids, so that
        # messages repeat them, and arrays of several, so that repeats chain
        st.tuples(st.just("add"), st.lists(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 4), st.just("0")),
                                                              st.one_of(st.none(), st.integers(0, 5))),
                                                    min_size=1, max_size=3), min_size=1, max_size=8)),
        st.tuples(st.just("bad"), st.just(0)),
        st.tuples(st.just("tick"), st.floats(0, 3)),
        # a window logged before a restart ends this many offsets on
        st.tuples(st.just("plan"), st.integers(0, 6)),
    ),
    max_size=80,
)


def transactions(messages, merge_subjects: bool) -> int:
    """What build_window makes of the messages as one window: one transaction per record, or
    per subject, of the messages that repeat no tid of the window."""
    left_out = Cut(list(messages)).repeated_tids
    records = [r for m in messages if m.offset not in left_out for r in m.records]
    if not merge_subjects:
        return len(records)
    return sum(r.subject is None for r in records) + len({r.subject for r in records if r.subject is not None})


def assert_counted_afresh(windower: Windower) -> None:
    """The pending messages are counted as a windower that was given only them counts them."""
    fresh = Windower(windower.max_transactions, windower.min_transactions, windower.max_seconds,
                     merge_subjects=windower.merge_subjects)
    for message in windower.pending:
        fresh.add(message)
    assert windower.pending_transactions == fresh.pending_transactions
    assert windower.pending_transactions == transactions(windower.pending, windower.merge_subjects)
    # dicts, not Counters: a Counter takes a subject left at 0 for one not there, and a worker
    # that kept one for every subject it ever saw would grow without bound
    assert (windower._repeated, windower._holder, windower._where, dict(windower._subjects)) == (
        fresh._repeated, fresh._holder, fresh._where, dict(fresh._subjects))
    assert windower._repeated == set(Cut(list(windower.pending)).repeated_tids)


# windows of a few transactions often too: cut in the middle of a fetch, they leave some of it held
@settings(max_examples=400, deadline=None)
@given(steps=steps, max_tx=st.one_of(st.integers(1, 4), st.integers(1, 30)), min_tx=st.integers(1, 30),
       max_seconds=st.floats(0.5, 2), max_bytes=st.integers(1, 400), merge=st.booleans())
def test_windows_tile_the_accepted_messages(steps, max_tx, min_tx, max_seconds, max_bytes, merge):
    min_tx = min(min_tx, max_tx)
    windower = Windower(max_tx, min_tx, max_seconds, max_bytes=max_bytes, merge_subjects=merge)
    pop = windower._pop

    def pop_and_check(count: int) -> list[Message]:
        # after each cut, not only after the last of a step: a wrong count a later cut of the
        # same step happened to mend would change where that cut is made
        taken = pop(count)
        assert_counted_afresh(windower)
        return taken

    windower._pop = pop_and_check
    now, offset, accepted, windows = 0.0, 0, [], []
    for kind, value in steps:
        if kind == "add":
            for fields in value:
                # a message's own records repeat no tid (decode_message refuses it)
                tids = [tid if tid not in [t for _, t in fields[:index]] else None
                        for index, (_, tid) in enumerate(fields)]
                records = [Record(["a"], tid=tid, subject=subject) for (subject, _), tid in zip(fields, tids)]
                windower.add(Message(offset, records, now, size=10 * len(records)))
                accepted.append(offset)
                offset += 1
        elif kind == "bad":
            windower.skip(offset)
            offset += 1
        elif kind == "tick":
            now += value
        elif kind == "plan":
            windower.plan([offset + value])
        cuts = windower.cuts(now)
        for index, cut in enumerate(cuts):
            assert cut.messages  # a window of nothing has no offsets, hence no id
            windows.append(cut)
            if cut.planned:
                continue  # honoured whatever its size
            size = transactions(cut.messages, merge)
            assert size >= min_tx
            nbytes = sum(m.size for m in cut.messages)
            if (size > max_tx or nbytes > max_bytes) and len(cut.messages) > 1:
                # only when the largest window within the bounds would stay under min_tx
                assert transactions(cut.messages[:-1], merge) < min_tx
            following = (cuts[index + 1].messages if index + 1 < len(cuts) else list(windower.pending))[:1]
            if size <= max_tx and nbytes <= max_bytes and following:
                # the largest window within the bounds: one message more would leave them
                assert (transactions(cut.messages + following, merge) > max_tx
                        or nbytes + following[0].size > max_bytes)
        assert_counted_afresh(windower)
    emitted = [m.offset for w in windows for m in w.messages]
    held = [m.offset for m in windower.pending]
    assert emitted + held == accepted
    assert all(windower.held(m.offset) is m for m in windower.pending)
    assert not any(windower.held(offset) for offset in emitted)
    assert windower.pending_bytes == sum(m.size for m in windower.pending)
    if not windower.cut_points:
        assert windower.pending_transactions < max_tx
        assert windower.pending_bytes < max_bytes or windower.pending_transactions < min_tx  # held for the minimum


def test_with_merged_subjects_a_window_of_fewer_subjects_than_the_minimum_is_held():
    # Regression (QA as a batch consumer): 300 records of 4 subjects passed min_transactions = k = 5
    # as 300 transactions and the window failed closed as infeasible with 4
    windower = Windower(max_transactions=1000, min_transactions=5, max_seconds=1.0, merge_subjects=True)
    windower.add(Message(0, [Record(["a"], subject=i % 4) for i in range(300)], 0.0))
    assert windower.cuts(now=10.0) == [] and windower.pending_transactions == 4
    windower.add(Message(1, [Record(["a"], subject=9), Record(["b"])], 10.0))
    (cut,) = windower.cuts(now=20.0)
    assert (cut.first_offset, cut.last_offset, windower.pending_transactions) == (0, 1, 0)


def test_old_windows_are_cut_by_time_small_ones_held():
    windower = Windower(max_transactions=100, min_transactions=5, max_seconds=1.0)
    windower.add(message(0, 3, received=0.0))
    assert windower.cuts(now=5.0) == []  # 3 < min: held although old
    windower.add(message(1, 3, received=5.0))
    (cut,) = windower.cuts(now=5.5)  # the oldest waited 5.5 s >= 1 s
    assert (cut.first_offset, cut.last_offset, cut.transactions) == (0, 1, 6)


def test_a_window_is_cut_when_its_oldest_message_is_exactly_max_seconds_old():
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=1.0)
    windower.add(message(0, 3, received=2.0))
    assert windower.cuts(now=2.5) == []
    (cut,) = windower.cuts(now=3.0)
    assert cut.transactions == 3


def test_planned_cuts_come_first_whatever_the_size_or_age():
    windower = Windower(max_transactions=4, min_transactions=1, max_seconds=1.0)
    windower.plan([2, 6])
    for offset in range(4):
        windower.add(message(offset, 2))
    # offset 2 ends a planned window of 6 transactions (> max): kept as it was emitted before
    cuts = windower.cuts(now=10.0)
    assert [(c.first_offset, c.last_offset, c.planned) for c in cuts] == [(0, 2, True)]
    assert [m.offset for m in windower.pending] == [3]  # waits for offset 6 although old
    windower.skip(4)
    windower.add(message(5, 1))
    windower.skip(6)  # the planned end was dead-lettered: the window ends before it
    windower.add(message(7, 1))
    cuts = windower.cuts(now=10.0)
    assert [(c.first_offset, c.last_offset, c.planned) for c in cuts] == [(3, 5, True), (7, 7, False)]


def test_stale_plans_are_ignored():
    windower = Windower(max_transactions=4, min_transactions=1, max_seconds=1.0)
    windower.add(message(10))
    windower.plan([5, 9, 12, 11])
    assert list(windower.cut_points) == [12]


def test_held_finds_only_messages_still_held():
    windower = Windower(max_transactions=3, min_transactions=1, max_seconds=60)
    for offset in range(4):
        windower.add(Message(offset, [Record([f"i{offset}"], None, None, None)], 0.0))
    [cut] = windower.cuts(0.0)
    assert [m.offset for m in cut.messages] == [0, 1, 2]
    assert windower.held(1) is None and windower.held(3).offset == 3 and windower.held(4) is None
    assert windower.seen == 3


def test_a_window_is_cut_by_bytes_too():
    # Regression (QA as a security reviewer): windows were bounded by transactions alone, and
    # records of a megabyte each made a batch the producer refused
    w = Windower(max_transactions=100, min_transactions=1, max_seconds=60, max_bytes=100)
    for offset in range(3):
        w.add(Message(offset, [RECORD], 0.0, size=40))
    (cut,) = w.cuts(now=0.0)
    assert [m.offset for m in cut.messages] == [0, 1] and w.pending_bytes == 40
    w.add(Message(3, [RECORD], 0.0, size=500))  # larger than the bound alone: a window of its own
    assert [[m.offset for m in c.messages] for c in w.cuts(now=0.0)] == [[2], [3]]
    assert w.pending_bytes == 0


def test_the_minimum_outweighs_the_byte_bound():
    w = Windower(max_transactions=100, min_transactions=3, max_seconds=60, max_bytes=100)
    for offset in range(3):
        w.add(Message(offset, [RECORD], 0.0, size=60))
    (cut,) = w.cuts(now=0.0)
    assert cut.transactions == 3


def test_a_planned_window_is_cut_as_soon_as_its_last_message_is_seen():
    # a re-delivered window that ends at the partition's last message must not wait for a later one
    # (none may come): it is emitted again with the boundaries, hence the id, it had
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([2])
    for offset in range(3):
        windower.add(message(offset))
    assert [(c.first_offset, c.last_offset, c.planned) for c in windower.cuts(now=0.0)] == [(0, 2, True)]


def test_a_planned_window_of_one_message_is_cut_alone():
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([0, 2])
    for offset in range(3):
        windower.add(message(offset))
    cuts = windower.cuts(now=0.0)
    assert [(c.first_offset, c.last_offset) for c in cuts] == [(0, 0), (1, 2)]


def test_a_replan_keeps_a_cut_at_the_first_held_message():
    # another worker emitted the window of offset 5 alone: this one must cut it there too
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    for offset in (5, 6, 7):
        windower.add(message(offset))
    windower.replan([4, 5, 7])
    cuts = windower.cuts(now=0.0)
    assert [(c.first_offset, c.last_offset) for c in cuts] == [(5, 5), (6, 7)]


def test_a_dead_letter_below_an_accepted_offset_does_not_move_seen_back():
    # the service adds a fetch's accepted messages first and skips its dead letters after them:
    # seen moving back would take a re-delivery of offset 2 for a new message (a transaction twice)
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([2])
    windower.add(message(0))
    windower.add(message(2))
    windower.skip(1)
    assert windower.seen == 2
    assert [(c.first_offset, c.last_offset) for c in windower.cuts(now=0.0)] == [(0, 2)]


def tid_message(offset: int, *tids, received: float = 0.0, subjects=None) -> Message:
    """A message of one record per tid (None: a record without one)."""
    subjects = subjects or [None] * len(tids)
    return Message(offset, [Record([f"i{offset}"], tid=tid, subject=subject) for tid, subject in zip(tids, subjects)],
                   received)


def test_a_window_that_leaving_out_its_repeated_tids_would_leave_short_is_held():
    # Regression: the message repeating tid 1 counted towards min_transactions; the window of five
    # messages was cut, held four transactions once it was left out, and failed closed as infeasible
    windower = Windower(max_transactions=100, min_transactions=5, max_seconds=1.0)
    for offset, tid in enumerate([0, 1, 2, 1, 3]):
        windower.add(tid_message(offset, tid))
        assert windower.cuts(now=10.0) == []
    assert windower.pending_transactions == 4
    windower.add(tid_message(5, 4))
    (cut,) = windower.cuts(now=10.0)
    assert len(cut.messages) == 6 and list(cut.repeated_tids) == [3]
    assert windower.pending_transactions == 0


def test_a_window_is_full_only_with_transactions_it_will_hold():
    windower = Windower(max_transactions=3, min_transactions=1, max_seconds=60)
    for offset, tid in enumerate([1, 1, 2]):
        windower.add(tid_message(offset, tid))
    assert windower.cuts(now=0.0) == [] and windower.pending_transactions == 2
    for offset, tid in enumerate([2, 3, 4], start=3):
        windower.add(tid_message(offset, tid))
    # the size cut ends at a message boundary counted the same way: a repeat adds no transaction,
    # so the one of tid 2 at offset 3 goes with the window whose message it repeats
    (cut,) = windower.cuts(now=0.0)
    assert [m.offset for m in cut.messages] == [0, 1, 2, 3, 4] and list(cut.repeated_tids) == [1, 3]
    assert [m.offset for m in windower.pending] == [5] and windower.pending_transactions == 1


def test_repeats_are_counted_within_the_window_a_message_will_be_in():
    # B repeats A's tid 1, so C's tid 2 repeats nothing in A's window (B is left out of it); cut
    # after A, B repeats nothing and C repeats B's tid 2
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([0])
    windower.add(tid_message(0, 1))
    windower.add(tid_message(1, 1, 2))
    windower.add(tid_message(2, 2, 3, 4))
    assert windower.pending_transactions == 4  # A's one transaction and C's three
    (cut,) = windower.cuts(now=0.0)
    assert [m.offset for m in cut.messages] == [0] and cut.planned
    assert windower.pending_transactions == 2  # B's two; C is a repeat now
    assert list(Cut(list(windower.pending)).repeated_tids) == [2]


def test_a_tid_a_cut_takes_away_goes_to_the_first_later_message_that_repeats_no_other():
    # A holds tid 1, so B and D repeat it; B repeats C's tid 2 too. Cut after A, B still repeats
    # (C's tid 2) and D, the next with tid 1, no longer does.
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([0])
    for offset, tids in enumerate([(1,), (2,), (1, 2), (1,)]):
        windower.add(tid_message(offset, *tids))
    assert windower.pending_transactions == 2
    (cut,) = windower.cuts(now=0.0)
    assert [m.offset for m in cut.messages] == [0]
    assert windower.pending_transactions == 2  # C's and D's
    assert list(Cut(list(windower.pending)).repeated_tids) == [2]


def test_with_merged_subjects_a_repeated_message_counts_for_no_subject():
    windower = Windower(max_transactions=100, min_transactions=3, max_seconds=1.0, merge_subjects=True)
    windower.add(tid_message(0, 1, 2, subjects=["s", "t"]))
    windower.add(tid_message(1, 3, 1, subjects=["u", None]))  # repeats tid 1: subject u is in no window
    assert windower.cuts(now=10.0) == [] and windower.pending_transactions == 2
    windower.add(tid_message(2, 5, subjects=["u"]))
    (cut,) = windower.cuts(now=10.0)
    assert len(cut.messages) == 3 and list(cut.repeated_tids) == [1]


def test_a_window_whose_messages_reach_max_bytes_exactly_is_cut_at_once():
    # "as soon as ... messages of max_bytes in all" are pending: not max_seconds later
    w = Windower(max_transactions=100, min_transactions=1, max_seconds=60, max_bytes=100)
    w.add(Message(0, [RECORD], 0.0, size=40))
    assert w.cuts(now=0.0) == []
    w.add(Message(1, [RECORD], 0.0, size=60))
    assert [[m.offset for m in c.messages] for c in w.cuts(now=0.0)] == [[0, 1]]


def test_a_planned_window_whose_messages_were_all_dead_lettered_is_no_window():
    windower = Windower(max_transactions=100, min_transactions=1, max_seconds=60)
    windower.plan([1, 3])
    windower.add(message(0))
    windower.skip(1)
    assert [(c.first_offset, c.last_offset) for c in windower.cuts(now=0.0)] == [(0, 0)]
    windower.skip(2)
    windower.skip(3)
    assert windower.cuts(now=0.0) == [] and not windower.cut_points
    windower.add(message(4))
    assert [(c.first_offset, c.last_offset, c.planned) for c in windower.cuts(now=60.0)] == [(4, 4, False)]


def test_a_repeated_tid_is_named_by_the_offset_that_has_it_and_the_record_that_repeats_it():
    # the dead letter's reason: which record of an array, which offset, never the tid itself
    cut = Cut([tid_message(0, "patient-7"), tid_message(1, "patient-7"), tid_message(2, None, "patient-7")])
    assert cut.repeated_tids == {
        1: "'tid' repeats that of a record at offset 0, in the same window",
        2: "record 1 of the array: 'tid' repeats that of a record at offset 0, in the same window"}


def test_the_first_unwindowed_offset_is_the_first_held_one_or_the_one_after_everything_seen():
    # where a replan reads the window log from, and the lag gauge counts from
    windower = Windower(max_transactions=2, min_transactions=1, max_seconds=60)
    assert windower.first_unwindowed == 0
    windower.add(message(3))
    assert windower.first_unwindowed == 3
    windower.add(message(4))
    windower.skip(5)
    assert [(c.first_offset, c.last_offset) for c in windower.cuts(now=0.0)] == [(3, 4)]
    assert windower.first_unwindowed == 6
