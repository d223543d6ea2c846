"""verify's verdict names a RELEASE read from standard input 'standard input', as every error that
names it does, where the line began '-: FAILS' or '-: satisfies'."""

from .figure1 import FIGURE_1, MODEL, run


def test_a_failing_release_on_standard_input_is_named_in_the_verdict(files):
    # also the one test that gives RELEASE on standard input: verify names a missing RELEASE before
    # it reads ORIGINAL (refuse_unreadable) and leaves '-' to the read, and a check that stat'ed '-'
    # as a path passed every other test in tests/core (rev65, mutation pass over refuse_unreadable)
    result = run("verify", files / "fig1.dat", "-", *MODEL, "--sensitive", files / "private.txt", input=FIGURE_1)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1] == "standard input: FAILS coherence: 8 violations"


def test_a_passing_release_on_standard_input_is_named_in_the_verdict(tmp_path):
    original = tmp_path / "in.dat"
    original.write_text(FIGURE_1)
    (tmp_path / "patterns.txt").write_text("a c\n")
    result = run("verify", original, "-", "-m", "sanitize", "-P", f"restrictive={tmp_path / 'patterns.txt'}",
                 "-P", "psi=1", input=FIGURE_1)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"standard input: satisfies sanitize (restrictive={tmp_path / 'patterns.txt'}, psi=1)\n"


def test_a_release_named_by_its_path_keeps_its_path(tmp_path):
    original = tmp_path / "in.dat"
    original.write_text(FIGURE_1)
    (tmp_path / "patterns.txt").write_text("a c\n")
    result = run("verify", "-", original, "-m", "sanitize", "-P", f"restrictive={tmp_path / 'patterns.txt'}",
                 "-P", "psi=1", input=FIGURE_1)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{original}: satisfies sanitize (restrictive={tmp_path / 'patterns.txt'}, psi=1)\n"
