"""What docs/batch-format.md's "Offsets" tells a consumer who reconciles the two topics: a window's
range holds its messages and the record dead letters between them, and nothing else."""

from pathlib import Path

from setveil.core.cli import configure
from setveil.core.engine import Pipeline
from setveil.core.plugins import get_plugin_manager
from setveil.core.records import Record
from setveil.streams.codec import decode_batch
from setveil.streams.processor import WindowProcessor
from setveil.streams.windowing import Cut, Message

REPO = Path(__file__).resolve().parents[2]


def _offsets_bullet() -> str:
    text = (REPO / "docs" / "batch-format.md").read_text()
    return " ".join(text.split("\n- Offsets. ", 1)[1].split("\n- ", 1)[0].split())


def test_a_windows_range_is_its_messages_and_the_record_dead_letters_within_it(tmp_path):
    # walkthrough as a consumer: on the embedded broker a batch's range 178-224 held 44 messages
    # and the three record dead letters 221-223, and a window dead letter's 225-250 held 23 and
    # three (236 for a repeated tid, 237 and 238 as they arrived); the doc said only "dead letters
    # excluded"
    bullet = _offsets_bullet()
    assert ("So `last_offset − first_offset + 1` is `window.messages` plus the record dead letters of that input "
            "partition whose offsets lie in the range, in a batch and in a window dead letter alike") in bullet
    sensitive = tmp_path / "sensitive.txt"
    sensitive.write_text("s\n")
    configured = configure("coherence", None, ["h=0.8", "k=2", "p=2"], str(sensitive), None, None, None)
    worker = WindowProcessor(Pipeline(configured, get_plugin_manager()), seed=3, merge_subjects=False, source="test")
    # offset 12 was dead-lettered as it arrived, so it never reaches the window; offset 14 repeats
    # the tid of offset 10, and is dead-lettered when the window is cut
    cut = Cut([Message(10, [Record(["a", "s"], tid="p")], 0.0), Message(11, [Record(["a", "b"], tid="q")], 0.0),
               Message(13, [Record(["a"], tid="r")], 0.0), Message(14, [Record(["b"], tid="p")], 0.0)])
    outcome = worker.process("in", 0, cut)
    assert outcome.emitted, outcome.reason
    window = decode_batch(outcome.value)["window"]
    record_dead_letters = {12} | set(cut.repeated_tids)
    assert (window["first_offset"], window["last_offset"], window["messages"]) == (10, 14, 3)
    assert window["last_offset"] - window["first_offset"] + 1 == window["messages"] + len(record_dead_letters)
