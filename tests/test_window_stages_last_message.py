"""scripts/window_stages.py measures windows of --batch's whole messages only: the file's last
message, holding fewer than --batch, makes no window, as the worker would cut it by time, shorter
than the others, and the medians would be of unequal windows. A file that holds no such window is
refused in one line, whatever --batch."""

import pytest

from .test_window_stages_script import _run


def test_the_files_last_short_message_makes_no_window(tmp_path):
    # Regression (mutation pass over ad7ee43): 120 transactions in windows of 50 gave "3 windows of
    # 20-50" with --batch 50 and "2 windows of 50" with --batch 10
    result = _run(tmp_path, "--window", "50", "--windows", "3", "--batch", "50")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"{tmp_path / 'in.dat'}: 2 windows of 50, model rho rho=0.7; median CPU ms per window")


@pytest.mark.parametrize("window, batch, words", [
    ("500", "500", "fewer than --window 500 transactions"),
    ("100", "130", "fewer than --batch 130 transactions, the one message a window of --window 100 takes"),
])
def test_a_file_holding_no_whole_window_is_refused_whatever_the_batch(tmp_path, window, batch, words):
    # Regression: --window 500 --batch 500 on 120 transactions measured "1 windows of 120" where
    # --batch 100 refused the file
    result = _run(tmp_path, "--window", window, "--batch", batch)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"window_stages.py: error: {tmp_path / 'in.dat'} holds {words}"
