"""scripts/window_stages.py runs the worker's own per-window functions, which it imports by name:
a test keeps it in step with them (its figures are for a person to read, never asserted)."""

import pstats
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


def _stages(tmp_path, lines, *args):
    data = tmp_path / "in.dat"
    data.write_text("".join(f"{line}\n" for line in lines))
    return subprocess.run([sys.executable, SCRIPT, data.name, "--window", "50", "--windows", "2", "--batch", "10",
                           *args],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)


@pytest.mark.parametrize("args, status, line", [
    (["-m", "nosuch"], 2, "parameter 'model.name': unknown model 'nosuch' (installed: "),
    (["-m", "rho", "-P", "rho=2", "--sensitive", "in.dat"], 2,
     "parameter 'model.params': 'rho': got '2', allowed: a number in (0, 1) (from the command line)"),
    (["-m", "rho", "-P", "rho=0.7"], 2, "parameter 'model.sensitive': model 'rho' needs the sensitive (private) items: "
     "give --sensitive FILE"),
    (["-m", "rho", "-P", "rho=0.7", "--sensitive", "none.txt"], 2,
     "parameter 'model.sensitive': file 'none.txt' does not exist (from the command line)"),
])
def test_what_setveil_refuses_is_one_line_with_its_status(tmp_path, args, status, line):
    # Regression (a user's walkthrough): an unknown model, a parameter out of range, a missing item
    # list or a file that cannot be read ended in a traceback
    result = _stages(tmp_path, ["a b c"] * 100, *args)
    assert result.returncode == status
    assert result.stderr.startswith(f"window_stages.py: error: {line}"), result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_an_input_that_cannot_be_read_is_one_line(tmp_path):
    (tmp_path / "private.txt").write_text("s\n")
    result = subprocess.run([sys.executable, SCRIPT, tmp_path / "none.dat", "-m", "rho", "-P", "rho=0.7", "--sensitive",
                             tmp_path / "private.txt"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    missing = tmp_path / "none.dat"
    assert result.stderr == f"window_stages.py: error: {missing}: cannot read: No such file or directory\n"


def test_a_window_the_worker_would_dead_letter_stops_the_script_naming_it_and_why(tmp_path):
    # Regression (a user's walkthrough): coherence with deploy/'s parameters on retail, whose windows
    # hold a private item in more than h of their transactions, ended in a WindowRejected traceback
    (tmp_path / "private.txt").write_text("hiv\n")
    lines = [f"a{i % 5} b{i % 3}" for i in range(50)] + [f"hiv a{i % 5}" for i in range(50)]
    result = _stages(tmp_path, lines, "-m", "coherence", "-P", "h=0.4", "-P", "k=2", "-P", "p=2",
                     "--sensitive", "private.txt")
    assert result.returncode == 1
    assert result.stderr.startswith(
        "window_stages.py: error: window 2 of in.dat failed closed, as a worker would dead-letter it: infeasible: "
        "a private item is in 50 of the window's 50 transactions, more than h=0.4"), result.stderr
    assert len(result.stderr.splitlines()) == 1 and "hiv" not in result.stderr


def test_an_item_list_the_window_spells_otherwise_stops_the_script_naming_its_line(tmp_path):
    # Regression (a user's walkthrough): the worker's misspelling check was an assert, a traceback
    # (and no check at all under python -O)
    (tmp_path / "private.txt").write_text("hiv\n")
    result = _stages(tmp_path, [f"HIV a{i % 5}" for i in range(100)], "-m", "rho", "-P", "rho=0.7",
                     "--sensitive", "private.txt")
    assert result.returncode == 1
    assert result.stderr == (
        "window_stages.py: error: window 1 of in.dat failed closed, as a worker would dead-letter it: the list of "
        "model.sensitive names at line 1 an item this window spells otherwise, in another case, Unicode form or with "
        "an invisible character, which would be released unprotected: list it as the input spells it, each spelling "
        "the input uses\n")


@pytest.mark.parametrize("window, batch, size", [("50", "20", 40), ("30", "40", 40), ("50", "10", 50)])
def test_the_windows_measured_are_those_the_worker_cuts_from_whole_messages(tmp_path, window, batch, size):
    # Regression (a user's walkthrough): --window 1000 --batch 300 measured 1 window of 900 of the 2
    # asked for and said it was of 1000, and decoded the message the worker leaves to the next window
    result = _run(tmp_path, "--window", window, "--windows", "2", "--batch", batch)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"{tmp_path / 'in.dat'}: 2 windows of {size}, model rho rho=0.7; median CPU ms per window")


def test_the_profile_holds_the_stages_outside_the_model_alone(tmp_path):
    # --profile ran in no test: the profile is of every stage but the pipeline's, whose model's work
    # would outweigh them
    profile = tmp_path / "stages.prof"
    result = _run(tmp_path, "--window", "50", "--windows", "2", "--batch", "10", "--profile", profile)
    assert result.returncode == 0, result.stderr
    functions = {(Path(path).parts[-2:], name) for path, _, name in pstats.Stats(str(profile)).stats}
    assert {(("streams", "codec.py"), "decode_message"), (("streams", "processor.py"), "build_window"),
            (("streams", "metrics.py"), "emitted")} <= functions
    assert not {name for parts, name in functions if parts[0] == "rho" or name == "run"}


def test_a_generalizing_model_takes_its_hierarchy_as_a_worker_does(tmp_path):
    # Regression (a user's walkthrough): kanonymity was refused with 'give --hierarchy FILE or
    # --fanout N', and the script took neither
    (tmp_path / "hierarchy.csv").write_text("".join(f"{item},{item[0]}\n" for item in ("a0", "a1", "b0", "b1"))
                                           + "a,ROOT\nb,ROOT\n")
    lines = [f"a{i % 2} b{i % 2}" for i in range(100)]
    result = _stages(tmp_path, lines, "-m", "kanonymity", "-P", "k=2", "--hierarchy", "hierarchy.csv")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "in.dat: 2 windows of 50, model kanonymity k=2; median CPU ms per window"
    missing = _stages(tmp_path, lines, "-m", "kanonymity", "-P", "k=2")
    assert missing.returncode == 2
    assert missing.stderr == ("window_stages.py: error: parameter 'model.hierarchy': model 'kanonymity' needs a "
                              "hierarchy file: give --hierarchy FILE or set model.hierarchy (a worker takes no "
                              "--fanout)\n")
