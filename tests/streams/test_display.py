"""The lines ``setveil tail`` and ``setveil demo`` show for batches as they arrive, and their summary."""

from types import SimpleNamespace

from setveil.streams import display
from setveil.streams.display import WindowDisplay
from setveil.streams.tail import Collected, WindowSummary


def test_the_summarys_counts_read_as_english_for_one_and_for_many():
    # Regression (review of tail's summary): one window was "1 windows (1 duplicates dropped), 1 transactions"
    lines = WindowDisplay(print)
    assert lines.summary(Collected(windows=1, duplicates=1, transactions=1)) == (
        "1 window (1 duplicate dropped), 1 transaction")
    assert lines.summary(Collected(windows=2, duplicates=3, transactions=40)) == (
        "2 windows (3 duplicates dropped), 40 transactions")


def test_a_windows_line_shows_its_own_figures_and_the_rate_since_the_first_window(monkeypatch):
    clock = iter([100.0, 102.0])
    monkeypatch.setattr(display, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    shown = []
    lines = WindowDisplay(shown.append)
    lines.window(WindowSummary("in/0/0-9", 0, 10, 0.5, 1.0, 1.5, 1.25, True), Collected(transactions=10))
    lines.window(WindowSummary("in/1/10-29", 1, 20, 0.125, 2.0, 2.5, 2.25, False), Collected(transactions=30))
    assert shown[0] == display.HEADER and len(shown) == 3
    assert shown[1].split() == ["0/0-9", "10", "0.500", "250ms", "ok", "10", "0"]
    # the rate counts the transactions since the first window over the seconds since it: 20 in 2 s
    assert shown[2].split() == ["1/10-29", "20", "0.125", "250ms", "off", "30", "10"]


def test_the_summary_gives_the_median_and_the_99th_percentile_of_the_window_latencies():
    summary = WindowDisplay(print).summary(Collected(windows=3, transactions=30, items_in=60, weighted_loss=6.0,
                                                     latencies=[0.3, 0.1, 0.2]))
    assert summary.endswith(", information loss 0.1000, window latency p50 200 ms, p99 298 ms")
