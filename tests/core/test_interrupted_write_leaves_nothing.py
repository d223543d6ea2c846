"""A Ctrl-C while a run's outputs are staged (the release written, the report being written) leaves
no temporary file behind and every target as it was; the interrupt goes on, not turned into a
write error. No test stopped a staged write with anything but an OSError."""

import pytest

from setveil.core import output


def test_an_interrupt_while_staging_removes_every_staged_file(tmp_path, monkeypatch):
    release, report = tmp_path / "out.dat", tmp_path / "report.json"
    report.write_text("the earlier run's report\n")
    write_all = output._write_all

    def interrupted(handle, data):
        if data.startswith(b"{"):
            raise KeyboardInterrupt
        write_all(handle, data)

    monkeypatch.setattr(output, "_write_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        output.write_outputs([(release, b"a b\n"), (report, b'{"transactions": 1}\n')])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]
    assert report.read_text() == "the earlier run's report\n"
