"""tail --out R --windows W: each window id is written as one line of W per transaction, which
verify --windows reads back line by line; an id no line can hold (a line end in a forged one) is
refused before anything is written, rather than written as two lines."""

import pytest

from setveil.streams.released import Released, ReleaseError
from setveil.streams.tail import write_release


def release_of(*ids: str) -> Released:
    release = Released()
    for tid, name in enumerate(ids):
        release.add(name, [{"tid": tid, "items": [f"i{tid}"]}])
    return release


@pytest.mark.parametrize("forged, shown, problem", [
    # before: 'in/0/1-1\nforged' was written as two lines of W, and verify --windows then counted
    # one line more than the release's transactions
    ("in/0/1-1\nforged", "'in/0/1-1\\nforged'", "holds a character that is not printable (a line end, say)"),
    ("in/0/1-1\rforged", "'in/0/1-1\\rforged'", "holds a character that is not printable (a line end, say)"),
    ("in/0/1-1\u2028forged", "'in/0/1-1\\u2028forged'", "holds a character that is not printable (a line end, say)"),
    (" in/0/1-1", "' in/0/1-1'", "has blanks at its ends"),
    # verify strips each line: this one would read back as another id than the release's
    ("in/0/1-1 ", "'in/0/1-1 '", "has blanks at its ends"),
    ("", "''", "is empty or blank"),
    ("  ", "'  '", "is empty or blank"),
    ("x" * 99 + "\n", f"'{'x' * 80}…'", "holds a character that is not printable (a line end, say)"),
], ids=["line-feed", "carriage-return", "line-separator", "blanks", "trailing-blanks", "empty", "blank",
        "long"])
def test_a_window_id_no_line_can_hold_is_refused_and_nothing_is_written(tmp_path, forged, shown, problem):
    out, windows = tmp_path / "r.dat", tmp_path / "w.txt"
    with pytest.raises(ReleaseError) as refused:
        write_release(release_of("in/0/0-0", forged), out, windows)
    assert str(refused.value) == (f"--windows: window id {shown} {problem}, so it cannot be written as the one line of "
                                  "each of its transactions that verify --windows reads; nothing written: give --out "
                                  "alone")
    assert not out.exists() and not windows.exists()
    # --out alone has no lines of ids to keep
    assert write_release(release_of("in/0/0-0", forged), out) == 2
    assert out.read_text() == "i0\ni1\n"


def test_a_workers_window_ids_are_written_one_line_per_transaction(tmp_path):
    out, windows = tmp_path / "r.dat", tmp_path / "w.txt"
    assert write_release(release_of("in/0/0-1", "in/0/0-1", "in/1/0-0"), out, windows) == 3
    assert windows.read_text() == "in/0/0-1\nin/0/0-1\nin/1/0-0\n"
