"""Input decoding and validation, window ids and the batch format (docs/batch-format.md)."""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from setveil.streams.codec import (
    BATCH_SCHEMA,
    CUT_MARK,
    REASON_ROOM,
    MessageRejected,
    WindowRef,
    decode_batch,
    decode_message,
    encode_batch,
    event_source,
    fit_rejected_window,
    is_integer,
    largest_window_dead_letter,
    message_bytes,
    rejected_message_headers,
    rejected_window_message,
    window_id,
)
from setveil.streams.causes import WINDOW_CAUSES
from setveil.streams.settings import BY_NAME

MODEL = {"name": "rho", "policy": "mine", "parameters": {"rho": 0.5}, "context": {}}
REF = WindowRef("in", 3, 10, 19, 10, 1.0, 2.0)


def test_a_map_and_an_array_of_maps_decode_to_records():
    (record,) = decode_message(msgpack.packb({"items": ["a", 7], "tid": 3, "subject": "u1", "ts": 1.5}), 1 << 20)
    assert (record.items, record.tid, record.subject, record.ts) == (["a", "7"], 3, "u1", 1.5)
    records = decode_message(msgpack.packb([{"items": []}, {"items": ["b"], "tid": "x"}]), 1 << 20)
    assert [(r.items, r.tid) for r in records] == [([], None), (["b"], "x")]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (b"", "empty"),
        (None, "empty"),
        (b"\xc1", "malformed"),
        (msgpack.packb({"items": ["a"]})[:-1], "malformed"),
        (msgpack.packb({"items": ["a"]}) * 2, "malformed"),
        (b"\xa2\xff\xfe", "malformed"),  # a string that is not UTF-8
        (msgpack.packb(5), "invalid"),
        (msgpack.packb({"tid": 1}), "invalid"),
        (msgpack.packb({"items": {"a": 1}}), "invalid"),
        (msgpack.packb({"items": [[1]]}), "invalid"),
        (msgpack.packb({"items": [True]}), "invalid"),
        (msgpack.packb({"items": [b"raw"]}, use_bin_type=True), "invalid"),
        (msgpack.packb({"items": ["a"], "tid": [1]}), "invalid"),
        (msgpack.packb({"items": ["a"], "tid": True}), "invalid"),  # a boolean is no integer tid
        (msgpack.packb({"items": ["a"], "subject": False}), "invalid"),
        (msgpack.packb([]), "invalid"),
        (msgpack.packb([{"items": ["a"]}, "b"]), "invalid"),
        (msgpack.packb({"items": ["x" * 100]}), "oversize"),
        # a map keyed by a list (regression: TypeError escaped); valid msgpack, not a valid record
        (b"\x81\x90\x01", "invalid"),
        (msgpack.packb({"items": [msgpack.ExtType(1, b"x")]}), "invalid"),
        (msgpack.packb({"items": msgpack.ExtType(1, b"x")}), "invalid"),
        (msgpack.packb({"items": ["a"], "ts": float("nan")}), "invalid"),
        (msgpack.packb({"items": ["a"], "ts": float("inf")}), "invalid"),
    ],
)
def test_bad_messages_are_rejected_with_a_kind_and_a_reason(value, kind):
    with pytest.raises(MessageRejected) as info:
        decode_message(value, 64)
    assert info.value.kind == kind
    assert info.value.reason
    assert "x" * 10 not in info.value.reason


def test_a_message_of_exactly_max_message_bytes_is_accepted_and_one_byte_more_is_oversize():
    value = msgpack.packb({"items": ["a" * 50]})
    assert [r.items for r in decode_message(value, len(value))] == [["a" * 50]]
    with pytest.raises(MessageRejected) as info:
        decode_message(value, len(value) - 1)
    assert info.value.kind == "oversize"


@pytest.mark.parametrize("items", [["a", ""], ["a", "x" * 1025], ["x" * 1025], ["a", 3, "a"], ["a", "a"], ["a", "S "], ["\tS"]])
def test_labels_are_checked_in_the_fast_path_too(items):
    with pytest.raises(MessageRejected) as info:
        decode_message(msgpack.packb({"items": items}), 1 << 20)
    assert info.value.kind == "invalid"


def test_a_message_whose_records_repeat_a_tid_is_invalid_and_7_is_not_seven():
    # a merged subject carried tids [5, 5], and two records of one transaction count twice for k
    with pytest.raises(MessageRejected) as info:
        decode_message(msgpack.packb([{"tid": 5, "items": ["a"]}, {"items": ["b"]}, {"tid": 5, "items": ["c"]}]), 1024)
    assert (info.value.kind, info.value.reason) == ("invalid", "record 2 of the array: 'tid' repeats record 0's")
    records = decode_message(msgpack.packb([{"tid": 7, "items": ["a"]}, {"tid": "7", "items": ["a"]}, {"items": []},
                                            {"items": []}]), 1024)
    assert [record.tid for record in records] == [7, "7", None, None]


def test_long_labels_that_are_each_short_enough_pass():
    (record,) = decode_message(msgpack.packb({"items": ["x" * 1024, "y" * 1000]}), 1 << 20)
    assert [len(i) for i in record.items] == [1024, 1000]


def test_integer_items_are_labels():
    (record,) = decode_message(msgpack.packb({"items": [3, "4", 2**63]}), 1 << 20)
    assert record.items == ["3", "4", str(2**63)]


def test_reasons_never_quote_contents():
    with pytest.raises(MessageRejected) as info:
        decode_message(msgpack.packb([{"items": ["secret-item"]}, {"items": ["secret-item", {"k": "secret"}]}]), 1024)
    assert "secret" not in info.value.reason
    assert info.value.reason.startswith("record 1 of the array")


def test_window_ids_are_a_function_of_the_log_position():
    assert window_id("transactions", 3, 100, 199) == "transactions/3/100-199"
    ref = WindowRef("transactions", 3, 100, 199, 100, 1.0, 2.0)
    assert ref.id == window_id("transactions", 3, 100, 199)


def test_a_batch_round_trips():
    ref = WindowRef("t", 0, 5, 9, 5, 10.0, 11.0)
    value = encode_batch(ref, {"name": "coherence", "policy": "mm-il", "parameters": {"h": 0.4}}, True,
                         {"transactions": 1}, [{"tid": 5, "items": ["a"]}])
    batch = decode_batch(value)
    assert batch["schema"] == BATCH_SCHEMA
    assert batch["window"] == ref.as_map()
    assert batch["transactions"] == [{"tid": 5, "items": ["a"]}]
    with pytest.raises(ValueError):
        decode_batch(msgpack.packb({"schema": "something/2"}))


def test_a_batch_is_what_docs_batch_format_shows_a_consumer():
    # the literal values of docs/batch-format.md, decoded as a consumer does (plain msgpack), not
    # through the constants and the decoder the encoder shares: a wrong version or two fields
    # swapped would round-trip through them unseen
    ref = WindowRef("transactions", 3, 1200, 1299, 100, 1764111111.25, 1764111113.8)
    batch = msgpack.unpackb(encode_batch(ref, MODEL, True, {"transactions": 1}, [{"tid": 1200, "items": ["25"]}]),
                            raw=False)
    assert batch["schema"] == "setveil.batch/1"
    assert batch["window"] == {"id": "transactions/3/1200-1299", "topic": "transactions", "partition": 3,
                               "first_offset": 1200, "last_offset": 1299, "messages": 100,
                               "opened": 1764111111.25, "closed": 1764111113.8}
    assert (batch["model"], batch["verified"], batch["transactions"]) == (MODEL, True, [{"tid": 1200, "items": ["25"]}])


def test_the_python_consumer_of_docs_batch_format_names_what_every_codec_needs(monkeypatch):
    # QA as a consumer: the example said it needs aiokafka and msgpack, and under
    # producer.compression=zstd it ended at the first batch in aiokafka's UnsupportedCodecError
    # (snappy and lz4 alike): aiokafka, as kafkajs, decodes only gzip by itself
    from aiokafka import codec

    monkeypatch.setattr(codec, "cramjam", None)  # what installing aiokafka alone gives
    text = (Path(__file__).resolve().parents[2] / "docs" / "batch-format.md").read_text()
    needs = re.search(r"\(needs (.*?)\)", text.split("## Reading batches in Python", 1)[1], re.DOTALL).group(1)
    undecoded = [name for name in BY_NAME["producer.compression"].parameter.choices
                 if name != "none" and not getattr(codec, f"has_{name}")()]
    assert undecoded == ["snappy", "lz4", "zstd"]
    assert "cramjam" in needs and all(name in needs for name in undecoded), needs


def test_dead_letters_carry_the_headers_docs_batch_format_gives():
    headers = dict(rejected_message_headers("invalid", "record has no 'items'", "in", 3, 41, "setveil/g"))
    assert headers == {"ce_specversion": b"1.0", "ce_type": b"org.setveil.record.rejected.v1",
                       "ce_source": b"setveil/g", "ce_id": b"in/3/41", "content-type": b"application/octet-stream",
                       "setveil_kind": b"invalid", "setveil_reason": b"record has no 'items'",
                       "setveil_topic": b"in", "setveil_partition": b"3", "setveil_offset": b"41"}
    value, headers = rejected_window_message(REF, MODEL, "no safe release", "infeasible", 10, "setveil/g")
    assert dict(headers) == {"ce_specversion": b"1.0", "ce_type": b"org.setveil.window.rejected.v1",
                             "ce_source": b"setveil/g", "ce_id": b"in/3/10-19", "content-type": b"application/msgpack",
                             "setveil_kind": b"window", "setveil_reason": b"no safe release",
                             "setveil_cause": b"infeasible"}
    assert msgpack.unpackb(value, raw=False) == {
        "schema": "setveil.rejected-window/1", "window": REF.as_map(), "model": MODEL, "reason": "no safe release",
        "cause": "infeasible", "transactions": 10}


def test_the_event_source_is_setveil_and_the_consumer_group():
    assert event_source("anonymizer") == "setveil/anonymizer"


@pytest.mark.parametrize("cause", WINDOW_CAUSES)
def test_a_window_dead_letter_with_a_reason_of_reason_room_bytes_fits_the_bound_whatever_its_cause(cause):
    # the bound a worker checks its producer limit against at start-up: REASON_ROOM bytes of
    # reason must fit with every cause, offsets and counts at their longest
    longest = 2**63 - 1
    ref = WindowRef("in", 2**31 - 1, longest, longest, longest, 0.0, 0.0)
    value, headers = rejected_window_message(ref, MODEL, "é" * (REASON_ROOM // 2), cause, longest, "setveil/g")
    assert message_bytes(f"in/{2**31 - 1}".encode(), value, headers) <= largest_window_dead_letter("in", MODEL, "setveil/g")


def test_an_extension_value_is_named_as_one():
    with pytest.raises(MessageRejected, match="item 0 is a msgpack extension"):
        decode_message(msgpack.packb({"items": [msgpack.ExtType(1, b"x")]}), 64)


def test_a_tid_released_in_two_windows_is_named_by_its_windows_only():
    # Regression (QA as a security reviewer): the error quoted the tid, which producers choose (a
    # patient number, say)
    from setveil.streams.tail import Collected, ReleaseError, _take

    def batch(window_id, tid):
        return {"window": {"id": window_id, "partition": 0, "opened": 0.0, "closed": 0.0}, "verified": True,
                "metrics": {"items_in": 1, "items_out": 1, "information_loss": 0.0},
                "transactions": [{"tid": tid, "items": ["a"]}]}

    out, seen = Collected(), set()
    _take(batch("in/0/0-9", "SECRET-PATIENT-7"), 1.0, seen, out, keep=True)
    with pytest.raises(ReleaseError) as info:
        _take(batch("in/1/0-9", "SECRET-PATIENT-7"), 1.0, seen, out, keep=True)
    assert "in/0/0-9" in str(info.value) and "in/1/0-9" in str(info.value)
    assert "SECRET" not in str(info.value)


def test_the_collected_loss_is_the_models_measure_over_the_release():
    # Regression (code review): tail and bench stream reported the share of occurrences removed
    # whatever the model; under kanonymity (NCP, nothing removed) that was 0
    from setveil.streams.tail import Collected, _take

    def batch(window_id, items_in, items_out, loss):
        return {"window": {"id": window_id, "partition": 0, "opened": 0.0, "closed": 0.0}, "verified": True,
                "metrics": {"items_in": items_in, "items_out": items_out, "information_loss": loss},
                "transactions": [{"tid": window_id, "items": ["A"]}]}

    out, seen = Collected(), set()
    _take(batch("in/0/0-9", 30, 30, 0.5), 1.0, seen, out, keep=False)
    _take(batch("in/1/0-9", 10, 10, 0.1), 1.0, seen, out, keep=False)
    _take(batch("in/2/0-9", 0, 0, 0.0), 1.0, seen, out, keep=False)
    assert out.information_loss == pytest.approx((30 * 0.5 + 10 * 0.1) / 40)
    one = Collected()  # a stream of one item occurrence, suppressed
    _take(batch("in/0/0-0", 1, 0, 1.0), 1.0, set(), one, keep=False)
    assert one.information_loss == 1.0


@pytest.mark.parametrize("value", [b"\x82\xa5items\x91\xa1a\xa5items\x91\xa1b",
                                   b"\x83\xa5items\x91\xa1a\xa3tid\x01\xa3tid\x02"], ids=["items", "tid"])
def test_a_map_that_repeats_a_key_is_dead_lettered(value):
    # Regression (QA): msgpack keeps the last of a repeated key, so one list of items was dropped,
    # or a record carried the second of two tids, in silence (files were refused, the service not)
    with pytest.raises(MessageRejected, match="a map repeats a key") as info:
        decode_message(value, 1 << 20)
    assert info.value.kind == "invalid"  # valid msgpack (QA: 'malformed' is documented as not msgpack)


@pytest.mark.parametrize("value", [b'{"items": ["a"]}', b'[{"items": ["a"]}]', b'  \n{"items": ["a"]}'])
def test_json_sent_as_a_record_is_named_in_the_reason(value):
    # QA as a batch consumer: '{' is the msgpack integer 123, so the reason said only "more than
    # one msgpack object in the message", which sent the producer's developer the wrong way
    with pytest.raises(MessageRejected, match="it looks like JSON, and records are msgpack") as info:
        decode_message(value, 1 << 20)
    assert info.value.kind == "malformed"


def test_tail_out_says_why_the_tids_do_not_line_up():
    # regression (QA as a new user): the message said replay numbers transactions, right after a
    # replay of a JSONL file that kept its own tids, and named no merge among the missing tids
    from setveil.streams.released import Released
    from setveil.streams.tail import ReleaseError

    def released(*tids):
        release = Released()
        release.add("in/0/0-9", [{"tid": tid, "items": ["a"]} for tid in tids])
        return release

    with pytest.raises(ReleaseError, match="a file's own tids"):
        released("v00000").numbered()
    with pytest.raises(ReleaseError, match="merged into another record's transaction"):
        released(0, 2).numbered()


@pytest.mark.parametrize("reason", ["x" * 5000, "é" * 3000 + "€" * 1000])
def test_a_window_dead_letter_past_the_limit_has_its_reason_cut_short_to_fit(reason):
    # A plugin's reason can be of any length, and a dead letter the client refused stopped the
    # worker at that window on every restart (QA as a consumer)
    key = b"in/3"
    limit = largest_window_dead_letter("in", MODEL, "setveil/g")
    value, headers = rejected_window_message(REF, MODEL, reason, "infeasible", 10, "setveil/g")
    assert message_bytes(key, value, headers) > limit
    value, headers, cut = fit_rejected_window(key, value, headers, limit)
    assert message_bytes(key, value, headers) <= limit
    assert cut.endswith(CUT_MARK) and reason.startswith(cut.removesuffix(CUT_MARK))
    assert len(cut.encode()) >= REASON_ROOM - 8  # cut by what the limit needs, not to nothing
    rejection = msgpack.unpackb(value)
    assert rejection["reason"] == dict(headers)["setveil_reason"].decode() == cut
    assert rejection["window"] == REF.as_map() and rejection["model"] == MODEL and rejection["cause"] == "infeasible"


def test_a_window_dead_letter_within_the_limit_is_sent_as_it_is():
    reason = "é" * (REASON_ROOM // 2)  # REASON_ROOM bytes
    value, headers = rejected_window_message(REF, MODEL, reason, "timeout", 10, "setveil/g")
    limit = largest_window_dead_letter("in", MODEL, "setveil/g")
    assert fit_rejected_window(b"in/3", value, headers, limit) == (value, headers, reason)


@pytest.mark.parametrize("value", [msgpack.packb([{"schema": BATCH_SCHEMA}]), msgpack.packb("setveil.batch/1"),
                                   b"\x81\x90\x01", msgpack.packb({"schema": BATCH_SCHEMA})[:-3]],
                         ids=["array", "string", "list-key", "truncated"])
def test_anything_but_a_batch_map_is_a_value_error_to_decode_batch(value):
    # what its docstring promises a consumer that catches ValueError; a map keyed by a list was a TypeError
    with pytest.raises(ValueError):
        decode_batch(value)


def test_two_records_sent_as_one_message_are_named_as_more_than_one_object():
    # the reason a producer's developer reads: two packed maps are not a broken map
    with pytest.raises(MessageRejected) as info:
        decode_message(msgpack.packb({"items": ["a"]}) * 2, 1 << 20)
    assert (info.value.kind, info.value.reason) == ("malformed", "more than one msgpack object in the message")


@pytest.mark.parametrize("reason", ["x" * 600, "é" * 300, "x" * 300 + "€" * 100])
def test_a_window_dead_letter_is_fitted_to_every_limit_that_has_room_for_the_cut_mark(reason):
    # every limit from below the smallest dead letter to the whole one: each cut ends (a cut by
    # half the excess rounded down stops at an excess of 1 and never ends), and fits when it can
    key = b"in/3"
    value, headers = rejected_window_message(REF, MODEL, reason, "infeasible", 10, "setveil/g")
    smallest = message_bytes(key, *rejected_window_message(REF, MODEL, CUT_MARK, "infeasible", 10, "setveil/g"))
    for limit in range(smallest - 2, message_bytes(key, value, headers) + 1):
        fitted, fitted_headers, cut = fit_rejected_window(key, value, headers, limit)
        if limit >= smallest:
            assert message_bytes(key, fitted, fitted_headers) <= limit, limit
        else:
            assert cut == CUT_MARK, limit  # nothing fits: the least it can send
        assert reason.startswith(cut.removesuffix(CUT_MARK))


def test_an_array_of_one_map_is_one_record():
    records = decode_message(msgpack.packb([{"items": ["a"], "tid": 4}]), 1 << 20)
    assert [(r.items, r.tid) for r in records] == [(["a"], 4)]


def test_a_boolean_is_no_integer_to_the_readers_of_batches_and_dead_letters():
    assert (is_integer(7), is_integer(0), is_integer(True), is_integer(False), is_integer(7.0)) == (
        True, True, False, False, False)


def test_header_values_are_utf_8():
    # a consumer group (hence ce_source) and a reason may hold any character
    reason = "'tid' is a boolean, expected …"
    headers = dict(rejected_message_headers("invalid", reason, "in", 0, 1, "setveil/gruppé"))
    assert headers["ce_source"].decode("utf-8") == "setveil/gruppé"
    assert headers["setveil_reason"].decode("utf-8") == reason


@given(blanks=st.text(" \t\r\n", max_size=3).map(str.encode), opening=st.sampled_from([b"{", b"["]),
       rest=st.binary(min_size=1, max_size=40))
def test_anything_that_opens_as_json_is_named_as_json(blanks, opening, rest):
    # '{', '[' and the blanks are whole msgpack integers, so what opens so is one object and extra
    # data, whatever follows: the one reason the JSON hint is given with
    with pytest.raises(MessageRejected) as info:
        decode_message(blanks + opening + rest, 1 << 20)
    assert (info.value.kind, info.value.reason) == (
        "malformed", "more than one msgpack object in the message; it looks like JSON, and records are msgpack")
