"""rho reads no public list (every item, sensitive or not, can be part of a qid, docs/rho.md): a
--public given to it is noted as changing nothing, in one line that names no item of the list."""

import pytest

from ..core.figure1 import FIGURE_1, PRIVATE, run

RHO = ["-m", "rho", "-P", "rho=0.5"]
NOTE = "setveil: note: --public changes nothing for model 'rho': every item, sensitive or not, can be part of a qid\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "in.dat").write_text(FIGURE_1)
    (tmp_path / "private.txt").write_text(PRIVATE)
    (tmp_path / "public.txt").write_text("a\nb\nc\n")
    return tmp_path


def test_anonymize_and_verify_note_that_public_changes_nothing_for_rho(files):
    # before: both took the list in silence, as if it narrowed what the attacker may know
    lists = ["--sensitive", files / "private.txt", "--public", files / "public.txt"]
    made = run("anonymize", files / "in.dat", "-o", files / "out.dat", *RHO, *lists)
    assert made.exit_code == 0, made.output
    assert made.stderr == NOTE
    checked = run("verify", files / "in.dat", files / "out.dat", *RHO, *lists)
    assert checked.exit_code == 0, checked.output
    assert checked.stderr == NOTE
    # the same release as without the list: it changes nothing
    alone = run("anonymize", files / "in.dat", "-o", files / "alone.dat", *RHO, "--sensitive", files / "private.txt")
    assert alone.exit_code == 0 and alone.stderr == ""
    assert (files / "alone.dat").read_text() == (files / "out.dat").read_text()
