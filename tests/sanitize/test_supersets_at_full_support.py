"""patterns sample --supersets-at a support no itemset of the input reaches: the picks alone are
written, and the summary counts no superset (no test asked for a support above every itemset's)."""

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.sanitize.patterns import RestrictivePatterns


def test_a_support_no_itemset_reaches_writes_the_picks_alone(tmp_path):
    data = tmp_path / "db.dat"
    # every item misses a transaction, so none (nor any itemset) has the support 1 of every one
    rows = [["a", "b", "c"], ["a", "b"], ["b", "c"], ["a", "c"]] * 3
    data.write_text("".join(" ".join(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "rp.txt"
    result = CliRunner().invoke(cli, ["patterns", "sample", str(data), "-n", "2", "--max-length", "2",
                                      "--min-support", "0.3", "--max-support", "0.8", "--seed", "1",
                                      "--supersets-at", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"2 patterns of length 2-2, support 0.3-0.8, seed 1 and their 0 supersets of "
                             f"support >= 1, written to {out}\n")
    assert len(RestrictivePatterns.load(out).patterns) == 2
