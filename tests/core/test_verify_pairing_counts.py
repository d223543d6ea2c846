"""verify's refusal of a RELEASE, or a --windows file, that does not pair with what it checks counts
in English: '1 transaction', '1 window id', where it said '1 transactions' and '1 window ids'."""

from .figure1 import FIGURE_1, MODEL, run


def test_a_release_of_one_transaction_is_counted_as_one(tmp_path, private):
    (tmp_path / "figure1.dat").write_text(FIGURE_1)
    (tmp_path / "one.dat").write_text("a c\n")
    result = run("verify", tmp_path / "figure1.dat", tmp_path / "one.dat", *MODEL, "--sensitive", private)
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: {tmp_path / 'one.dat'}: 1 transaction, but {tmp_path / 'figure1.dat'} "
                             "has 5\n")


def test_a_windows_file_that_does_not_pair_is_counted_as_english_counts(tmp_path):
    (tmp_path / "patterns.txt").write_text("a c\n")
    sanitize = ["-m", "sanitize", "-P", "psi=0", "-P", f"restrictive={tmp_path / 'patterns.txt'}"]
    for data, ids, said in (("a c\n", "in/0/0-0\nin/0/0-0\n", "2 window ids, but {data} has 1 transaction"),
                            ("a c\nc\n", "in/0/0-1\n", "1 window id, but {data} has 2 transactions")):
        (tmp_path / "data.dat").write_text(data)
        (tmp_path / "windows.txt").write_text(ids)
        result = run("verify", tmp_path / "data.dat", tmp_path / "data.dat", *sanitize,
                     "--windows", tmp_path / "windows.txt")
        assert result.exit_code == 2
        said = said.format(data=tmp_path / "data.dat")
        assert result.output == (f"setveil: error: {tmp_path / 'windows.txt'}: {said}: line i names the window of "
                                 "transaction i\n")
