"""A worker builds a window's transactions a column at a time (streams/processor.py build_window:
each record's items, tid and subject taken at once, the labels numbered in C) where it went
through the records one by one in Python: whatever the cut, the window, its vocabulary, its tids,
what each transaction carries besides its items and the count of records are those the
straightforward build gives, with and without merged subjects."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.records import Record
from setveil.core.subjects import merge_records
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window
from setveil.streams.processor import build_window, default_tid
from setveil.streams.windowing import Cut, Message

RECORD = st.builds(Record, st.lists(st.sampled_from(["a", "b", "c", "7", "é", "x y"]), unique=True, max_size=4),
                   st.one_of(st.none(), st.integers(0, 5), st.sampled_from(["t", "0:1", ""])),
                   st.one_of(st.none(), st.none(), st.sampled_from(["", 0, 1, "s", "1"])))
CUT = st.lists(st.lists(RECORD, min_size=1, max_size=4), min_size=1, max_size=6).map(
    lambda messages: Cut([Message(10 + offset, records, 0.0) for offset, records in enumerate(messages)]))


def straightforward(cut: Cut, partition: int, merge_subjects: bool):
    """build_window as it was: each record in turn, its labels interned one by one."""
    invalid = cut.repeated_tids
    records = [(record.tid if record.tid is not None else default_tid(partition, message.offset, index,
                                                                        len(message.records) == 1),
                record.items, record.subject if merge_subjects else None)
               for message in cut.messages if message.offset not in invalid
               for index, record in enumerate(message.records)]
    transactions, fields = merge_records(records)
    interned: dict[str, int] = {}
    ids = [interned.setdefault(label, len(interned)) for items in transactions for label in items]
    lengths = np.fromiter(map(len, transactions), dtype=np.int64, count=len(transactions))
    window = Window.from_flat(Vocabulary(interned), lengths, np.array(ids, dtype=np.int32), [f["tid"] for f in fields])
    return window, fields, len(records)


@settings(max_examples=500, deadline=None)
@given(CUT, st.integers(0, 3), st.booleans())
def test_a_window_is_built_at_once_as_record_by_record(cut, partition, merge_subjects):
    built = build_window(cut, partition, merge_subjects)
    window, fields, records = straightforward(cut, partition, merge_subjects)
    assert built.window.vocab.labels == window.vocab.labels
    assert built.window.indptr.tolist() == window.indptr.tolist()
    assert built.window.indices.tolist() == window.indices.tolist()
    assert built.window.indices.dtype == window.indices.dtype
    assert [built.window.tid(p) for p in range(len(built.window))] == [window.tid(p) for p in range(len(window))]
    assert built.fields == fields
    assert [[*map(type, f.values())] for f in built.fields] == [[*map(type, f.values())] for f in fields]
    assert built.records == records


def test_falsy_subjects_are_merged():
    """A subject of "" or 0 is a subject: its records merge, as those of any other."""
    cut = Cut([Message(0, [Record(["a"], 1, ""), Record(["b"], 2, "")], 0.0),
               Message(1, [Record(["c"], 3, 0), Record(["a"], 4, 0)], 0.0)])
    built = build_window(cut, 0, True)
    assert built.fields == [{"tid": 1, "tids": [1, 2]}, {"tid": 3, "tids": [3, 4]}]
    assert [*built.window] == [["a", "b"], ["a", "c"]]
