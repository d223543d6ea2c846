"""A message decoded at once is carried to the window builder as columns (streams/codec.py
``MessageRecords``: each record's number of items, the labels one record after another, the
tids, subjects and times), with no object per record, and the windower and the window builder
take the columns. Whatever the messages - random and malformed, with repeated keys, wrong types,
invalid UTF-8, cut short, huge integers, booleans as tids, subjects, fields of their own - the
dead letters, kinds and reasons alike, the windows, their tids, what each transaction carries
besides its items and the batch's bytes are those of the records decoded one at a time and built
record by record, as a worker did before."""

import itertools

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from setveil.core.records import Record
from setveil.core.subjects import merge_records
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window
from setveil.streams import codec
from setveil.streams.codec import MessageRecords, WindowRef, decode_message, encode_batch
from setveil.streams.processor import build_window, default_tid
from setveil.streams.windowing import Cut, Message

from .test_codec_messages_at_once import CUTS, MESSAGE, mutated, one_by_one, outcome, packed

REF = WindowRef("in", 3, 10, 19, 10, 1.5, 2.5)
MODEL = {"name": "coherence", "policy": "global", "parameters": {"h": 0.4, "k": 5}}
METRICS = {"transactions": 3, "records": 4, "information_loss": 0.25, "loss_metric": None}


def repeated_tids(messages: list[tuple[int, list[Record]]]) -> dict[int, str]:
    """Cut.repeated_tids as it went through each message's records."""
    seen: dict = {}
    out: dict[int, str] = {}
    for offset, records in messages:
        clash = next(((index, seen[record.tid]) for index, record in enumerate(records)
                      if record.tid is not None and record.tid in seen), None)
        if clash is None:
            seen.update((record.tid, offset) for record in records if record.tid is not None)
            continue
        index, first = clash
        prefix = f"record {index} of the array: " if len(records) > 1 else ""
        out[offset] = f"{prefix}'tid' repeats that of a record at offset {first}, in the same window"
    return out


def record_by_record(messages: list[tuple[int, list[Record]]], partition: int, merge_subjects: bool):
    """The window, the fields, the count of records and the batch a worker made of records one by
    one, each record's items a list of its own, its labels interned in turn."""
    invalid = repeated_tids(messages)
    records = [(record.tid if record.tid is not None else default_tid(partition, offset, index, len(taken) == 1),
                record.items, record.subject if merge_subjects else None)
               for offset, taken in messages if offset not in invalid for index, record in enumerate(taken)]
    transactions, fields = merge_records(records)
    interned: dict[str, int] = {}
    ids = [interned.setdefault(label, len(interned)) for items in transactions for label in items]
    window = Window.from_flat(Vocabulary(interned), np.array([*map(len, transactions)], np.int64),
                              np.array(ids, np.int32), [extra["tid"] for extra in fields])
    batch = encode_batch(REF, MODEL, True, METRICS, [{**extra, "items": items} for extra, items in zip(fields, window)])
    return invalid, window, fields, len(records), batch


def assert_same_windows(values: list[bytes], partition: int, merge_subjects: bool) -> None:
    decoded = [outcome(lambda data: decode_message(data, 1 << 20), value) for value in values]
    expected = [outcome(one_by_one, value) for value in values]
    assert [outcome if kind == "rejected" else [*outcome] for kind, outcome in decoded] == \
           [outcome for _, outcome in expected]
    accepted = [(offset, outcome) for offset, (kind, outcome) in enumerate(expected, 10) if kind == "records"]
    if not accepted:
        return
    cut = Cut([Message(offset, records, 0.0) for offset, (kind, records) in enumerate(decoded, 10)
               if kind == "records"])
    invalid, window, fields, records, batch = record_by_record(accepted, partition, merge_subjects)
    assert cut.repeated_tids == invalid
    built = build_window(cut, partition, merge_subjects)
    assert built.window.vocab.labels == window.vocab.labels
    assert built.window.indptr.tolist() == window.indptr.tolist()
    assert built.window.indices.tolist() == window.indices.tolist()
    assert built.window.indices.dtype == window.indices.dtype
    assert [built.window.tid(p) for p in range(len(window))] == [window.tid(p) for p in range(len(window))]
    assert [[*map(type, extra.values())] for extra in built.fields] == \
           [[*map(type, extra.values())] for extra in fields]
    assert (built.fields, built.records) == (fields, records)
    assert codec.encode_released(REF, MODEL, True, METRICS, built.fields, built.window) == batch


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(MESSAGE, CUTS, st.integers(0, 10**6)), min_size=1, max_size=6), st.integers(0, 3),
       st.booleans())
@example([(packed([{"items": [7, "a"]}, {"items": ["a", 7, "7"]}]), "none", 0)], 0, False)
@example([(packed([{"items": ["a"], "tid": 1, "subject": "s"}, {"items": ["b"], "subject": "s"}]), "none", 0),
          (packed({"items": ["a", "c"], "tid": 1}), "none", 0), (packed({"items": ["c"], "subject": 0}), "none", 0)],
         1, True)
def test_windows_of_columns_are_those_of_records_one_by_one(messages, partition, merge_subjects):
    assert_same_windows([mutated(value, how, where) for value, how, where in messages], partition, merge_subjects)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.fixed_dictionaries(
    {"items": st.lists(st.sampled_from(["a", "b", "é", "7", 7, 8, 2**64 - 1]), unique_by=str, max_size=4)},
    optional={"tid": st.one_of(st.integers(0, 4), st.sampled_from(["0", "t", "10:0", 2**64 - 1, -(2**63)])),
              "subject": st.sampled_from(["", 0, 1, "1", "s"]), "ts": st.sampled_from([1, 2.5, -3]),
              "other": st.sampled_from([{"k": [1]}, "x"])}),
    min_size=1, max_size=5, unique_by=lambda record: (type(record["tid"]), record["tid"]) if "tid" in record
    else id(record)),
    min_size=1, max_size=6),
    st.integers(0, 3), st.booleans(), st.booleans())
def test_well_formed_messages_are_taken_at_once_into_the_same_windows(messages, partition, merge_subjects, single):
    """Messages as msgpack packs them, each taken at once: tids repeated across messages (a window
    leaves such a message out), records without tids (given their place in the log), integer
    items, subjects merged or not."""
    values = [msgpack.packb(records[0] if single and len(records) == 1 else records) for records in messages]
    assert all(isinstance(codec._at_once(value), MessageRecords) for value in values)
    assert_same_windows(values, partition, merge_subjects)


def test_a_message_taken_at_once_is_columns_with_no_record_made():
    value = msgpack.packb([{"tid": 4, "items": ["a", 7], "subject": "s", "ts": 2, "other": {"k": 1}},
                           {"items": []}, {"items": ["b"], "tid": "t"}])
    made = []
    original = Record.__init__

    def counted(self, *args, **kwargs):
        made.append(args)
        original(self, *args, **kwargs)
    Record.__init__ = counted
    try:
        records = decode_message(value, 1 << 20)
        cut = Cut([Message(5, records, 0.0)])
        built = build_window(cut, 0, False)
    finally:
        Record.__init__ = original
    assert made == []
    assert (records.lengths, records.labels, records.tids, records.subjects, records.times) == \
           ([2, 0, 1], ["a", "7", "b"], [4, None, "t"], ["s", None, None], [2.0, None, None])
    assert [*built.window] == [["a", "7"], [], ["b"]]
    assert built.fields == [{"tid": 4}, {"tid": "0:5:1"}, {"tid": "t"}]


def test_the_columns_are_a_sequence_of_the_records():
    records = [Record(["a", "b"], 1, "s", 1.5), Record([], None, None, None), Record(["c"], "t", 0, None)]
    columns = MessageRecords.of(records)
    assert columns == records and records == columns and columns == MessageRecords.of(records)
    assert columns != records[:2] and columns != tuple(records)
    assert [*columns] == records and len(columns) == 3
    assert [columns[index] for index in range(-3, 3)] == records + records
    assert columns[1:] == records[1:] and columns[::-2] == records[::-2]
    assert columns.items() == [["a", "b"], [], ["c"]]
    with pytest.raises(IndexError):
        columns[3]
    with pytest.raises(TypeError):
        hash(columns)
    assert [*itertools.chain.from_iterable(Message(0, records, 0.0).records.items())] == ["a", "b", "c"]
