"""verify of a model that does not promise a union of safe windows safe, whose check meets the
itemset budget: the refusal says why checking smaller windows is no way out, where for the models
setveil ships it advises --window (test_verify_messages.py); no shipped model is such, so a
third party's is stood in for by coherence with union_safe taken away."""

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.coherence import checker
from setveil.plugins.coherence.model import Coherence


def test_a_check_past_the_budget_of_a_model_not_union_safe_advises_no_windows(tmp_path, monkeypatch):
    monkeypatch.setattr(checker, "ITEMSET_BUDGET", 40)
    monkeypatch.setattr(Coherence, "union_safe", False)
    dense, hiv = tmp_path / "dense.dat", tmp_path / "hiv.txt"
    # 62 public itemsets of support 2; the check counts those of at most 1, 2, 4 items in turn and
    # refuses at the 60 of at most 4
    dense.write_text("a b c d e HIV\na b c d e\nf g h i j\nf g h i j\n")
    hiv.write_text("HIV\n")
    args = ["verify", str(dense), str(dense), "-m", "coherence", "-P", "h=1", "-P", "k=2", "-P", "p=5",
            "--sensitive", str(hiv)]
    refusal = ("setveil: error: mining at a support of 2 transactions would list at least 60 itemsets, more than the "
               "budget of 40: model 'coherence' does not promise that windows which pass make a safe union, so "
               "checking smaller windows would not check this release\n")
    whole = CliRunner().invoke(cli, args)
    assert (whole.exit_code, whole.stderr) == (2, refusal)
    windowed = CliRunner().invoke(cli, [*args, "--window", "4"])
    assert windowed.exit_code == 2
    note = ("setveil: note: model 'coherence' does not promise that the union of safe windows is safe: each window "
            "is checked on its own, not the release they make together\n")
    assert windowed.stderr == note + refusal
