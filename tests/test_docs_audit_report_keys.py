"""Every key of `setveil audit deanonymize --report` is named in docs/audit.md's paragraph on the
report, so that a user reading a report with jq finds each key's name there and not by trial.

The runs take every option that adds keys: --truth (the accuracies), --determined (the verdicts)
and lp's --round (the rounded naming's accuracy)."""

import json
import re
from pathlib import Path

from click.testing import CliRunner

from setveil.core.cli import cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "audit.md"


def report_paragraph() -> str:
    text = DOC.read_text()
    begin = text.index("The report (`--report`)")
    return text[begin:text.index("\n\n", begin)]


def report_keys(tmp_path: Path, *options: str) -> set[str]:
    tmp_path.mkdir()
    database, renamed, mapping = tmp_path / "db.dat", tmp_path / "renamed.dat", tmp_path / "f.txt"
    published, naming, report = tmp_path / "published.txt", tmp_path / "naming.txt", tmp_path / "report.json"
    rows = [["a", "b", "c", "d"]] * 5 + [["a", "b", "c"]] * 4 + [["a", "b", "e"]] * 3 + [["a", "e"]] * 2 + [["f"]]
    database.write_text("".join(" ".join(row) + "\n" for row in rows))
    runner = CliRunner()
    for argv in (["audit", "rename", database, "-o", renamed, "--mapping", mapping, "--seed", "7"],
                 ["audit", "publish", database, "--sigma", "0.1", "-o", published, "--seed", "0"],
                 ["audit", "deanonymize", renamed, "--itemsets", published, "--sigma", "0.1", "-o", naming,
                  "--truth", mapping, "--report", report, *options]):
        result = runner.invoke(cli, [str(a) for a in argv], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return set(json.loads(report.read_text()))


def test_every_key_of_a_deanonymize_report_is_named_in_the_docs(tmp_path):
    named = set(re.findall(r"`(\w+)`", report_paragraph()))
    keys = report_keys(tmp_path / "ip", "--method", "ip", "--determined")
    keys |= report_keys(tmp_path / "lp", "--method", "lp", "--round", "1")
    assert {"uniform_accuracy", "rounded_accuracy", "determined_certain"} <= keys  # each option added its keys
    assert sorted(keys - named) == []
