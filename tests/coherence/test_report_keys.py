"""Every key of coherence's --report is the one docs/coherence.md describes, for each policy, and a
service batch carries the metrics docs/batch-format.md shows."""

import pytest

from ..report_keys import (anonymized_report, assert_batch_matches_report, batch_metrics, described, named,
                           window_stats_keys)
from .conftest import FIGURE_1, PRIVATE

# what the paragraph quotes that is not a key of the report's metrics or stats
PROSE_BEFORE_STATS = {"info_loss", "loss_metric", "il", "metrics"}


MODEL = ["--model", "coherence", "-P", "h=0.8", "-P", "k=2", "-P", "p=2"]


def figure_1(tmp_path, times: int):
    data, sensitive = tmp_path / "figure1.dat", tmp_path / "private.txt"
    data.write_text("".join(" ".join(row) + "\n" for row in FIGURE_1 * times))
    sensitive.write_text("".join(f"{item}\n" for item in sorted(PRIVATE)))
    return data, sensitive


@pytest.mark.parametrize("policy", ["il", "mm", "mm-il"])
def test_the_report_holds_the_keys_docs_coherence_describes_and_no_other(tmp_path, policy):
    data, sensitive = figure_1(tmp_path, 2)
    body = anonymized_report(tmp_path, data, *MODEL, "--policy", policy, "--sensitive", sensitive, "--window", 5)
    loss_and_metrics, stats = described("coherence.md", "`--report`'s `info_loss`")
    assert body["loss_metric"] in loss_and_metrics
    assert named(loss_and_metrics) - PROSE_BEFORE_STATS == set(body["metrics"])
    assert named(stats) == set(body["stats"])
    assert window_stats_keys(body) == [set(body["stats"])] * body["windows"] == [set(body["stats"])] * 2


def test_a_batch_carries_the_metrics_docs_batch_format_shows_with_the_reports_loss(tmp_path):
    data, sensitive = figure_1(tmp_path, 1)
    body = anonymized_report(tmp_path, data, *MODEL, "--sensitive", sensitive)
    metrics = batch_metrics(FIGURE_1, "coherence", "h=0.8", "k=2", "p=2", sensitive=str(sensitive))
    assert_batch_matches_report(metrics, body)
