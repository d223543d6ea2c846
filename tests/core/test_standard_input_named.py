"""Data read from standard input is named 'standard input' in every error, at the head of one as in
its sentence (the hierarchy's '1 item of standard input', items split's 'the split of standard
input'), where the head read '-:LINE' and some sentences '-'; standard output stays '-'."""

import pytest

from setveil.core.errors import InputError
from setveil.core.output import WriteError

from .figure1 import FIGURE_1, MODEL, run


@pytest.mark.parametrize("data, error", [
    (b"a b\n\n\xff\n", "standard input:3: not valid UTF-8"),
    (b"", "standard input: no transactions"),
    (b"a b\na\rb\n", "standard input:2: a carriage return inside a line (lines end at \\n or \\r\\n)"),
])
def test_a_file_error_of_standard_input_names_it_at_the_head(tmp_path, private, data, error):
    result = run("anonymize", "-", "-o", tmp_path / "out.dat", *MODEL, "--sensitive", private, input=data)
    assert result.exit_code == 2 and result.output == f"setveil: error: {error}\n"


def test_verify_names_an_original_on_standard_input_in_its_sentences(tmp_path, private):
    release = tmp_path / "release.dat"
    release.write_text("a\nb\n")
    result = run("verify", "-", release, *MODEL, "--sensitive", private, input=FIGURE_1)
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {release}: 2 transactions, but standard input has 5\n"
    absent = tmp_path / "absent.txt"
    absent.write_text("Cancer\n")
    release.write_text(FIGURE_1)
    result = run("verify", "-", release, *MODEL, "--sensitive", absent, input=FIGURE_1)
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: {absent}: none of the 1 items it lists occur in standard input, so "
                             "nothing would be protected: labels must match the input's exactly, case included\n")


def test_a_models_note_names_standard_input_too(tmp_path):
    # the source a model's input_notes is given is the name the messages use
    patterns = tmp_path / "patterns.txt"
    patterns.write_text("a c\nb Cancer\n")
    result = run("anonymize", "-", "-o", tmp_path / "out.dat", "-m", "sanitize", "-P", f"restrictive={patterns}",
                 input=FIGURE_1)
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"setveil: note: 1 of the 2 restrictive patterns in {patterns} (line 2) hold an item "
                             "that never occurs in standard input: they hide nothing\n")


def test_the_error_names_standard_input_and_a_writer_keeps_standard_output_as_dash():
    assert str(InputError("-", "not valid UTF-8", 3)) == "standard input:3: not valid UTF-8"
    assert str(WriteError("-", "cannot write: Broken pipe")) == "-: cannot write: Broken pipe"
    assert str(InputError("in.dat", "no transactions")) == "in.dat: no transactions"


def test_the_plugins_commands_name_standard_input_too(tmp_path):
    # audit deanonymize's refusal of a sigma nothing reaches, and bench sanitize effectiveness's
    # note of a pattern the input never holds, said 'of -' and 'in -'
    (tmp_path / "published.txt").write_text("0.6 a\n")
    result = run("audit", "deanonymize", "-", "--itemsets", tmp_path / "published.txt", "--sigma", "0.99",
                 "-o", tmp_path / "naming.txt", input="a b\nc d\n")
    assert result.exit_code == 2
    assert "parameter 'sigma': 0.99: no itemset of standard input is that frequent" in result.stderr
    (tmp_path / "patterns.txt").write_text("a c\nb Cancer\n")
    result = run("bench", "sanitize", "effectiveness", "-", "--patterns", tmp_path / "patterns.txt", "--psi-step", "1",
                 "--sigma", "0.4", "--policies", "minfia", input=FIGURE_1)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"setveil: note: 1 of the 2 restrictive patterns in {tmp_path / 'patterns.txt'} "
                                    "(line 2) hold an item that never occurs in standard input: they hide nothing\n")
