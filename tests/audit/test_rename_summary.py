"""audit rename ends with a summary line on standard error, as publish and deanonymize do:
counts and paths, never an item."""

import pytest

from setveil.core.cli import cli


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "db.dat"
    path.write_text("secret1 b\nb c\nsecret1 c d\n")
    return path


def test_rename_says_what_it_wrote_in_one_line(runner, tmp_path, database):
    renamed, mapping = tmp_path / "renamed.dat", tmp_path / "f.txt"
    result = runner.invoke(cli, ["audit", "rename", str(database), "-o", str(renamed), "--mapping", str(mapping)],
                           catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stderr == f"3 transactions over 4 items renamed: f(D) written to {renamed}, f to {mapping}\n"
    assert result.stdout == ""


def test_rename_to_standard_output_keeps_the_line_off_the_data(runner, tmp_path, database):
    mapping = tmp_path / "f.txt"
    result = runner.invoke(cli, ["audit", "rename", str(database), "-o", "-", "--mapping", str(mapping)],
                           catch_exceptions=False)
    assert result.exit_code == 0
    assert [len(line.split()) for line in result.stdout.splitlines()] == [2, 2, 3]
    assert result.stderr == f"3 transactions over 4 items renamed: f(D) written to standard output, f to {mapping}\n"
    assert "secret1" not in result.stderr
