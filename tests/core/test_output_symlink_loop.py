"""An output that is a loop of symbolic links, or lies beyond one, is refused in one line naming
the option, exit 2, before anything is read, where the stat of whether it was a directory took
the loop for "no" and pathlib's resolve then ended in RuntimeError's traceback ("Symlink loop")."""

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
