"""records.record_columns takes a block of records at once only where parse_record would take each
(core/formats.py ``_at_once``): a record beside others of the shapes files hold - a boolean item
among strings and integers, a tid or subject past msgpack's integers beside one within them, a
time that is not finite or not a number - is read one record at a time and refused at its line,
with parse_record's words. Each case is one a mutant of record_columns took at once."""

import json

import msgpack
import pytest

from setveil.core.errors import InputError
from setveil.core.formats import read_window
from setveil.core.records import record_columns

OUTSIDE = "is an integer outside -2**63 to 2**64 - 1, which msgpack cannot hold; give it as a string"
#: a record beside one of BESIDE, and the refusal of it
FAULTS = [
    ({"items": ["b", 7, True]}, "item 2 is a boolean, expected a string or an integer"),
    ({"items": ["b"], "tid": -(2**63) - 1}, f"'tid' {OUTSIDE}"),
    ({"items": ["b"], "tid": 2**64}, f"'tid' {OUTSIDE}"),
    ({"items": ["b"], "subject": -(2**63) - 1}, f"'subject' {OUTSIDE}"),
    ({"items": ["b"], "subject": 2**64}, f"'subject' {OUTSIDE}"),
    ({"items": ["b"], "subject": True}, "'subject' is a boolean, expected a string or an integer"),
    ({"items": ["b"], "tid": 1.5}, "'tid' is a float, expected a string or an integer"),
    ({"items": ["b"], "ts": float("nan")}, "'ts' is not a finite number"),
    ({"items": ["b"], "ts": 10**400}, "'ts' is not a finite number"),
    ({"items": ["b"], "ts": True}, "'ts' is a boolean, expected a number"),
    ({"items": ["b"], "ts": "1"}, "'ts' is a string, expected a number"),
]
#: records of the shapes files hold: integer and text tids and subjects
BESIDE = [{"items": ["a"], "tid": 5, "subject": 1, "ts": 1.5}, {"items": ["a", 3], "tid": "t5", "subject": "s"}]


@pytest.mark.parametrize("beside", BESIDE, ids=["integers", "text"])
@pytest.mark.parametrize("record, reason", FAULTS, ids=[reason for _, reason in FAULTS])
def test_a_record_parse_record_refuses_is_refused_at_its_line(tmp_path, beside, record, reason):
    assert record_columns([beside, record]) is None
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(beside) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}:2: {reason}"
    try:
        packed = msgpack.packb(record)
    except OverflowError:  # msgpack holds no such integer
        return
    path = tmp_path / "in.msgpack"
    path.write_bytes(msgpack.packb(beside) + packed)
    with pytest.raises(InputError) as info:
        read_window(path)
    assert str(info.value) == f"{path}:2: {reason}"
