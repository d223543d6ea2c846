"""tail at a message of the output topic that is no batch: its ce_type is read before its value, so
a dead letter or another producer's record is named by what it is, never by why its value does not
decode, and nothing of the value is shown."""

import json
from types import SimpleNamespace

import msgpack
import pytest

from setveil.streams.codec import BATCH_TYPE, REJECTED_RECORD_TYPE, REJECTED_WINDOW_TYPE
from setveil.streams.released import ReleaseError
from setveil.streams.tail import _batch_of

BATCH = msgpack.packb({"schema": "setveil.batch/1", "verified": True, "transactions": [],
                       "window": {"id": "in/0/0-0", "partition": 0, "opened": 1.0, "closed": 2.0},
                       "metrics": {"items_in": 0, "information_loss": 0.0}})
SECRET = json.dumps({"patient": "p-77", "items": ["secret-diagnosis"]}).encode()
STOPS = "; tail stops rather than skip it"


def message(value, ce_type: str | bytes | None):
    if isinstance(ce_type, str):
        ce_type = ce_type.encode()
    headers = None if ce_type is None else [("ce_specversion", b"1.0"), ("ce_type", ce_type)]
    return SimpleNamespace(value=value, headers=headers, topic="out", partition=1, offset=2)


def stopped_at(value, ce_type: str | bytes | None) -> str:
    with pytest.raises(ReleaseError) as stopped:
        _batch_of(message(value, ce_type))
    assert "secret" not in str(stopped.value) and "p-77" not in str(stopped.value)
    return str(stopped.value)


@pytest.mark.parametrize("value, ce_type", [
    # a window dead letter's value is msgpack of another schema: it was 'a newer setveil may have written it'
    (msgpack.packb({"schema": "setveil.rejected-window/1", "cause": "infeasible"}), REJECTED_WINDOW_TYPE),
    # a record dead letter's value is the producer's own bytes
    (SECRET, REJECTED_RECORD_TYPE),
], ids=["window", "record"])
def test_a_dead_letter_is_named_as_one(value, ce_type):
    assert stopped_at(value, ce_type) == (
        f"out/1/2 is not a setveil.batch/1 message (ce_type {ce_type}): it is a dead letter, which setveil tail "
        f"--dead-letters reads from topics.dlq{STOPS}")


@pytest.mark.parametrize("value", [SECRET, BATCH], ids=["json", "batch"])
def test_another_producers_message_is_named_by_its_type_whatever_its_value_holds(value):
    # JSON was read as msgpack first and called 'a newer setveil may have written it'; a batch's
    # value under another type is that type's, not a batch to count
    assert stopped_at(value, "com.example.order.created") == (
        f"out/1/2 is not a setveil.batch/1 message (ce_type com.example.order.created): another producer wrote it"
        f"{STOPS}")


@pytest.mark.parametrize("ce_type, shown", [
    # only setveil's own types, org.setveil.*, may be a newer setveil's
    (b"org.example.order.created", "org.example.order.created"),
    # a header value is any bytes: shown with U+FFFD for what does not decode, never a traceback
    (b"\xff\xfeorder", "\ufffd\ufffdorder"),
], ids=["another-org", "not-utf8"])
def test_a_type_not_setveils_is_another_producers(ce_type, shown):
    assert stopped_at(SECRET, ce_type) == (
        f"out/1/2 is not a setveil.batch/1 message (ce_type {shown}): another producer wrote it{STOPS}")


def test_a_message_without_a_ce_type_whose_value_is_no_batch_is_another_producers():
    assert stopped_at(SECRET, None) == (
        f"out/1/2 is not a setveil.batch/1 message (ce_type (none)): every message setveil writes has a ce_type: "
        f"another producer wrote it{STOPS}")


def test_a_newer_setveil_and_a_batch_type_over_no_batch_are_told_apart():
    assert stopped_at(b"\xc1", "org.setveil.batch.v2") == (
        f"out/1/2 is not a setveil.batch/1 message (ce_type org.setveil.batch.v2): a newer setveil may have written it"
        f"{STOPS}")
    assert stopped_at(SECRET, BATCH_TYPE) == (
        f"out/1/2 is not a setveil.batch/1 message (ce_type {BATCH_TYPE}): its value is not the map its ce_type "
        f"{BATCH_TYPE} says{STOPS}")


@pytest.mark.parametrize("ce_type", [BATCH_TYPE, None])
def test_a_batch_is_read_with_its_type_or_without_a_header(ce_type):
    assert _batch_of(message(BATCH, ce_type))["window"]["id"] == "in/0/0-0"
