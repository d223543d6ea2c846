"""Every key of the k-models' --report is the one docs/partition.md describes, for each model, and a
service batch carries the metrics docs/batch-format.md shows."""

import pytest

from ..report_keys import (anonymized_report, assert_batch_matches_report, batch_metrics, described, named,
                           window_stats_keys)
from .examples import TABLE_2
from .test_cli import DATA, FIG2

# what the paragraph quotes that is not a key of the report's metrics, or of its stats
PROSE_BEFORE_STATS = {"info_loss", "loss_metric", "metrics"}
PROSE_IN_STATS = {"generalized_share", "released_labels", "per_window"}


def documented_stats(model: str) -> set[str]:
    """The stats docs/partition.md names for every k-model, and those it names for ``model`` alone."""
    _, stats = described("partition.md", "The report's `info_loss`")
    common, rest = stats.split("; for `kanonymity`")
    kanonymity, rest = rest.split("; for `km-anonymity`")
    km_anonymity, largest = rest.split("; and, the largest over the windows,")
    own = {"kanonymity": named(kanonymity), "km-anonymity": named(km_anonymity)}
    return (named(common) | own[model] | named(largest)) - PROSE_IN_STATS


@pytest.mark.parametrize("model, params", [("kanonymity", ["-P", "k=2"]), ("km-anonymity", ["-P", "k=2", "-P", "m=2"])])
def test_the_report_holds_the_keys_docs_partition_describes_and_no_other(tmp_path, model, params):
    data, hierarchy = tmp_path / "t2.dat", tmp_path / "fig2.csv"
    data.write_text(DATA * 2)
    hierarchy.write_text(FIG2)
    body = anonymized_report(tmp_path, data, "--model", model, *params, "--hierarchy", hierarchy, "--window", 7)
    loss_and_metrics, _ = described("partition.md", "The report's `info_loss`")
    assert f'"{body["loss_metric"]}"' in loss_and_metrics
    assert named(loss_and_metrics) - PROSE_BEFORE_STATS == set(body["metrics"])
    assert documented_stats(model) == set(body["stats"])
    assert window_stats_keys(body) == [set(body["stats"])] * body["windows"] == [set(body["stats"])] * 2


@pytest.mark.parametrize("model, params", [("kanonymity", ["-P", "k=2"]), ("km-anonymity", ["-P", "k=2", "-P", "m=2"])])
def test_a_window_of_empty_transactions_reports_the_stats_docs_partition_says(tmp_path, model, params):
    # Analyst's check: its per_window entry holds generalized_occurrences alone, which
    # docs/partition.md, listing every stat for each window, did not say
    data = tmp_path / "t2.dat"
    data.write_text("\n" * 7 + DATA)
    body = anonymized_report(tmp_path, data, "--model", model, *params, "--fanout", 2, "--window", 7)
    assert [window["stats"] for window in body["per_window"]][0] == {"generalized_occurrences": 0}
    assert window_stats_keys(body)[1] == set(body["stats"]) == documented_stats(model)


@pytest.mark.parametrize("model, params", [("kanonymity", ["-P", "k=2"]), ("km-anonymity", ["-P", "k=2", "-P", "m=2"])])
def test_a_batch_carries_the_metrics_docs_batch_format_shows_with_the_reports_loss(tmp_path, model, params):
    data, hierarchy = tmp_path / "t2.dat", tmp_path / "fig2.csv"
    data.write_text(DATA)
    hierarchy.write_text(FIG2)
    body = anonymized_report(tmp_path, data, "--model", model, *params, "--hierarchy", hierarchy)
    transactions = [original for original, _, _ in TABLE_2.values()]
    metrics = batch_metrics(transactions, model, *params[1::2], hierarchy=str(hierarchy))
    assert_batch_matches_report(metrics, body)
