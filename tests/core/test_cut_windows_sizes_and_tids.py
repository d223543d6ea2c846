"""How a file is cut into windows (setveil.core.cli.window_rows and cut_windows, which anonymize,
verify and bench windows share): consecutive windows of --window transactions that cover the
input once, a last window shorter than the model's smallest joined to the one before it, and only
then; an input shorter than that left one window; each window keeping its transactions' tids, or
numbering them by position in a file without tids; and a --window below the smallest refused
with the range allowed (a mutation pass over core/cli.py: a last window of exactly the smallest
joined, an input of one short window cut into none, every window numbered by position, and the
refusal without its range passed every test of anonymize --window, verify --window and bench
windows not marked slow)."""

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from setveil.core.cli import cut_windows, window_rows
from setveil.core.window import Window

from .figure1 import MODEL, run


@given(st.integers(1, 60), st.integers(1, 20), st.integers(1, 20))
@example(10, 4, 2)
@example(2, 5, 3)
def test_windows_cover_the_input_once_and_only_a_last_window_below_the_smallest_joins(n, size, smallest):
    size = max(size, smallest)  # anonymize, verify and bench windows refuse a size below the smallest
    windows = window_rows(n, size, smallest)
    assert np.array_equal(np.concatenate(windows), np.arange(n))
    assert all(len(rows) == size for rows in windows[:-1])
    whole, left = divmod(n, size)
    joined = whole >= 1 and 0 < left < smallest
    assert len(windows) == whole + (left > 0) - joined
    assert len(windows[-1]) == (size + left if joined else left or size)


def test_each_window_keeps_its_transactions_tids_or_their_positions():
    rows = [["a"], ["b"], ["c"], ["d"], ["e"]]
    given_tids = Window.from_transactions(rows, tids=["t9", "t3", "t7", "t1", "t5"])
    assert [list(window.tids) for window in cut_windows(given_tids, 2, 1)] == [["t9", "t3"], ["t7", "t1"], ["t5"]]
    unnumbered = Window.from_transactions(rows)
    assert [list(window.tids) for window in cut_windows(unnumbered, 2, 2)] == [[0, 1], [2, 3, 4]]


def test_a_window_below_the_smallest_is_refused_with_the_range_allowed(files):
    result = run("anonymize", files / "fig1.dat", "-o", files / "out.dat", *MODEL, "--sensitive",
                 files / "private.txt", "--window", "1")
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "setveil: error: parameter 'window': --window 1 is fewer than the 2 transactions model 'coherence' needs of "
        "a window; allowed: an integer in [2, inf)")
