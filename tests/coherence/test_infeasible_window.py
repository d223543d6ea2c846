"""A window that no suppression makes coherent, as an analyst meets it on their own data."""

from ..core.figure1 import run

MODEL = ["--model", "coherence", "-P", "k=1", "-P", "p=1"]


def test_a_private_item_above_h_names_the_least_h_the_window_allows(tmp_path):
    # User walkthrough: items split --method random over mushroom's first 1,000 transactions made
    # an item in 938 of them sensitive, and anonymize said only that no cohesion exists at h=0.4
    # (Theorem 1), leaving the user to guess which h, or which item, would do
    data, private, out = tmp_path / "d.dat", tmp_path / "private.txt", tmp_path / "out.dat"
    data.write_text("a S\na S\na\nb\nb\n", encoding="utf-8")
    private.write_text("S\n", encoding="utf-8")
    refused = run("anonymize", data, "-o", out, *MODEL, "-P", "h=0.3", "--sensitive", private)
    assert refused.exit_code == 1 and not out.exists()
    assert refused.output == (
        "setveil: error: window 0 (transactions 0..4) rejected, nothing written: infeasible: a private item is in 2 "
        "of the window's 5 transactions, more than h=0.3: the empty itemset is a mole and no (h,k,p)-cohesion exists "
        "(Theorem 1); this window allows h in [2/5, 1], or that item public\n"
    )
    # the range's lower end is allowed: a share of exactly h is no breach
    assert run("anonymize", data, "-o", out, *MODEL, "-P", "h=0.4", "--sensitive", private).exit_code == 0


def test_a_window_can_hold_a_private_item_above_h_that_the_whole_input_holds_below_it(tmp_path):
    # items split --h makes public the items in more than h of the input's transactions, not of
    # each window's: S is in 3 of 8 transactions (h=0.4 keeps it private), but in 3 of window 1's 4
    data, private, out = tmp_path / "d.dat", tmp_path / "private.txt", tmp_path / "out.dat"
    data.write_text("a\nb\na\nb\na S\nb S\na S\nb\n", encoding="utf-8")
    private.write_text("S\n", encoding="utf-8")
    assert run("anonymize", data, "-o", out, *MODEL, "-P", "h=0.4", "--sensitive", private).exit_code == 0
    refused = run("anonymize", data, "-o", out, *MODEL, "-P", "h=0.4", "--sensitive", private, "--window", "4")
    assert refused.exit_code == 1
    assert refused.output.startswith("setveil: error: window 1 (transactions 4..7) rejected, nothing written: ")
    assert refused.output.endswith("this window allows h in [3/4, 1], or that item public\n")
