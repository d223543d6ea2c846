"""`setveil bench coherence`'s summary of an approach that no run passed, as docs/coherence.md gives it."""

import json
from pathlib import Path

from ..core.figure1 import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "coherence.md"


def test_an_approach_no_run_passed_is_n_a_in_the_summary_as_the_page_says(tmp_path):
    # User walkthrough: bench coherence of Fig. 1 at k=10 refused every policy (5 transactions)
    # and printed n/a under all_verified, which the page, giving every summary an all_verified,
    # did not explain
    data, out = tmp_path / "fig1.dat", tmp_path / "rows.json"
    data.write_text("a c d f g Diabetes\na b c f Hepatitis\nb d f x Hepatitis\nb c g y z HIV\na c f g HIV\n",
                    encoding="utf-8")
    result = run("bench", "coherence", data, "--public-share", "0.5", "--h", "0.4", "--k", "10", "--p", "3",
                 "--seeds", "1", "--json", out)
    assert result.exit_code == 0, result.output
    approaches = ("mm-il", "mm", "il", "rmall")
    assert json.loads(out.read_text())["summary"] == [{"approach": name, "runs": 0} for name in approaches]
    table = result.output.split("\n\n")[1].splitlines()[2:]
    cells = [[cell.strip() for cell in line.split("|")[1:-1]] for line in table]
    assert cells == [[name, "0"] + ["n/a"] * 6 for name in approaches]
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "An approach none of whose runs passed (every seed refused, or RmAll's release of a file of fewer than k " \
           "transactions) has `runs` 0 and no other key in JSON, and `n/a` in every other cell of the table, " \
           "`all_verified`'s too: read it as not verified." in text
