"""`setveil bench coherence`: Xu et al. §4's distortion table, with the paper's preprocessing."""

import json

from ..core.figure1 import run
from ..core.test_cli import rising_load


def test_the_papers_preprocessing_keeps_the_transactions_it_empties(tmp_path):
    # Regression (QA): transactions left empty were dropped (retail: 86,190 where the paper's
    # Table 1 counts 88,162), which also moved the h rule's threshold
    rows = ["a b c s", "a b c", "a b s", "a c", "b c s", "a b c"] * 50 + ["r1", "r2 r3"]
    data = tmp_path / "d.dat"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "rows.json"
    result = run("bench", "coherence", data, "--public-share", "0.5", "--h", "0.5", "--k", "5", "--p", "2",
                 "--seeds", "1,2", "--min-support-share", "0.01", "--json", out)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("d.dat: 302 transactions, 4 items (items below 1.00% removed)")
    body = json.loads(out.read_text())
    assert [r["approach"] for r in body["rows"]] == ["mm-il", "mm", "il", "rmall"] * 2
    assert all(r["verified"] for r in body["rows"])
    assert all(s["runs"] == 2 and s["all_verified"] for s in body["summary"])


def test_the_papers_preprocessing_that_leaves_no_item_is_refused(tmp_path):
    data = tmp_path / "d.dat"
    data.write_text("a\nb\nc\n", encoding="utf-8")
    result = run("bench", "coherence", data, "--public-share", "0.5", "--h", "0.5", "--k", "1", "--p", "1",
                 "--min-support-share", "0.5")
    assert result.exit_code == 2 and "no transaction keeps an item held by 50.00% of them" in result.output


def test_the_json_gives_the_load_as_the_runs_start(tmp_path, monkeypatch):
    rising_load(monkeypatch)
    data = tmp_path / "d.dat"
    data.write_text("a b c s\na b c\na b s\na c\nb c s\na b c\n" * 5, encoding="utf-8")
    out = tmp_path / "rows.json"
    result = run("bench", "coherence", data, "--public-share", "0.5", "--h", "0.5", "--k", "2", "--p", "2",
                 "--seeds", "1,2", "--json", out)
    assert result.exit_code == 0, result.output
    assert "load average 1.00 1.00 1.00," in json.loads(out.read_text())["machine"]
