"""A worker's metric summed over its labels (streams/process.py, metric_total), as the demo counts
its rejected windows and held transactions and bench stream its rejected windows: the samples of
that metric alone, never those of a longer name it begins."""

from setveil.streams.process import metric_total

SAMPLES = {
    "setveil_windows_rejected_total": 1.0,
    'setveil_windows_rejected_total{cause="infeasible"}': 2.0,
    'setveil_windows_rejected_total{cause="timeout"}': 4.0,
    'setveil_windows_rejected_created{cause="timeout"}': 1.7e9,
    "setveil_windows_rejected_totals": 8.0,
    'setveil_windows_rejected_total_bytes{cause="timeout"}': 16.0,
}


def test_a_metric_is_summed_over_its_labels_and_no_longer_name_it_begins():
    assert metric_total(SAMPLES, "setveil_windows_rejected_total") == 7.0


def test_a_metric_the_worker_has_not_reported_is_zero():
    assert metric_total(SAMPLES, "setveil_held_transactions") == 0
