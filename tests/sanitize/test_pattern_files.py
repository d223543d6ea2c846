"""A data owner's walkthrough of the sanitize model with pattern files written by hand
(docs/sanitize.md, "Using it")."""

import pytest

from setveil.core.cli import cli

from .helpers import write_patterns


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.dat"
    path.write_text("52 55\n52 55 1\nCaf\u00e9 x\nCaf\u00e9 x 1\n3 4\n", encoding="utf-8")
    return path


def _run(runner, command, patterns):
    return runner.invoke(cli, [*command, "-m", "sanitize", "-P", f"restrictive={patterns}", "-P", "psi=0",
                               "-P", "sigma=off"])


@pytest.mark.parametrize("line", ["52\u200b 55", "Cafe\u0301 x"], ids=["zero-width space", "NFD"])
def test_a_file_whose_every_pattern_is_spelt_otherwise_names_the_line_and_the_spelling(runner, tmp_path, data, line):
    # Regression (walkthrough): a file of one pattern, its 52 with a pasted zero-width space or its
    # Café typed in NFD, was refused as holding an item that never occurs, "case included", naming
    # no line, where the same pattern beside one the data holds named its line and the spelling
    patterns = write_patterns(tmp_path / "p.txt", "3 4", line)
    out = tmp_path / "out.dat"
    for command in (["anonymize", str(data), "-o", str(out)], ["verify", str(data), str(data)]):
        result = _run(runner, command, patterns)
        assert result.exit_code == 2 and not out.exists(), result.output
        assert result.stderr.strip().endswith(f"{patterns}:2: the pattern holds an item that never occurs in {data}, "
                                              "which holds it in another case, Unicode form or with an invisible "
                                              "character: write it exactly as the input spells it")
    alone = write_patterns(tmp_path / "alone.txt", line)
    for command in (["anonymize", str(data), "-o", str(out)], ["verify", str(data), str(data)]):
        result = _run(runner, command, alone)
        assert result.exit_code == 2 and not out.exists(), result.output
        assert result.stderr.strip() == (f"setveil: error: {alone}:1: the pattern holds an item that never occurs in "
                                         f"{data}, which holds it in another case, Unicode form or with an invisible "
                                         "character: write it exactly as the input spells it")


def test_a_file_whose_every_pattern_names_an_absent_item_is_refused_naming_the_file(runner, tmp_path, data):
    # Regression (walkthrough): a file of one pattern was refused as "each of its 1 restrictive patterns"
    out = tmp_path / "out.dat"
    for lines, every in ((("52 56", "# my note"), "each of its 2 restrictive patterns"),
                         (("52 56",), "its one restrictive pattern")):
        patterns = write_patterns(tmp_path / "p.txt", *lines)
        for command in (["anonymize", str(data), "-o", str(out)], ["verify", str(data), str(data)]):
            result = _run(runner, command, patterns)
            assert result.exit_code == 2 and not out.exists(), result.output
            assert result.stderr.strip() == (f"setveil: error: {patterns}: {every} holds an item that never occurs in "
                                             f"{data}, so nothing would be hidden: labels must match the input's "
                                             "exactly, case included")


def test_patterns_sample_help_names_the_parameter_as_the_other_commands_quote_one(runner):
    # Regression (walkthrough): the help read "for ``-P restrictive=FILE``", reStructuredText's
    # double backquotes, where every other --help quotes a command or option in single ones
    result = runner.invoke(cli, ["patterns", "sample", "--help"])
    assert result.exit_code == 0
    assert "``" not in result.output
    assert "write them one per line for `-P restrictive=FILE`." in " ".join(result.output.split())


def _effectiveness(runner, data, patterns):
    return runner.invoke(cli, ["bench", "sanitize", "effectiveness", str(data), "--patterns", str(patterns),
                               "--psi-step", "1", "--sigma", "0.4", "--policies", "minfia"])


def test_bench_effectiveness_holds_a_given_pattern_file_to_the_input_as_anonymize_does(runner, tmp_path, data):
    # Regression (walkthrough): a file none of whose patterns occurs ran the whole grid, exit 0, its
    # rows restrictive 0 and nothing removed, where anonymize refuses it; a pattern with an absent
    # item went unnoted; and one spelt otherwise ended in the service's message for a window
    absent = write_patterns(tmp_path / "absent.txt", "52 56")
    result = _effectiveness(runner, data, absent)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (f"setveil: error: {absent}: its one restrictive pattern holds an item that "
                                     f"never occurs in {data}, so nothing would be hidden: labels must match the "
                                     "input's exactly, case included")
    spelt = write_patterns(tmp_path / "spelt.txt", "52 55", "52\u200b 1")
    result = _effectiveness(runner, data, spelt)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (f"setveil: error: {spelt}:2: the pattern holds an item that never occurs in "
                                     f"{data}, which holds it in another case, Unicode form or with an invisible "
                                     "character: write it exactly as the input spells it")
    partly = write_patterns(tmp_path / "partly.txt", "52 55", "3 5")
    result = _effectiveness(runner, data, partly)
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"setveil: note: 1 of the 2 restrictive patterns in {partly} (line 2) hold an item "
                             f"that never occurs in {data}: they hide nothing\n")
    assert "| minfia | 0.0 | 1           | 0.00             | 16.67 " in result.stdout
