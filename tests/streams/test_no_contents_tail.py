"""What ``setveil tail`` (and ``setveil demo``) print of a batch as it arrives: its window's place,
counts, loss and timings, never its transactions, and a window id it did not expect shown as
text that cannot rewrite the terminal. The batch goes through tail's own reading of it
(:func:`setveil.streams.tail._take`), as the Kafka reader hands it on."""

import pytest

from setveil.streams.display import HEADER, WindowDisplay
from setveil.streams.tail import Collected, _take

CANARY = "CANARY"


def batch(window_id: str) -> dict:
    transactions = [{"tid": f"{CANARY}TID{i}", "items": [f"{CANARY}ITEM{i}", f"{CANARY}ITEMSHARED"]} for i in range(3)]
    return {"schema": "setveil.batch/1", "verified": True, "transactions": transactions,
            "window": {"id": window_id, "partition": 0, "opened": 10.0, "closed": 10.5},
            "metrics": {"information_loss": 0.25, "items_in": 6}}


def shown_lines(window_id: str) -> list[str]:
    shown: list[str] = []
    out = Collected()
    summary = _take(batch(window_id), 11.0, set(), out, keep=True)
    WindowDisplay(shown.append).window(summary, out)
    return shown


def test_a_batchs_line_gives_its_place_and_counts_and_none_of_its_transactions():
    shown = shown_lines("orders/0/0-2")
    assert shown[0] == HEADER
    assert shown[1].split()[:5] == ["0/0-2", "3", "0.250", "1000ms", "ok"]
    assert not [line for line in shown if CANARY in line]


@pytest.mark.parametrize(("window_id", "place"), [
    # Regression (privacy audit of what tail prints): a batch another producer wrote to the output
    # topic, with an id holding no '/', ended tail in an IndexError traceback
    ("forged", "forged"),
    # and the terminal escape of one was written to the terminal as it is
    ("forged\x1b[31mRED", "forged\\x1b[31mRED"),
    ("orders/0/\x1b[2J0-2", "0/\\x1b[2J0-2"),
])
def test_a_window_id_no_worker_writes_is_shown_as_text_whole_or_after_its_topic(window_id, place):
    line = shown_lines(window_id)[1]
    assert line.split()[0] == place
    assert line.isprintable()
