"""A run of one window reports the loss the pipeline measured and held to a share for it, the
model asked once; a run of several windows asks the model again over the whole, which no
window's loss gives (test_run_loss_not_a_number.py and test_cli_outputs.py pin its refusals)."""

import json

import pytest
from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.partition.models import _Generalization

DATA = "a b\na c\nb c\na b\nc d\na d\nb d\na c\n"


@pytest.mark.parametrize("window, calls", [([], [8]), (["--window", "8"], [8]), (["--window", "100"], [8]),
                                           (["--window", "4"], [4, 4, 8])])
def test_the_model_is_asked_its_loss_once_a_window_and_once_more_for_several(tmp_path, monkeypatch, window, calls):
    asked = []
    measured = _Generalization.information_loss

    def counted(self, original, release):
        asked.append(len(original))
        return measured(self, original, release)

    monkeypatch.setattr(_Generalization, "information_loss", counted)
    data, out, report = tmp_path / "eight.dat", tmp_path / "out.dat", tmp_path / "r.json"
    data.write_text(DATA)
    result = CliRunner().invoke(cli, ["anonymize", str(data), "-o", str(out), "-m", "kanonymity", "-P", "k=2",
                                      "--fanout", "2", *window, "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert asked == calls
    body = json.loads(report.read_text())
    if len(calls) == 1:
        assert body["info_loss"] == body["per_window"][0]["info_loss"]


def test_one_windows_loss_is_the_report_of_the_model_asked_over_the_whole(tmp_path):
    # the value the pipeline measured is the one the model gives for the whole run
    from setveil.core.formats import read_window
    from setveil.core.model import Context
    from setveil.core.plugins import get_registry

    data, out, report = tmp_path / "eight.dat", tmp_path / "out.dat", tmp_path / "r.json"
    data.write_text(DATA)
    result = CliRunner().invoke(cli, ["anonymize", str(data), "-o", str(out), "-m", "kanonymity", "-P", "k=2",
                                      "--fanout", "2", "--report", str(report)])
    assert result.exit_code == 0, result.output
    original = read_window(data)
    release = read_window(out, vocab=original.vocab)
    model = get_registry().configure("kanonymity", None, {"k": "2"}, Context(fanout=2)).model
    assert json.loads(report.read_text())["info_loss"] == float(model.information_loss(original, release))
