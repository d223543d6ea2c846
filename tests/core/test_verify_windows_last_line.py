"""verify --windows reads a file of window ids whose last line has no line end as it reads one
that has it: the last id names the last transaction's window (no test gave such a file)."""

from click.testing import CliRunner

from setveil.core.cli import cli


def test_a_last_window_id_without_a_line_end_is_read(tmp_path):
    data, release, ids = tmp_path / "d.dat", tmp_path / "r.dat", tmp_path / "w.txt"
    data.write_text("a b\na b\nc\nc\nc\n")
    release.write_text("a b\na b\nc\nc\nc\n")
    model = ["-m", "kanonymity", "-P", "k=2", "--fanout", "2"]
    ids.write_text("w1\nw1\nw2\nw2\nw2")
    passed = CliRunner().invoke(cli, ["verify", str(data), str(release), *model, "--windows", str(ids)])
    assert (passed.exit_code, passed.stdout) == (0, f"{release}: satisfies kanonymity (k=2)\n")
    # the last id is a window of its own, which one transaction cannot make 2-anonymous
    ids.write_text("w1\nw1\nw2\nw2\nw3")
    failed = CliRunner().invoke(cli, ["verify", str(data), str(release), *model, "--windows", str(ids)])
    assert failed.exit_code == 1
    assert failed.stdout.splitlines() == ["violation: window w3: small-class: a class of 1 identical released "
                                          "transaction is smaller than k=2 (1 transaction is in such classes); "
                                          "transaction 4"]
