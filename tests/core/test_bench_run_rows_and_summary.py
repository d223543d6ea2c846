"""What `setveil bench run` writes of its runs: rows numbered from 1, a summary labelled with the
number of runs whose memory is the forked run's own, and a table whose columns are the timings,
the loss and the memory, with a model's stats in it only where they are timings (a mutation pass
over core/bench.py: rows numbered from 0, the summary's label overwritten by a median, its
peak_mib taken from run_mib and every numeric stat printed as a column passed every test not
marked slow)."""

import json

from setveil.core import bench

from .figure1 import MODEL, run

#: the memory the forked run is made to report, so that the summary's is known
MEMORY = {"peak_mib": 40.5, "run_mib": 7.25, "tree_mib": 52.0}
#: bench run's table for coherence, whose stats time finding and eliminating the moles
COLUMNS = ["run", "read_seconds", "anonymize_seconds", "stat.find_moles_seconds", "stat.eliminate_seconds",
           "verify_seconds", "info_loss", "peak_mib", "run_mib", "tree_mib"]


def test_bench_run_numbers_its_runs_and_sums_them_up_with_the_forked_runs_memory(files, monkeypatch):
    monkeypatch.setattr(bench, "in_child", lambda function, *args: dict(MEMORY))
    out = files / "bench.json"
    result = run("bench", "run", files / "fig1.dat", *MODEL, "--sensitive", files / "private.txt", "--runs", "2",
                 "--json", out)
    assert result.exit_code == 0, result.output
    body = json.loads(out.read_text())
    assert [row["run"] for row in body["rows"]] == [1, 2]
    assert body["summary"]["run"] == "median of 2"
    assert {key: body["summary"][key] for key in MEMORY} == MEMORY
    table = [line for line in result.output.splitlines() if line.startswith("|")]
    assert [cell.strip() for cell in table[0].strip("|").split("|")] == COLUMNS
    assert [line.split("|")[1].strip() for line in table[2:]] == ["1", "2", "median of 2"]
