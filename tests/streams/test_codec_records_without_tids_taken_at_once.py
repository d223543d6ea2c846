"""An array of records of which several carry no tid, as a producer that leaves numbering to the
worker sends them, is decoded at once (streams/codec.py ``_at_once``): records without a tid are
not two records of one transaction, so the message is not left to the one-by-one decoding, the
slower path, and its records are those that decoding gives."""

import msgpack
import pytest

from setveil.streams import codec


@pytest.mark.parametrize("records", [
    [{"items": ["a"]}, {"items": ["b", 7]}],
    [{"items": ["a"], "tid": 1}, {"items": ["b"]}, {"items": []}, {"items": ["c"], "tid": "1"}],
    [{"items": ["a"], "subject": "s"}, {"items": ["b"], "subject": "s", "ts": 2}],
])
def test_records_without_a_tid_are_taken_at_once(records):
    value = msgpack.packb(records)
    taken = codec._at_once(value)
    assert taken is not None
    assert taken == codec._one_by_one(value)
    assert [record.tid for record in taken] == [record.get("tid") for record in records]
