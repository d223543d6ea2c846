"""`setveil verify --max-violations N` whose Nth violation is in a window before the last says how
many later windows it left unchecked whether or not that window holds one more, as docs/cli.md says:
it said only "(stopped at --max-violations)" when the window held more (a docs audit: mushroom,
--window 200 --max-violations 1)."""

from .figure1 import run

COHERENCE = ("-m", "coherence", "-P", "h=0.5", "-P", "k=2", "-P", "p=2")


def test_a_window_with_more_than_the_cap_names_the_later_windows_left(tmp_path):
    (tmp_path / "hiv.txt").write_text("HIV\n")
    unsafe = tmp_path / "unsafe.dat"
    # each window of four is its own unsafe release, breached at every size: more than one violation
    unsafe.write_text("a b HIV\na b HIV\nc d HIV\nc d HIV\n" * 3)
    result = run("verify", unsafe, unsafe, *COHERENCE, "--sensitive", tmp_path / "hiv.txt", "--window", "4",
                 "--max-violations", "1")
    assert result.exit_code == 1 and result.output.count("violation: ") == 1
    assert result.output.endswith(
        f"{unsafe}: FAILS coherence: 1 violation (stopped at --max-violations; 2 later windows not checked)\n")


def test_the_last_window_with_more_than_the_cap_names_none_left(tmp_path):
    (tmp_path / "hiv.txt").write_text("HIV\n")
    (tmp_path / "in.dat").write_text("a b HIV\na b\nc d HIV\nc d\n" + "a b HIV\na b HIV\nc d HIV\nc d HIV\n")
    release = tmp_path / "r.dat"
    release.write_text("a b HIV\na b\nc d HIV\nc d\n" + "a b HIV\na b HIV\nc d HIV\nc d HIV\n")
    result = run("verify", tmp_path / "in.dat", release, *COHERENCE, "--sensitive", tmp_path / "hiv.txt",
                 "--window", "4", "--max-violations", "1")
    assert result.exit_code == 1 and result.output.count("violation: ") == 1
    assert result.output.endswith(f"{release}: FAILS coherence: 1 violation (stopped at --max-violations)\n")
