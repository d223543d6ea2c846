"""scripts/window_stages.py runs the worker's own per-window functions, which it imports by name:
a test keeps it in step with them (its figures are for a person to read, never asserted)."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "scripts" / "window_stages.py"
STAGES = ("decode", "windowing", "build", "misspelling", "pipeline", "batch", "send", "metrics", "dead_letter",
          "outside the pipeline")


def _run(tmp_path, *args):
    data, sensitive = tmp_path / "in.dat", tmp_path / "sensitive.txt"
    data.write_text("".join(f"a{i % 7} b{i % 3} c{i % 5}\n" for i in range(120)))
    sensitive.write_text("c1\nc2\n")
    return subprocess.run([sys.executable, SCRIPT, data, "-m", "rho", "-P", "rho=0.7", "--sensitive", sensitive,
                           *args], capture_output=True, text=True, timeout=300)


def test_the_script_times_every_stage_of_the_windows_it_measures(tmp_path):
    result = _run(tmp_path, "--window", "50", "--windows", "2", "--batch", "10")
    assert result.returncode == 0, result.stderr
    head, *rows = result.stdout.splitlines()
    assert head == f"{tmp_path / 'in.dat'}: 2 windows of 50, model rho rho=0.7; median CPU ms per window"
    assert [row.rsplit(maxsplit=1)[0].strip() for row in rows] == list(STAGES)
    assert all(float(row.rsplit(maxsplit=1)[1]) >= 0 for row in rows)


def test_a_file_shorter_than_one_window_is_refused_in_one_line(tmp_path):
    result = _run(tmp_path, "--window", "500")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(f"{tmp_path / 'in.dat'} holds fewer than --window 500 transactions")


@pytest.mark.parametrize("option", ["--window", "--windows", "--batch"])
@pytest.mark.parametrize("value", ["0", "-5", "1.5"])
def test_a_count_below_one_is_refused_naming_the_option_and_the_range(tmp_path, option, value):
    # Regression (a user's walkthrough): --window 0 left the script looping for ever, --batch 0 ended
    # in a ZeroDivisionError and --windows 0 said the file held fewer than --window transactions
    result = _run(tmp_path, option, value)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        f"window_stages.py: error: argument {option}: got {value!r}, allowed: an integer in [1, inf)")
