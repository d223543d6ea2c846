"""`setveil verify --windows`: a release checked window by window, the windows named per
transaction as `setveil tail --windows` writes them (core/cli.py). A soak's 1.49 M-transaction
`rho` union ran the checker out of 24 GiB; each of its windows takes a fraction of a second."""

import pytest

from .figure1 import FIGURE_1, MODEL, run


def interleaved(files):
    """Figure 1 twice, its transactions alternating, and the release of each copy made as a
    window of its own (``anonymize`` of Figure 1), interleaved alike: a stream's two partitions."""
    original, release = files / "both.dat", files / "release.dat"
    made = files / "fig1.release.dat"
    result = run("anonymize", files / "fig1.dat", "-o", made, *MODEL, "--sensitive", files / "private.txt")
    assert result.exit_code == 0, result.output
    rows, released = FIGURE_1.splitlines(), made.read_text().split("\n")[:5]
    original.write_text("".join(f"{row}\n{row}\n" for row in rows))
    release.write_text("".join(f"{row}\n{row}\n" for row in released))
    windows = files / "windows.txt"
    windows.write_text("in/0/0-4\nin/1/0-4\n" * 5)
    return original, release, windows


def test_each_named_window_is_checked_apart(files):
    original, release, windows = interleaved(files)
    checked = run("verify", original, release, *MODEL, "--sensitive", files / "private.txt", "--windows", windows)
    assert checked.exit_code == 0, checked.output
    assert checked.output == f"{release}: satisfies coherence (h=0.8, k=2, p=2)\n"


def test_a_violation_is_named_by_its_window_id_and_input_position(files):
    original, release, windows = interleaved(files)
    lines = release.read_text().split("\n")
    lines[7] += " w"  # an item the original's transaction 7 (window in/1/0-4) does not hold
    release.write_text("\n".join(lines))
    result = run("verify", original, release, *MODEL, "--sensitive", files / "private.txt", "--windows", windows)
    assert result.exit_code == 1
    assert result.output.count("violation: ") == 1
    assert "violation: window in/1/0-4: added-item" in result.output and "transaction 7" in result.output
    # ids saved by an editor with CRLF line ends, or padded, name the same windows
    windows.write_text("".join(f" {line}\r\n" for line in windows.read_text().splitlines()))
    result = run("verify", original, release, *MODEL, "--sensitive", files / "private.txt", "--windows", windows)
    assert result.exit_code == 1 and result.output.count("violation: ") == 1
    assert "violation: window in/1/0-4: added-item" in result.output


def test_windows_that_do_not_pair_with_the_release_exit_2_naming_the_file(files):
    original, release, windows = interleaved(files)
    private = ["--sensitive", files / "private.txt"]
    windows.write_text("in/0/0-4\n" * 9)
    result = run("verify", original, release, *MODEL, *private, "--windows", windows)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert (f"setveil: error: {windows}: 9 window ids, but {release} has 10 transactions: line i names the window "
            "of transaction i") in result.output
    windows.write_text("in/0/0-4\n" * 11)  # one id more than the release has transactions
    result = run("verify", original, release, *MODEL, *private, "--windows", windows)
    assert result.exit_code == 2 and f"{windows}: 11 window ids, but {release} has 10 transactions" in result.output
    windows.write_text("in/0/0-4\n" * 3 + "\n" + "in/0/0-4\n" * 6)
    result = run("verify", original, release, *MODEL, *private, "--windows", windows)
    assert result.exit_code == 2 and f"setveil: error: {windows}:4: no window id" in result.output
    result = run("verify", original, release, *MODEL, *private, "--windows", windows, "--window", "5")
    assert result.exit_code == 2
    assert "parameter '--windows': names windows of any size; give it or --window, not both" in result.output


@pytest.mark.parametrize("given", [None, b"in/0/0-4\n\xff\n"], ids=["missing", "not-utf8"])
def test_a_windows_file_that_cannot_be_read_is_refused_before_the_data_is_read(files, given):
    # Regression (QA): it was read after ORIGINAL and RELEASE, so a missing one was named after
    # 11.7 s and 642 MB of reading 1,000,000 transactions twice; an original no reader gets
    # past shows which file was read first
    original, release, windows = interleaved(files)
    original.write_bytes(b"\xff\n")
    if given is None:
        windows.unlink()
    else:
        windows.write_bytes(given)
    result = run("verify", original, release, *MODEL, "--sensitive", files / "private.txt", "--windows", windows)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    expected = "cannot read: No such file or directory" if given is None else "2: not valid UTF-8"
    assert result.output.startswith(f"setveil: error: {windows}") and result.output.rstrip().endswith(expected)


def test_a_windows_file_on_standard_input_is_refused_naming_the_option(files):
    original, release, _ = interleaved(files)
    result = run("verify", original, release, *MODEL, "--sensitive", files / "private.txt", "--windows", "-",
                 input="in/0/0-4\n" * 10)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("setveil: error: parameter '--windows': standard input ('-') is not supported")


def test_the_windows_are_the_files_a_line_shifted_fails_where_a_window_it_names_fails(files):
    # docs/cli.md, `verify --windows`: the windows are FILE's, whatever the service cut; a window of one
    # transaction has no safe release at k=2, while windows that pass prove the release's union safe
    original, release, windows = interleaved(files)
    ids = windows.read_text().splitlines()
    private = ["--sensitive", files / "private.txt"]
    windows.write_text("".join(f"{line}\n" for line in ["in/0/0-0", *ids[:-1]]))
    result = run("verify", original, release, *MODEL, *private, "--windows", windows)
    assert result.exit_code == 1
    assert "violation: window in/0/0-0: small-cohort" in result.output
    windows.write_text("in/0/0-9\n" * len(ids))  # both partitions' windows named as one: their union passes
    result = run("verify", original, release, *MODEL, *private, "--windows", windows)
    assert result.exit_code == 0, result.output
