"""Messages of `setveil verify` and `anonymize` that walkthroughs found saying less, or other, than
what holds: each test gives the run the message was wrong for."""

import pytest

from setveil.core.cli import cli

COHERENCE = ["-m", "coherence", "-P", "h=0.5", "-P", "k=2", "-P", "p=2"]


def invoke(runner, *args):
    return runner.invoke(cli, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    # safe at h=0.5, k=2, p=2 as it is: every public itemset is held twice, HIV by half of them
    (tmp_path / "in.dat").write_text("a b HIV\na b\nc d HIV\nc d\n")
    (tmp_path / "hiv.txt").write_text("HIV\n")
    return tmp_path


def test_a_release_with_exactly_max_violations_is_not_said_to_be_stopped(runner, files):
    # the cap was said to stop the check of a release with exactly N violations, as if more existed
    release = files / "r.dat"
    release.write_text("a b HIV\na b\nc d HIV\nc d e\n")  # one added occurrence: one violation
    result = invoke(runner, "verify", files / "in.dat", release, *COHERENCE, "--sensitive", files / "hiv.txt",
                    "--max-violations", "1")
    assert result.exit_code == 1
    assert result.output.count("violation: ") == 1
    assert f"{release}: FAILS coherence: 1 violation\n" in result.output


def test_a_release_with_more_violations_than_the_cap_is_said_to_be_stopped(runner, files):
    unsafe = files / "unsafe.dat"
    unsafe.write_text("a b HIV\na b HIV\nc d HIV\nc d HIV\n")  # its own release: breaches at every size
    result = invoke(runner, "verify", unsafe, unsafe, *COHERENCE, "--sensitive", files / "hiv.txt",
                    "--max-violations", "1")
    assert result.exit_code == 1 and result.output.count("violation: ") == 1
    assert f"{unsafe}: FAILS coherence: 1 violation (stopped at --max-violations)\n" in result.output


def test_windows_after_the_one_that_reached_the_cap_are_said_to_be_unchecked(runner, files):
    release = files / "r.dat"
    release.write_text("a b HIV e\na b\nc d HIV e\nc d\n")  # two windows of two, each adding an item
    args = ["verify", files / "in.dat", release, *COHERENCE, "--sensitive", files / "hiv.txt", "--window", "2"]
    first = invoke(runner, *args, "--max-violations", "1")
    assert first.exit_code == 1 and first.output.count("violation: ") == 1
    # the cap bounds the work: the second window is not checked for one more
    assert (f"{release}: FAILS coherence: 1 violation (stopped at --max-violations; 1 later window not checked)\n"
            in first.output)
    both = invoke(runner, *args, "--max-violations", "2")
    assert both.exit_code == 1 and f"{release}: FAILS coherence: 2 violations\n" in both.output


@pytest.mark.parametrize("model, typed, shown", [
    (COHERENCE[:2] + ["-P", "k=2", "-P", "p=2"], "h=1", "h=1, k=2, p=2"),
    (COHERENCE[:2] + ["-P", "k=2", "-P", "p=2"], "h=0.50", "h=0.5, k=2, p=2"),
    (["-m", "rho"], "rho=0.70", "rho=0.7, qid_size=4"),
    (["-m", "rho", "-P", "qid_size=all"], "rho=0.7", "rho=0.7, qid_size=all"),
])
def test_the_verdict_names_a_parameter_as_typed(runner, files, model, typed, shown):
    # the verdict said h=1.0 of a release checked at h=1 (msg74's walkthrough)
    result = invoke(runner, "verify", files / "in.dat", files / "in.dat", *model, "-P", typed,
                    "--sensitive", files / "hiv.txt")
    assert result.exit_code == 0, result.output
    assert result.output == f"{files / 'in.dat'}: satisfies {model[1]} ({shown})\n"


def test_the_verdict_names_sanitize_psi_as_typed(runner, tmp_path):
    data, patterns = tmp_path / "in.dat", tmp_path / "patterns.txt"
    data.write_text("a b\na\nb\n")
    patterns.write_text("a b\n")
    release = tmp_path / "r.dat"
    release.write_text("a\na\nb\n")
    result = invoke(runner, "verify", data, release, "-m", "sanitize", "-P", f"restrictive={patterns}", "-P", "psi=0")
    assert result.output == f"{release}: satisfies sanitize (restrictive={patterns}, psi=0)\n"


def test_an_empty_public_list_is_said_to_leave_coherence_nothing_to_suppress(runner, files):
    # the note said only that the list lists no items, which a user may read as the default (every
    # item not private public), while it makes no item public and the release is the input
    unsafe, empty, out = files / "unsafe.dat", files / "empty.txt", files / "out.dat"
    # b, d, e and f, each held once, are moles at k=2 when public; the items in the order a release writes them
    unsafe.write_text("HIV a b\na e\nHIV c d\nc f\n")
    empty.write_text("")
    result = invoke(runner, "anonymize", unsafe, "-o", out, *COHERENCE, "--sensitive", files / "hiv.txt",
                    "--public", empty)
    assert result.exit_code == 0, result.output
    assert out.read_text() == unsafe.read_text()
    assert result.stderr == (
        f"setveil: note: {empty} lists no items, so no item would be public\n"
        "setveil: note: with no public item no itemset is an attacker's knowledge (Definition 1), so coherence "
        "suppresses nothing: each window is released as it is, or refused when a private item is in more than h "
        "of its transactions (Theorem 1)\n")
    # Theorem 1's refusal remains: HIV is in half of the transactions
    refused = invoke(runner, "anonymize", unsafe, "-o", out, *COHERENCE[:2], "-P", "h=0.4", "-P", "k=2", "-P", "p=2",
                     "--sensitive", files / "hiv.txt", "--public", empty)
    assert refused.exit_code == 1 and "more than h=0.4" in refused.stderr
    # a list that lists public items gets no such note
    public = files / "public.txt"
    public.write_text("a\n")
    listed = invoke(runner, "verify", unsafe, unsafe, *COHERENCE, "--sensitive", files / "hiv.txt", "--public", public)
    assert "suppresses nothing" not in listed.stderr


def test_a_check_past_the_itemset_budget_names_verify_s_remedy(runner, files, monkeypatch):
    # verify ended in the miner's bare refusal, naming no option (msg74: mushroom's first 200
    # transactions at coherence's p=23 would list 74,530,495 itemsets); the budget lowered here
    from setveil.plugins.coherence import checker

    monkeypatch.setattr(checker, "ITEMSET_BUDGET", 40)
    dense = files / "dense.dat"
    # 62 public itemsets of support 2; the check counts those of at most 1, 2, 4 items in turn and
    # refuses at the 60 of at most 4
    dense.write_text("a b c d e HIV\na b c d e\nf g h i j\nf g h i j\n")
    args = ["verify", dense, dense, "-m", "coherence", "-P", "h=1", "-P", "k=2", "-P", "p=5",
            "--sensitive", files / "hiv.txt"]
    refusal = "setveil: error: mining at a support of 2 transactions would list at least 60 itemsets, more than the " \
              "budget of 40: "
    why = " (each mined apart: a release whose windows all pass satisfies coherence)\n"
    whole = invoke(runner, *args)
    assert whole.exit_code == 2
    assert whole.stderr == refusal + "check the release in windows of fewer transactions with --window N" + why
    windowed = invoke(runner, *args, "--window", "4")
    assert windowed.exit_code == 2
    assert windowed.stderr == refusal + "in window 0; check the release in smaller windows with --window N" + why
    # as advised: windows of two list 31 itemsets each
    smaller = invoke(runner, *args, "--window", "2")
    assert smaller.exit_code == 0 and smaller.output == f"{dense}: satisfies coherence (h=1, k=2, p=5)\n"


def test_setveil_plugins_and_sanitizes_violations_write_a_decimal_as_p_takes_it(runner, tmp_path):
    # `setveil plugins` listed t_max's default as 500.0 and psi's as 0.0, and a sanitize violation
    # said "more than psi=0.0", where the verdict had said psi=0 since the verdict's fix
    listing = invoke(runner, "plugins")
    assert "-P t_max: a number in (0, inf) or off, default 500 —" in listing.output
    assert "-P psi: a number in [0, 1], default 0 —" in listing.output
    (tmp_path / "in.dat").write_text("a b\na b\na c\n")
    (tmp_path / "patterns.txt").write_text("a b\n")
    result = invoke(runner, "verify", tmp_path / "in.dat", tmp_path / "in.dat", "-m", "sanitize",
                    "-P", f"restrictive={tmp_path / 'patterns.txt'}", "-P", "psi=0")
    assert result.exit_code == 1
    assert ("restrictive pattern of line 1 is still held by 2 of its 2 sensitive transactions, more than psi=0"
            in result.output)
