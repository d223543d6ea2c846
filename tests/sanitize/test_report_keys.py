"""Every key of sanitize's --report is the one docs/sanitize.md describes: for each policy, with
the pattern measures off (sigma=off) and with them skipped as too large; and a service batch
carries the metrics docs/batch-format.md shows."""

import pytest

from ..report_keys import (anonymized_report, assert_batch_matches_report, batch_metrics, described, named,
                           window_stats_keys)
from .helpers import FIG3, write_patterns

# what the paragraph quotes that is not a key of the report's metrics, or of its stats
PROSE_BEFORE_STATS = {"info_loss", "loss_metric", "skipped"}
PROSE_IN_STATS = {"naive"}
# a dozen records of 60 items: at sigma 0.05 every subset is frequent (tests/sanitize/test_commands.py)
TOO_MANY_PATTERNS = [[f"i{row}-{x}" for x in range(60)] for row in range(12)]


def documented_metrics(patterns: str) -> set[str]:
    """The metrics docs/sanitize.md names, with the pattern measures as ``patterns`` says: mined, off or skipped."""
    loss_and_metrics, _ = described("sanitize.md", "`--report`'s `info_loss`")
    mined, always = loss_and_metrics.split("all of them left out with")
    measures = named(mined) - PROSE_BEFORE_STATS if patterns == "mined" else set()
    return measures | (named(always) - PROSE_BEFORE_STATS) | ({"skipped"} if patterns == "skipped" else set())


def report_of(tmp_path, transactions: list[list[str]], restrictive: str, *args) -> dict:
    data = tmp_path / "data.dat"
    data.write_text("".join(" ".join(row) + "\n" for row in transactions))
    patterns = write_patterns(tmp_path / "restrictive.txt", restrictive)
    return anonymized_report(tmp_path, data, "--model", "sanitize", "-P", f"restrictive={patterns}", *args)


def assert_documented(body: dict, patterns: str) -> None:
    loss_and_metrics, stats = described("sanitize.md", "`--report`'s `info_loss`")
    assert body["loss_metric"] in loss_and_metrics
    assert documented_metrics(patterns) == set(body["metrics"])
    assert named(stats) - PROSE_IN_STATS == set(body["stats"])
    assert window_stats_keys(body) == [set(body["stats"])] * body["windows"]


@pytest.mark.parametrize("policy", ["iga", "maxfia", "minfia", "naive"])
def test_the_report_holds_the_keys_docs_sanitize_describes_and_no_other(tmp_path, policy):
    body = report_of(tmp_path, FIG3 * 2, "A B D", "--policy", policy, "--window", 6)
    assert body["windows"] == 2
    assert_documented(body, "mined")


def test_without_pattern_measures_the_report_holds_the_keys_docs_sanitize_describes(tmp_path):
    assert_documented(report_of(tmp_path, FIG3, "A B D", "-P", "sigma=off"), "off")


def test_pattern_measures_skipped_as_too_large_leave_the_keys_docs_sanitize_describes(tmp_path):
    assert_documented(report_of(tmp_path, TOO_MANY_PATTERNS, "i0-0 i0-1", "-P", "sigma=0.05"), "skipped")


def test_a_batch_carries_the_metrics_docs_batch_format_shows_with_the_reports_loss(tmp_path):
    body = report_of(tmp_path, FIG3, "A B D")
    metrics = batch_metrics(FIG3, "sanitize", f"restrictive={tmp_path / 'restrictive.txt'}")
    assert_batch_matches_report(metrics, body)
