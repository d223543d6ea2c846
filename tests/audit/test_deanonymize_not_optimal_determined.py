"""audit deanonymize --determined where the naming is not proven optimal (its solve stopped at
--time-limit): the names are not tested, which the summary line says and the report gives as null
verdicts; a real stop depends on the machine's speed, so the solve's answer is made a stopped one
here (no test reached the summary's 'names not tested')."""

import dataclasses
import json

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.audit import commands


def test_names_of_a_naming_not_proven_optimal_are_said_to_be_untested(tmp_path, monkeypatch):
    solve = commands.solve

    def stopped(*args, **kwargs):
        return dataclasses.replace(solve(*args, **kwargs), optimal=False, status="time limit reached", determined=None,
                                   named_otherwise=None, unsettled=None)

    monkeypatch.setattr(commands, "solve", stopped)
    data = tmp_path / "db.dat"
    rows = [["a", "b", "c", "d"]] * 5 + [["a", "b", "c"]] * 4 + [["a", "b", "e"]] * 3 + [["a", "e"]] * 2 + [["f"]]
    data.write_text("".join(" ".join(row) + "\n" for row in rows))
    runner = CliRunner()
    renamed, mapping, published = tmp_path / "r.dat", tmp_path / "f.txt", tmp_path / "p.txt"
    assert runner.invoke(cli, ["audit", "rename", str(data), "-o", str(renamed), "--mapping", str(mapping),
                               "--seed", "0"]).exit_code == 0
    assert runner.invoke(cli, ["audit", "publish", str(data), "--sigma", "0.1", "-o", str(published),
                               "--seed", "0"]).exit_code == 0
    report = tmp_path / "report.json"
    result = runner.invoke(cli, ["audit", "deanonymize", str(renamed), "--itemsets", str(published), "--sigma", "0.1",
                                 "-o", str(tmp_path / "n.txt"), "--report", str(report), "--determined"])
    assert result.exit_code == 0, result.output
    summary = result.stderr.splitlines()[-1]
    assert summary.startswith("ip: not proven optimal, ")
    assert summary.endswith("; names not tested (the naming is not proven optimal)")
    body = json.loads(report.read_text())
    assert not body["optimal"] and body["status"] == "time limit reached"
    assert [body[key] for key in ("determined", "determined_items", "named_otherwise", "unsettled")] == [None] * 4
