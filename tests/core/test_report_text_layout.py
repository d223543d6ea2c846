"""anonymize --report writes its JSON as core/reportjson.py's report_text makes it: indented by two
spaces, its keys in the order the run gives them (what was run first: setveil's version, the
files, the formats, ...), not sorted, and its last line ended, so that `cat r.json; echo done`
does not run "}done" together and two reports compare line by line."""

import json

import numpy as np
from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.core.reportjson import report_text


def test_report_text_is_indented_in_its_keys_order_and_ends_its_last_line():
    body = {"model": "m", "files": {"output": "o", "input": "i"}, "counts": np.arange(2), "kinds": frozenset({"x"})}
    assert report_text(body) == ('{\n  "model": "m",\n  "files": {\n    "output": "o",\n    "input": "i"\n  },\n'
                                 '  "counts": [\n    0,\n    1\n  ],\n  "kinds": [\n    "x"\n  ]\n}\n')


def test_anonymize_writes_its_report_as_report_text_makes_it(tmp_path):
    data, out, report = tmp_path / "d.dat", tmp_path / "out.dat", tmp_path / "r.json"
    data.write_text("a b\na c\nb c\na b\n")
    result = CliRunner().invoke(cli, ["anonymize", str(data), "-o", str(out), "-m", "kanonymity", "-P", "k=2",
                                      "--fanout", "2", "--report", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    body = json.loads(text)
    assert text == report_text(body)
    assert text.startswith('{\n  "setveil_version": ') and text.endswith("\n}\n")
    assert [*body][:4] == ["setveil_version", "files", "formats", "compression"]
