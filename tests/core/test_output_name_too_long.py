"""An output path the system refuses to look up - a name longer than a directory entry takes, a
path longer than a path may be - is refused in one line naming the option, exit 2, before
anything is read, where the check of whether it was a directory ended in OSError's traceback
(pathlib passes on every error of a stat but a missing file's)."""

import os

import pytest

from .figure1 import run

LONG_NAME = "a" * (os.pathconf("/", "PC_NAME_MAX") + 1)
MODEL = ("-m", "kanonymity", "--fanout", "4", "-P", "k=1")


@pytest.fixture
def data(tmp_path):
    (tmp_path / "in.dat").write_text("a b\nb c\n")
    return tmp_path / "in.dat"


@pytest.mark.parametrize("option", ["-o", "--report"])
def test_a_name_too_long_is_refused_naming_the_option(tmp_path, data, option):
    long = tmp_path / f"{LONG_NAME}.out"
    outputs = ["-o", long] if option == "-o" else ["-o", tmp_path / "out.dat", "--report", long]
    result = run("anonymize", data, *outputs, *MODEL)
    flag = "--output" if option == "-o" else "--report"
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {long}: cannot write {flag}: File name too long\n"
    assert os.listdir(tmp_path) == ["in.dat"]


def test_a_path_too_long_is_refused_naming_the_option(tmp_path, data):
    deep = os.path.join(tmp_path, *["d" * 200] * (os.pathconf("/", "PC_PATH_MAX") // 200 + 1), "out.dat")
    result = run("anonymize", data, "-o", deep, *MODEL)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {deep}: cannot write --output: File name too long\n"


def test_a_relative_output_in_a_working_directory_deeper_than_a_path_may_be_is_refused(tmp_path, data, monkeypatch):
    # the name is short, but its directory's absolute path, which the output is written by, is too
    # long: the look at that directory is refused in the output's words, where it was a traceback
    monkeypatch.chdir(tmp_path)
    for _ in range(os.pathconf("/", "PC_PATH_MAX") // 200 + 1):
        os.mkdir("d" * 200)
        os.chdir("d" * 200)
    result = run("anonymize", data, "-o", "out.dat", *MODEL)
    assert result.exit_code == 2
    assert result.output == "setveil: error: out.dat: cannot write --output: File name too long\n"
    assert os.listdir(".") == []
