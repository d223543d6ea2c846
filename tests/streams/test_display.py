"""The lines ``setveil tail`` and ``setveil demo`` show for batches as they arrive, and their summary."""

from setveil.streams.display import WindowDisplay
from setveil.streams.tail import Collected


def test_the_summarys_counts_read_as_english_for_one_and_for_many():
    # Regression (review of tail's summary): one window was "1 windows (1 duplicates dropped), 1 transactions"
    display = WindowDisplay(print)
    assert display.summary(Collected(windows=1, duplicates=1, transactions=1)) == (
        "1 window (1 duplicate dropped), 1 transaction")
    assert display.summary(Collected(windows=2, duplicates=3, transactions=40)) == (
        "2 windows (3 duplicates dropped), 40 transactions")
