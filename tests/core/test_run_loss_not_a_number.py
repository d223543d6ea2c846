"""The report's information loss is the model's over the whole run, a call apart from each window's,
which the pipeline holds to a finite share: a run whose whole loss is no number, or not finite, stops
in one line naming the model before anything is written, as one outside [0, 1] does
(test_cli_outputs.py); no test gave the whole run such a loss."""

import pytest
from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.partition.models import _Generalization


@pytest.mark.parametrize("whole, shown", [(None, "a NoneType, not a number"), ("about half", "a str, not a number"),
                                          (float("nan"), "nan"), (float("inf"), "inf")])
def test_a_runs_loss_that_is_no_finite_number_stops_it_before_anything_is_written(tmp_path, monkeypatch, whole,
                                                                                   shown):
    # each window of 4 gets a share; the whole run of 8 gets what no report can hold
    monkeypatch.setattr(_Generalization, "information_loss",
                        lambda self, original, release: 0.5 if len(original) <= 4 else whole)
    data, out, report = tmp_path / "eight.dat", tmp_path / "out.dat", tmp_path / "r.json"
    data.write_text("a b\na c\nb c\na b\nc d\na d\nb d\na c\n")
    result = CliRunner().invoke(cli, ["anonymize", str(data), "-o", str(out), "-m", "kanonymity", "-P", "k=2",
                                      "--fanout", "2", "--window", "4", "--report", str(report)])
    assert result.exit_code == 2
    assert result.stderr == f"setveil: error: model 'kanonymity': information_loss returned {shown}\n"
    assert not out.exists() and not report.exists()
