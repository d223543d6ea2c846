"""check_output's look at whether an output or its directory is a directory (core/output.py's
_is_dir). An output that is a loop of symbolic links, or lies beyond one, is refused in one line
naming the option, exit 2, before anything is read, where the stat took the loop for "no" and
pathlib's resolve then ended in RuntimeError's traceback ("Symlink loop"); a file's "not a
directory" and a link to a directory keep their refusals."""

import os

import pytest

from .figure1 import run

MODEL = ("-m", "kanonymity", "--fanout", "4", "-P", "k=1")


@pytest.mark.parametrize("where", ["loop", "loop/out.dat"])
@pytest.mark.parametrize("option", ["-o", "--report"])
def test_an_output_through_a_symlink_loop_is_refused_naming_the_option(tmp_path, where, option):
    (tmp_path / "in.dat").write_text("a b\nb c\n")
    (tmp_path / "loop").symlink_to("loop")
    target = tmp_path / where
    outputs = ["-o", target] if option == "-o" else ["-o", tmp_path / "out.dat", "--report", target]
    result = run("anonymize", tmp_path / "in.dat", *outputs, *MODEL)
    flag = "--output" if option == "-o" else "--report"
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {target}: cannot write {flag}: Too many levels of symbolic links\n"
    assert sorted(os.listdir(tmp_path)) == ["in.dat", "loop"]


def test_an_output_below_a_file_is_refused_as_in_no_directory(tmp_path):
    # the stat's "not a directory" is no output's refusal of its own: the directory check names it
    (tmp_path / "in.dat").write_text("a b\nb c\n")
    target = tmp_path / "in.dat" / "out.dat"
    result = run("anonymize", tmp_path / "in.dat", "-o", target, *MODEL)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {target}: cannot write --output: no directory {tmp_path / 'in.dat'}\n"


def test_an_output_that_is_a_link_to_a_directory_is_refused_as_a_directory(tmp_path):
    (tmp_path / "in.dat").write_text("a b\nb c\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to("dir")
    result = run("anonymize", tmp_path / "in.dat", "-o", tmp_path / "link", *MODEL)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {tmp_path / 'link'}: cannot write --output: it is a directory\n"
    assert os.listdir(tmp_path / "dir") == []
