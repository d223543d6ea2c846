"""docs/sanitize.md's sigma row warns that on dense data the count that decides to skip the
report's pattern metrics can cost more than the sanitization, with chess's figure at the default
sigma, which the run's own note must give."""

import re
from pathlib import Path

from setveil.core.cli import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "sanitize.md"


def _sigma_row() -> str:
    return next(line for line in DOC.read_text().splitlines() if line.startswith("| `-P sigma=X` |"))


def test_the_sigma_row_says_what_the_count_costs_on_dense_data():
    row = _sigma_row()
    assert "the count alone can take longer than the sanitization" in row
    assert "give such data `sigma=off`" in row


def test_chess_at_the_default_sigma_counts_what_the_doc_says(runner, datasets, tmp_path):
    patterns = tmp_path / "rp.txt"
    patterns.write_text("42 69\n")
    result = runner.invoke(cli, ["anonymize", str(datasets / "chess.dat"), "-o", str(tmp_path / "out.dat"),
                                 "-m", "sanitize", "-P", f"restrictive={patterns}",
                                 "--report", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    counted = re.search(r"would list at least ([\d,]+) itemsets", result.output).group(1)
    assert f"chess at the default σ, {counted} counted," in _sigma_row()
