"""Dead letters read back from their headers: a record's original bytes are never decoded."""

import asyncio
import re
import time
from collections import Counter

import msgpack
import pytest

from setveil.streams import kafka
from setveil.streams.codec import REJECTED_RECORD_TYPE, REJECTED_WINDOW_TYPE
from setveil.streams.deadletters import DeadLetters, collect_dead_letters, read_dead_letter, take
from setveil.streams.display import DeadLetterDisplay


def headers(ce_type, ce_id, **setveil):
    return {"ce_type": ce_type.encode(), "ce_id": ce_id.encode(),
            **{f"setveil_{k}": v.encode() for k, v in setveil.items()}}


def test_a_rejected_window_is_read_from_its_headers_and_its_reference():
    value = msgpack.packb({"schema": "setveil.rejected-window/1", "transactions": 20, "cause": "infeasible"})
    letter = read_dead_letter(headers(REJECTED_WINDOW_TYPE, "in/0/1-20", kind="window", cause="infeasible",
                                      reason="no safe release"), value)
    assert (letter.kind, letter.where, letter.cause, letter.reason, letter.transactions) == (
        "window", "in/0/1-20", "infeasible", "no safe release", 20)


def test_a_window_reference_that_cannot_be_read_still_shows_its_headers():
    for value in (b"\xc1", msgpack.packb([1]), msgpack.packb({"transactions": True}), None):
        letter = read_dead_letter(headers(REJECTED_WINDOW_TYPE, "in/0/1-2", cause="error", reason="r"), value)
        assert letter.transactions is None and letter.cause == "error"


def test_a_record_dead_letter_is_never_decoded():
    value = msgpack.packb({"items": ["Diabetes"], "transactions": 7})
    letter = read_dead_letter(headers(REJECTED_RECORD_TYPE, "in/1/5", kind="invalid", reason="bad tid"), value)
    assert (letter.kind, letter.cause, letter.transactions) == ("invalid", "", None)


def test_other_messages_are_named_by_their_type_and_counted_apart():
    letter = read_dead_letter(headers("org.example.other", "x"), b"")
    assert letter.kind == "unknown" and "org.example.other" in letter.reason
    shown = []
    display = DeadLetterDisplay(shown.append)
    display.letter(letter)
    assert display.summary(DeadLetters(letters=1, unknown=1)).endswith("messages of an unknown type 1")


def test_a_forged_reason_cannot_write_a_second_line():
    letter = read_dead_letter(headers(REJECTED_RECORD_TYPE, "in/0/0", kind="malformed",
                                      reason="x\n\x1b[2Jforged"), b"")
    shown = []
    DeadLetterDisplay(shown.append).letter(letter)
    assert len(shown) == 2 and "\n" not in shown[1] and "\x1b" not in shown[1] and "\\n\\x1b[2Jforged" in shown[1]


def test_null_headers_and_letters_without_a_ce_id_are_shown_not_dropped():
    # Regression (QA re-check): a header whose value is null crashed tail with a traceback, and
    # letters without a ce_id were all dropped as duplicates of the first
    letter = read_dead_letter({"ce_type": REJECTED_WINDOW_TYPE.encode(), "ce_id": None, "setveil_cause": None},
                              None)
    assert (letter.kind, letter.where, letter.cause, letter.reason) == ("window", "", "(no setveil_cause)",
                                                                        "(no setveil_reason)")
    seen, out = set(), DeadLetters()
    assert take(letter, seen, out) and take(letter, seen, out) and out.letters == 2 and out.duplicates == 0
    named = read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "ce_id": b"in/0/3"}, b"")
    assert take(named, seen, out) and not take(named, seen, out) and out.duplicates == 1


def test_the_summary_escapes_forged_causes_and_kinds():
    # Regression (QA re-check): a forged setveil_cause cleared the screen from the summary line
    out = DeadLetters(letters=2)
    out.windows["a\r\x1b[2J"] += 1
    out.windows[""] += 1
    out.records["x\ny"] += 1
    summary = DeadLetterDisplay(print).summary(out)
    assert summary.isprintable() and "- 1" in summary and "a\\r\\x1b[2J 1" in summary and "x\\ny 1" in summary


def test_each_kind_of_letter_is_counted_under_its_own_name():
    seen, out = set(), DeadLetters()
    for letter in (read_dead_letter(headers(REJECTED_WINDOW_TYPE, "in/0/1-2", cause="timeout", reason="r"), None),
                   read_dead_letter(headers(REJECTED_RECORD_TYPE, "in/0/3", kind="malformed", reason="r"), b""),
                   read_dead_letter(headers("org.example.other", "x"), b"")):
        take(letter, seen, out)
    assert (out.letters, out.windows, out.records, out.unknown) == (3, {"timeout": 1}, {"malformed": 1}, 1)


def test_a_header_value_that_is_not_utf8_is_shown_with_replacement_characters():
    # as tail shows a header name that is not UTF-8 (setveil.streams.headers.names_not_utf8): a
    # byte dropped in silence would show text the worker never wrote
    letter = read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "ce_id": b"in/0/3",
                               "setveil_kind": b"malformed", "setveil_reason": b"bad \xff byte"}, b"")
    assert letter.reason == "bad \ufffd byte"


def test_a_header_a_dead_letter_lacks_is_named_as_missing_not_shown_blank():
    # Regression (QA as an operator): a message written to the dead-letter topic by hand, without
    # setveil's headers, was shown with blank fields, which read as values setveil wrote empty
    shown = []
    display = DeadLetterDisplay(shown.append)
    seen, out = set(), DeadLetters()
    for letter in (read_dead_letter({}, b"hand-made"),
                   read_dead_letter({"ce_type": REJECTED_WINDOW_TYPE.encode()}, None),
                   read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "setveil_kind": b""}, b"")):
        take(letter, seen, out)
        display.letter(letter)
    assert re.fullmatch(r"unknown +- +\(no ce_id\) +a message of ce_type \(none\), .*", shown[1]), shown[1]
    assert re.fullmatch(r"window +\(no setveil_cause\) +\(no ce_id\) +\(no setveil_reason\)", shown[2]), shown[2]
    assert re.fullmatch(r"\(no setveil_kind\) +- +\(no ce_id\) +\(no setveil_reason\)", shown[3]), shown[3]
    # counted apart, not merged with one another as copies, under the placeholders the lines show
    assert (out.letters, out.duplicates, out.windows, out.records, out.unknown) == (
        3, 0, {"(no setveil_cause)": 1}, {"(no setveil_kind)": 1}, 1)


def test_the_summarys_counts_read_as_english_for_one_and_for_many():
    # Regression (review of tail's summary): one letter was "1 dead letters (1 duplicates dropped)"
    one = DeadLetters(letters=1, duplicates=1, windows=Counter(infeasible=1))
    assert DeadLetterDisplay(print).summary(one) == (
        "1 dead letter (1 duplicate dropped): windows failed closed 1 (infeasible 1); input messages dead-lettered 0")
    many = DeadLetters(letters=5, duplicates=2, records=Counter(malformed=4), unknown=1)
    assert DeadLetterDisplay(print).summary(many) == (
        "5 dead letters (2 duplicates dropped): windows failed closed 0; input messages dead-lettered 4 (malformed 4); "
        "messages of an unknown type 1")


def test_the_summary_counts_every_window_failed_closed_and_names_each_cause_once():
    out = DeadLetters(letters=3, windows=Counter(infeasible=2, timeout=1))
    assert DeadLetterDisplay(print).summary(out) == (
        "3 dead letters (0 duplicates dropped): windows failed closed 3 (infeasible 2, timeout 1); "
        "input messages dead-lettered 0")


@pytest.mark.slow
def test_tail_shows_each_letter_once_and_waits_idle_seconds_after_the_last_one(make_settings):
    settings = make_settings(topics__partitions=1)
    idle, apart = 2.0, 0.6

    async def run():
        await kafka.ensure_topics(settings, [settings.topics.dlq])
        producer = kafka.producer(settings)
        await producer.start()
        try:
            async def send(*offsets):
                for offset in offsets:
                    ce_id = f"{settings.topics.input}/0/{offset}".encode()
                    await producer.send_and_wait(settings.topics.dlq, b"secret", partition=0, headers=[
                        ("ce_type", REJECTED_RECORD_TYPE.encode()), ("ce_id", ce_id), ("setveil_kind", b"malformed"),
                        ("setveil_reason", b"r")])

            await send(0)
            shown = []
            tail = asyncio.create_task(collect_dead_letters(settings, idle, on_letter=shown.append))
            # letters keep coming, each well within idle of the one before, until past idle seconds
            # after tail began; a re-delivered copy of the first among them
            for offsets in ((0, 1), (2,), (3,), (4,), (5,)):
                await asyncio.sleep(apart)
                await send(*offsets)
            last = time.monotonic()
            out = await asyncio.wait_for(tail, 5 * idle)
            return shown, out, time.monotonic() - last
        finally:
            await producer.stop()

    shown, out, waited = asyncio.run(run())
    assert [letter.where.rsplit("/", 1)[1] for letter in shown] == ["0", "1", "2", "3", "4", "5"]
    assert (out.letters, out.duplicates, out.records) == (6, 1, {"malformed": 6})
    assert waited > idle - 0.5  # the last letter was acknowledged a moment after tail read it
