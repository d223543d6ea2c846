"""docs/sanitize.md's effectiveness experiment on mushroom (§5.1) is what its command gives:
pattern set 1's rows of the table by pattern set at ψ = 0, every policy, cell for cell (the
runs are deterministic), and ψ = 1 changes nothing, so that a change of the releases or of the
measures is seen as a table that no longer holds."""

import json
from pathlib import Path

from setveil.core.cli import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "sanitize.md"
POLICIES = ["naive", "minfia", "maxfia", "iga"]


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|")[1:-1]]


def test_pattern_set_1_at_psi_0_reproduces_the_documented_rows(runner, datasets, tmp_path):
    out = tmp_path / "rows.json"
    result = runner.invoke(cli, ["bench", "sanitize", "effectiveness", str(datasets / "mushroom.dat"), "-n", "10",
                                 "--min-length", "2", "--max-length", "5", "--min-support", "0.2",
                                 "--max-support", "0.4", "--seed", "1", "--sigma", "0.1", "--psi-step", "1",
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    # one pattern set: its rows are the printed mean's (policy, psi, restrictive, HF, MC, AP, ...)
    printed = [[row[0], *row[2:8]] for row in map(cells, result.output.splitlines())
               if row and row[0] in POLICIES and row[1] == "0.0"]
    documented = [row[1:8] for row in map(cells, DOC.read_text(encoding="utf-8").splitlines())
                  if row[:1] == ["1"] and row[1] in POLICIES]
    assert [row[0] for row in documented] == POLICIES
    assert printed == documented
    for row in json.loads(out.read_text())["rows"]:
        assert row["violations"] == 0 and row["artifactual_patterns"] == 0.0
        if row["psi"] == 1.0:
            assert (row["hiding_failure"], row["misses_cost"], row["removed_items"]) == (1.0, 0.0, 0)
