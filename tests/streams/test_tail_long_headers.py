"""What tail shows of header text any producer may write at any length - a dead letter's kind,
cause and ce_id, a foreign message's ce_type, a batch's window id - is its first 80 characters and
an ellipsis (streams.kafka.cut), as a foreign ce_type in the output topic already was: a forged
one of a megabyte was shown whole, on one terminal line and in the summary."""

from collections import Counter

from setveil.streams.codec import REJECTED_RECORD_TYPE, REJECTED_WINDOW_TYPE
from setveil.streams.deadletters import DeadLetters, read_dead_letter
from setveil.streams.display import DeadLetterDisplay, WindowDisplay
from setveil.streams.tail import Collected, _take

LONG = "x" * 1_000_000
SHOWN = "x" * 80 + "…"


def test_a_foreign_messages_long_ce_type_is_cut():
    letter = read_dead_letter({"ce_type": LONG.encode(), "ce_id": b"in/0/1"}, b"")
    assert letter.reason == f"a message of ce_type {SHOWN}, not a dead letter this version of setveil writes"


def test_a_dead_letters_long_kind_cause_and_id_are_cut_in_its_line_and_the_summary():
    window = read_dead_letter({"ce_type": REJECTED_WINDOW_TYPE.encode(), "ce_id": LONG.encode(),
                               "setveil_cause": LONG.encode(), "setveil_reason": b"no safe release"}, None)
    record = read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "ce_id": b"in/0/7",
                               "setveil_kind": LONG.encode(), "setveil_reason": b"empty message"}, b"")
    shown: list[str] = []
    display = DeadLetterDisplay(shown.append)
    display.letter(window)
    display.letter(record)
    assert shown[1].split() == ["window", SHOWN, SHOWN, "no", "safe", "release"]
    assert shown[2].split() == [SHOWN, "-", "in/0/7", "empty", "message"]
    summary = display.summary(DeadLetters(letters=2, windows=Counter({LONG: 1}), records=Counter({LONG: 1})))
    assert summary == (f"2 dead letters (0 duplicates dropped): windows failed closed 1 ({SHOWN} 1); "
                       f"input messages dead-lettered 1 ({SHOWN} 1)")


def test_a_batchs_long_window_id_is_cut():
    batch = {"schema": "setveil.batch/1", "verified": True, "transactions": [{"tid": 0, "items": ["a"]}],
             "window": {"id": LONG, "partition": 0, "opened": 10.0, "closed": 10.5},
             "metrics": {"information_loss": 0.0, "items_in": 1}}
    out = Collected()
    shown: list[str] = []
    WindowDisplay(shown.append).window(_take(batch, 11.0, set(), out, keep=False), out)
    assert shown[1].split()[:2] == [SHOWN, "1"]


def test_a_header_of_80_characters_is_shown_whole_and_one_more_is_cut():
    for length, shown in ((80, "x" * 80), (81, SHOWN)):
        letter = read_dead_letter({"ce_type": ("x" * length).encode(), "ce_id": b"in/0/1"}, b"")
        assert letter.reason == f"a message of ce_type {shown}, not a dead letter this version of setveil writes"


def test_a_long_header_of_control_characters_is_cut_before_its_escapes_are_shown():
    # its first 80 characters, each shown as an escape: cut after escaping, it showed 20 and could
    # end inside an escape
    letter = read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "ce_id": b"in/0/7",
                               "setveil_kind": b"\x1b" * 1_000, "setveil_reason": b"empty message"}, b"")
    shown: list[str] = []
    DeadLetterDisplay(shown.append).letter(letter)
    assert shown[1].split()[0] == "\\x1b" * 80 + "…"


def test_a_dead_letters_reason_is_shown_whole():
    # setveil's own sentence, longer than a header is shown: it is never cut
    reason = "more than one msgpack object in the message; it looks like JSON, and records are msgpack"
    letter = read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "ce_id": b"in/0/7",
                               "setveil_kind": b"malformed", "setveil_reason": reason.encode()}, b"")
    shown: list[str] = []
    DeadLetterDisplay(shown.append).letter(letter)
    assert shown[1].endswith(f"  {reason}")
