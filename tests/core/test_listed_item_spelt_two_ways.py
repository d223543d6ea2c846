"""An item list naming a label the input holds both as listed and in another Unicode form: the
other spelling would stay unprotected while the release passes, so the run is refused naming the
list's line and no label (no test gave the input both spellings; those holding only the other
one are test_cli_refusals' misspelt lists)."""

import unicodedata

import pytest
from click.testing import CliRunner

from setveil.core.cli import cli

COMPOSED = "caf\u00e9"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)


@pytest.mark.parametrize("command", ["anonymize", "verify"])
def test_an_item_the_input_also_spells_otherwise_is_refused_naming_the_line(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "u.dat").write_text(f"{COMPOSED} b\n{DECOMPOSED} b\n{COMPOSED} c\nb c\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text(f"b\n{COMPOSED}\n", encoding="utf-8")
    target = ["-o", "o.dat"] if command == "anonymize" else ["u.dat"]
    result = CliRunner().invoke(cli, [command, "u.dat", *target, "-m", "coherence", "-P", "h=0.9", "-P", "k=1",
                                      "-P", "p=2", "--sensitive", "s.txt"])
    assert result.exit_code == 2
    assert result.stderr == ("setveil: error: s.txt:2: u.dat also spells the item in another Unicode form or with an "
                             "invisible character, which the list does not give: list each spelling the input uses\n")
    assert COMPOSED not in result.stderr and DECOMPOSED not in result.stderr
    assert not (tmp_path / "o.dat").exists()
