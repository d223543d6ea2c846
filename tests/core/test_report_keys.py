"""Every top-level and per-window key of anonymize --report is the one docs/cli.md's description
of --report names, and no other."""

import re
from pathlib import Path

from ..report_keys import anonymized_report, named

CLI = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
# what the description quotes that is not a key of the report: formats, compression, secrets'
# names, and the models' stats it gives as examples
PROSE = {"fimi", "jsonl", "msgpack", "gzip", "password", "secret", "token", "anonymize", "skipped", "peak_stats",
         "qid_size", "passes", "hierarchy_nodes", "minimal_moles_by_size", "deletions_by_pass"}


def described() -> tuple[str, str]:
    """docs/cli.md's section on --report: what it says of the run as a whole, and of `per_window`."""
    text = CLI.read_text()
    begin = text.index("### The report (`--report`)")
    description = " ".join(text[begin:text.index("\n#", begin)].split())
    whole, rest = description.split("`per_window` (one entry per window, in input order:")
    per_window, after = re.split(r"\) - and `seconds` \(the whole run", rest)
    return whole + " `per_window` `seconds` " + after, per_window


def test_the_report_holds_the_keys_the_cli_doc_describes_and_no_other(tmp_path):
    data, sensitive = tmp_path / "data.dat", tmp_path / "sensitive.txt"
    data.write_text("bread beer condom\ncoffee fruits\nbeer condom\ncoffee fruits\n" * 2)
    sensitive.write_text("condom\n")
    body = anonymized_report(tmp_path, data, "--model", "rho", "-P", "rho=0.5", "--sensitive", sensitive,
                             "--window", 4)
    whole, per_window = described()
    assert named(whole) - PROSE == set(body)
    assert [named(per_window)] * 2 == [set(window) for window in body["per_window"]]
