"""The audit's mining (publish, deanonymize, bench audit) counts its budget a few sizes at a time,
those of at most 1, 2, 4 ... items in turn, and exits 2 at the first count past it ('at least'),
where it counted every size first: 50 of BMS-WebView-1's sessions joined, --sigma 0.1 --max-size 5,
took 14.2 s to refuse, now 1.9 s. The budget is lowered here to 1,000."""

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.audit import itemsets


def test_publish_is_refused_at_the_first_sizes_past_the_budget(tmp_path, monkeypatch):
    # 20 records of the same 30 items: 465 itemsets of at most 2, then 31,930 of at most 4 (of 174,436 up to 5)
    monkeypatch.setattr(itemsets, "ITEMSET_BUDGET", 1_000)
    data = tmp_path / "long.dat"
    data.write_text((" ".join(f"x{i}" for i in range(30)) + "\n") * 20)
    result = CliRunner().invoke(cli, ["audit", "publish", str(data), "--sigma", "0.5", "--max-size", "5",
                                      "-o", str(tmp_path / "F.txt")])
    assert result.exit_code == 2
    assert result.stderr == ("setveil: error: parameter 'sigma': mining at a support of 10 transactions would list at "
                             "least 31,930 itemsets, more than the budget of 1,000: raise it or give a smaller "
                             "--max-size\n")
    assert not (tmp_path / "F.txt").exists()
