"""patterns sample counts the patterns it would list a few sizes at a time, those of at most 1, 2,
4 ... items in turn, and exits 2 at the first count past the budget ('at least'), where it
counted every size first: long records held far more patterns than could be counted in the time
a pick takes (50 of BMS-WebView-1's sessions joined, --min-support 0.1: 13.6 s, now 1.8 s; with
--supersets-at 0.1 over five minutes, now 1 s). The budget is lowered here to 1,000."""

from click.testing import CliRunner
import pytest

from setveil.core.cli import cli
from setveil.plugins.sanitize import sample

LONG = " ".join(f"x{i}" for i in range(30))


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(sample, "ITEMSET_BUDGET", 1_000)


def run(tmp_path, lines, *options):
    data = tmp_path / "long.dat"
    data.write_text("".join(line + "\n" for line in lines))
    return CliRunner().invoke(cli, ["patterns", "sample", str(data), "--max-support", "1", *options,
                                    "-o", str(tmp_path / "picked.txt")])


def test_the_picks_are_refused_at_the_first_sizes_past_the_budget(tmp_path, small_budget):
    # 20 records of the same 30 items: 435 pairs, then 31,900 of 2 to 4 items (of 174,406 up to 5)
    result = run(tmp_path, [LONG] * 20, "--min-support", "0.5")
    assert result.exit_code == 2
    assert result.stderr == ("setveil: error: parameter 'min-support': mining at a support of 10 transactions would "
                             "list at least 31,900 itemsets, more than the budget of 1,000: raise it or lower "
                             "--max-length\n")


def test_the_supersets_are_refused_at_the_first_sizes_past_the_budget(tmp_path, small_budget):
    # the pick, {a b}, is the one pattern of 8 of the 10 transactions; at 2 transactions the two
    # long records hold 2^30 - 1 itemsets, 31,933 in all of at most 4 items
    result = run(tmp_path, [LONG] * 2 + ["a b"] * 8, "-n", "1", "--min-support", "0.5", "--supersets-at", "0.2")
    assert result.exit_code == 2
    assert result.stderr == ("setveil: error: parameter 'supersets-at': mining at a support of 2 transactions would "
                             "list at least 31,933 itemsets, more than the budget of 1,000: raise it\n")
