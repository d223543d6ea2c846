"""What a model's doc says its ``anonymize --report`` holds, for the tests that compare it with
the keys of real reports: the doc's report paragraph, cut where it turns from the loss and
``metrics`` to ``stats``, and the backquoted names in each part; and the ``metrics`` a service
batch carries, which docs/batch-format.md shows."""

import json
import re
from pathlib import Path

from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli, configure
from setveil.core.engine import Pipeline
from setveil.core.plugins import get_plugin_manager
from setveil.core.records import Record
from setveil.streams.codec import decode_batch
from setveil.streams.processor import WindowProcessor
from setveil.streams.windowing import Cut, Message

DOCS = Path(__file__).resolve().parents[1] / "docs"


def described(doc: str, start: str) -> tuple[str, str]:
    """The paragraph of docs/``doc`` that begins at ``start``, blanks and line breaks made one
    space, as what it says of the loss and ``metrics`` and what it says of ``stats``."""
    text = (DOCS / doc).read_text()
    begin = text.index(start)
    paragraph = " ".join(text[begin:text.index("\n\n", begin)].split())
    loss_and_metrics, stats = paragraph.split("Its `stats`")
    return loss_and_metrics, stats


def named(text: str) -> set[str]:
    """The names a doc quotes as keys (a backquoted word; `rule_metrics=true` is a setting)."""
    return set(re.findall(r"`(\w+)`", text))


def anonymized_report(tmp_path: Path, *args) -> dict:
    """The report of ``setveil anonymize INPUT … --report``, ``args`` holding INPUT and the model."""
    _load_plugin_commands()
    report = tmp_path / "report.json"
    command = ["anonymize", *map(str, args), "-o", str(tmp_path / "out.dat"), "--report", str(report)]
    result = CliRunner().invoke(cli, command, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(report.read_text())


def window_stats_keys(body: dict) -> list[set[str]]:
    """The keys of each window's ``stats``, which docs/cli.md says the total's are."""
    return [set(window["stats"]) for window in body["per_window"]]


def batch_format_metrics() -> set[str]:
    """The keys of the ``metrics`` of the batch docs/batch-format.md shows."""
    block = (DOCS / "batch-format.md").read_text().split('"metrics": {', 1)[1].split("}", 1)[0]
    return set(re.findall(r'"(\w+)":', block))


def assert_batch_matches_report(metrics: dict, report: dict) -> None:
    """A batch's ``metrics`` hold the keys docs/batch-format.md shows, and the loss the report of
    the same data gives, under the same name."""
    assert set(metrics) == batch_format_metrics()
    assert (metrics["loss_metric"], metrics["information_loss"]) == (report["loss_metric"], report["info_loss"])


def batch_metrics(transactions: list[list[str]], model: str, *params: str, sensitive=None, hierarchy=None) -> dict:
    """The ``metrics`` of the batch a service worker makes of one window of ``transactions``, in process."""
    configured = configure(model, None, list(params), sensitive, None, hierarchy, None)
    worker = WindowProcessor(Pipeline(configured, get_plugin_manager()), seed=3, merge_subjects=False, source="test")
    cut = Cut([Message(offset, [Record(items, tid=offset)], 0.0) for offset, items in enumerate(transactions)])
    outcome = worker.process("in", 0, cut)
    assert outcome.emitted, outcome.reason
    return decode_batch(outcome.value)["metrics"]
