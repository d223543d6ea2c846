"""anonymize (and bench run) of an input with fewer transactions than the model needs of any
window: the input is what is short, and no --window can help, so the refusal says so rather than
the model's advice of windows of at least k transactions."""

import pytest

from .figure1 import FIGURE_1, MODEL, run


@pytest.mark.parametrize("window", [[], ["--window", "2"]])
def test_an_input_shorter_than_k_names_the_input_not_windows(tmp_path, window):
    # before: 'window 0 (transactions 0..0) rejected, nothing written: infeasible: the window has 1
    # non-empty transaction, fewer than k=2: ...; use windows of at least k transactions'
    data, out = tmp_path / "one.dat", tmp_path / "out.dat"
    data.write_text("a b\n")
    result = run("anonymize", data, "-o", out, "-m", "kanonymity", "-P", "k=2", "--fanout", "2", *window)
    assert result.exit_code == 1 and not out.exists()
    assert result.output == (f"setveil: error: {data}: 1 transaction, fewer than the 2 model 'kanonymity' needs of a "
                             "window, nothing written: the input itself is shorter than the smallest window with a "
                             "safe release, which no --window changes\n")
    assert "windows of at least" not in result.output


def test_coherence_and_standard_input_are_told_the_same(tmp_path, private):
    # Figure 1's five transactions at k=6; standard input named as every message names it
    out = tmp_path / "out.dat"
    k6 = [value if value != "k=2" else "k=6" for value in MODEL]
    result = run("anonymize", "-", "-o", out, *k6, "--sensitive", private, input=FIGURE_1)
    assert result.exit_code == 1 and not out.exists()
    assert result.output == ("setveil: error: standard input: 5 transactions, fewer than the 6 model 'coherence' needs "
                             "of a window, nothing written: the input itself is shorter than the smallest window "
                             "with a safe release, which no --window changes\n")


def test_an_input_of_exactly_k_transactions_is_anonymized(tmp_path, private):
    data, out = tmp_path / "figure1.dat", tmp_path / "out.dat"
    data.write_text(FIGURE_1)
    k5 = [value if value != "k=2" else "k=5" for value in MODEL]
    result = run("anonymize", data, "-o", out, *k5, "--sensitive", private)
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 5


@pytest.mark.parametrize("model", [["-m", "kanonymity", "-P", "k=2", "--fanout", "2"],
                                   ["-m", "coherence", "-P", "h=0.5", "-P", "k=2", "-P", "p=2"]])
def test_bench_run_names_the_short_input_too(tmp_path, private, model):
    # QA: 'setveil: error: infeasible: the window has 1 non-empty transaction, fewer than k=2: ...;
    # use windows holding at least k non-empty transactions', naming no file, from a command that
    # cuts no windows
    data, report = tmp_path / "one.dat", tmp_path / "rows.json"
    data.write_text("a b HIV\n")
    sensitive = ["--sensitive", private] if "coherence" in model else []
    result = run("bench", "run", data, *model, *sensitive, "--runs", "1", "--json", report)
    assert result.exit_code == 1 and not report.exists()
    assert result.output == (f"setveil: error: {data}: 1 transaction, fewer than the 2 model {model[1]!r} needs of a "
                             "window, nothing written: the input itself is shorter than the smallest window with a "
                             "safe release, which no --window changes\n")
