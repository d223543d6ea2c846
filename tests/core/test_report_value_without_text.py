"""A model's metrics (or stats) holding an object JSON has no type for are written as its text; one
whose text cannot be made (its __str__ or tolist raises) stops anonymize --report in one line, as
any value JSON cannot hold does, nothing written and its message, which may quote the data, left
out, where the run ended in a traceback ending 'RuntimeError: HIV'."""

import json

import pytest
from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.plugins.partition.models import _Generalization


class NoText:
    def __str__(self):
        raise RuntimeError("HIV")


class NoList:
    def tolist(self):
        raise RuntimeError("HIV")


@pytest.mark.parametrize("value", [NoText(), NoList()], ids=["str-raises", "tolist-raises"])
def test_a_metric_whose_text_cannot_be_made_stops_the_run_in_one_line(tmp_path, monkeypatch, value):
    monkeypatch.setattr(_Generalization, "metrics", lambda self, original, release: {"odd": value})
    data, out, report = tmp_path / "d.dat", tmp_path / "out.dat", tmp_path / "r.json"
    data.write_text("a b\na c\nb c\na b\n")
    result = CliRunner().invoke(cli, ["anonymize", str(data), "-o", str(out), "-m", "kanonymity", "-P", "k=2",
                                      "--fanout", "2", "--report", str(report)])
    assert result.exit_code == 2
    assert result.stderr == ("setveil: error: model 'kanonymity': the report would hold a value JSON cannot hold "
                             "(TypeError), from its stats or metrics\n")
    assert not out.exists() and not report.exists()


def test_a_metric_json_has_no_type_for_is_written_as_its_text(tmp_path, monkeypatch):
    from decimal import Decimal

    monkeypatch.setattr(_Generalization, "metrics", lambda self, original, release: {"odd": Decimal("0.25")})
    data, out, report = tmp_path / "d.dat", tmp_path / "out.dat", tmp_path / "r.json"
    data.write_text("a b\na c\nb c\na b\n")
    result = CliRunner().invoke(cli, ["anonymize", str(data), "-o", str(out), "-m", "kanonymity", "-P", "k=2",
                                      "--fanout", "2", "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text())["metrics"] == {"odd": "0.25"}
