"""verify of a release that adds an item the original never holds, one only the pattern (or item)
list names: the release is not safe, exit 1 naming the added item, rather than the refusal of a
list that names nothing of the original, exit 2, which verify promises for a file it cannot take."""

import pytest

from ..core.figure1 import FIGURE_1, MODEL, PRIVATE, run

ORIGINAL = "a b\na c\nb c\na b c\n"
SANITIZE = ["-m", "sanitize", "-P", "psi=0"]
ADDED = ("violation: {where}added-item: 1 released occurrence is not in the original transaction at the same "
         "position (a release keeps the window's order); itemset {{z}}; transaction 3\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "original.dat").write_text(ORIGINAL)
    (tmp_path / "added.dat").write_text("a b\na c\nb c\na b z\n")
    (tmp_path / "patterns.txt").write_text("a z\n")
    return tmp_path


@pytest.mark.parametrize("window, where", [([], ""), (["--window", "2"], "window 1: ")])
def test_a_release_adding_an_item_only_the_patterns_name_fails_with_exit_1(files, window, where):
    # before: exit 2, 'patterns.txt: its one restrictive pattern holds an item that never occurs in
    # original.dat, so nothing would be hidden: ...', the release never looked at
    result = run("verify", files / "original.dat", files / "added.dat", *SANITIZE,
                 "-P", f"restrictive={files / 'patterns.txt'}", *window)
    assert result.exit_code == 1
    assert result.stdout == ADDED.format(where=where)
    assert result.stderr == f"{files / 'added.dat'}: FAILS sanitize: 1 violation\n"


def test_the_original_itself_is_still_refused_for_its_patterns(files):
    # a release that adds nothing passes whatever such patterns say: the file is what is wrong
    result = run("verify", files / "original.dat", files / "original.dat", *SANITIZE,
                 "-P", f"restrictive={files / 'patterns.txt'}")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (f"setveil: error: {files / 'patterns.txt'}: its one restrictive pattern holds an item "
                             f"that never occurs in {files / 'original.dat'}, so nothing would be hidden: labels must "
                             "match the input's exactly, case included\n")


def test_a_sensitive_list_naming_only_the_added_item_is_told_the_same(tmp_path):
    # coherence's sensitive list, none of whose items occur in Figure 1, names the one item the release adds
    (tmp_path / "figure1.dat").write_text(FIGURE_1)
    release = FIGURE_1.splitlines()
    release[2] += " Cancer"
    (tmp_path / "release.dat").write_text("\n".join(release) + "\n")
    (tmp_path / "private.txt").write_text("Cancer\n")
    result = run("verify", tmp_path / "figure1.dat", tmp_path / "release.dat", *MODEL,
                 "--sensitive", tmp_path / "private.txt")
    assert result.exit_code == 1
    assert result.stdout.startswith("violation: added-item: 1 released occurrence is not in the original transaction")
    assert result.stdout.endswith("itemset {Cancer}; transaction 2\n")
    # and Figure 1's own private list still checks the release as before
    (tmp_path / "known.txt").write_text(PRIVATE)
    known = run("verify", tmp_path / "figure1.dat", tmp_path / "release.dat", *MODEL,
                "--sensitive", tmp_path / "known.txt")
    assert known.exit_code == 1 and "added-item" in known.stdout
