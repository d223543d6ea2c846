"""Cutting a partition into windows: no message lost or repeated, sizes and planned cuts kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.records import Record
from setveil.streams.windowing import Message, Windower

RECORD = Record(["a"])


def message(offset: int, size: int = 1, received: float = 0.0, nbytes: int = 0) -> Message:
    return Message(offset, [RECORD] * size, received, size=nbytes)


steps = st.lists(
    st.one_of(
        # the subject of each record of a message (None: a record without one)
        st.tuples(st.just("add"), st.lists(st.one_of(st.none(), st.integers(0, 4), st.just("0")), min_size=1, max_size=12)),
        st.tuples(st.just("bad"), st.just(0)),
        st.tuples(st.just("tick"), st.floats(0, 3)),
    ),
    max_size=80,
)


def transactions(messages, merge_subjects: bool) -> int:
    """What build_window makes of the messages: one transaction per record, or per subject."""
    records = [r for m in messages for r in m.records]
    if not merge_subjects:
        return len(records)
    return sum(r.subject is None for r in records) + len({r.subject for r in records if r.subject is not None})


@settings(max_examples=300, deadline=None)
@given(steps=steps, max_tx=st.integers(1, 30), min_tx=st.integers(1, 30), max_seconds=st.floats(0.5, 2),
       max_bytes=st.integers(1, 400), merge=st.booleans())
def test_windows_tile_the_accepted_messages(steps, max_tx, min_tx, max_seconds, max_bytes, merge):
    min_tx = min(min_tx, max_tx)
    windower = Windower(max_tx, min_tx, max_seconds, max_bytes=max_bytes, merge_subjects=merge)
    now, offset, accepted, windows = 0.0, 0, [], []
    for kind, value in steps:
        if kind == "add":
            records = [Record(["a"], subject=subject) for subject in value]
            windower.add(Message(offset, records, now, size=10 * len(records)))
            accepted.append(offset)
            offset += 1
        elif kind == "bad":
            windower.skip(offset)
            offset += 1
        elif kind == "tick":
            now += value
        for cut in windower.cuts(now):
            windows.append(cut)
            size = transactions(cut.messages, merge)
            assert size >= min_tx
            nbytes = sum(m.size for m in cut.messages)
            if (size > max_tx or nbytes > max_bytes) and len(cut.messages) > 1:
                # only when the largest window within the bounds would stay under min_tx
                assert transactions(cut.messages[:-1], merge) < min_tx
    emitted = [m.offset for w in windows for m in w.messages]
    held = [m.offset for m in windower.pending]
    assert emitted + held == accepted
    assert all(windower.held(m.offset) is m for m in windower.pending)
    assert not any(windower.held(offset) for offset in emitted)
    assert windower.pending_transactions == transactions(windower.pending, merge)
    assert windower.pending_transactions < max_tx
    assert windower.pending_bytes == sum(m.size for m in windower.pending)
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
