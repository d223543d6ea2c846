"""bench audit's lines for a run whose solver failed (HiGHS ending in an error, with presolve and
without): its progress line says so, not infeasible, and a note after the table counts such runs
and gives the first error; test_bench.py checks the rows, and no test read the command's lines."""

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.audit import bench, program


def test_runs_whose_solver_failed_are_said_so_as_they_run_and_after_the_table(tmp_path, monkeypatch):
    def failing(*args, **kwargs):
        raise program.SolverFailed("the solver failed, with presolve and without: Solve error")

    monkeypatch.setattr(bench, "deanonymize", failing)
    data = tmp_path / "db.dat"
    rows = [["a", "b", "c", "d"]] * 5 + [["a", "b", "c"]] * 4 + [["a", "b", "e"]] * 3 + [["a", "e"]] * 2 + [["f"]]
    data.write_text("".join(" ".join(row) + "\n" for row in rows))
    result = CliRunner().invoke(cli, ["bench", "audit", str(data), "--sigma", "0.1", "--noise", "0", "--methods", "ip",
                                      "--runs", "2"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("  run ")] == [
        "  run 1/2, noise 0, ip: no naming: the solver failed", "  run 2/2, noise 0, ip: no naming: the solver failed"]
    assert lines[-1] == ("setveil: note: 2 runs scored 0 where the solver failed, the first with: the solver failed, "
                         "with presolve and without: Solve error")
