"""The demo counts as a held tail only open windows of fewer than window.min_transactions: a
partition's window of that many or more is still to be released at its age cut, which on a loaded
machine comes well after the last record was sent (a CI run saw 200 "held" of such a window)."""

from setveil.streams.demo import held_tail

HELD = "setveil_held_transactions"


def test_a_partition_holding_a_full_window_is_waited_for():
    assert held_tail({f'{HELD}{{partition="0"}}': 200.0, f'{HELD}{{partition="1"}}': 0.0}, 100) is None
    assert held_tail({f'{HELD}{{partition="0"}}': 100.0}, 100) is None


def test_windows_under_the_minimum_are_the_held_tail_summed_over_partitions():
    assert held_tail({f'{HELD}{{partition="0"}}': 60.0, f'{HELD}{{partition="1"}}': 99.0}, 100) == 159.0


def test_no_held_window_is_no_tail_and_other_metrics_are_not_counted():
    assert held_tail({}, 100) == 0
    assert held_tail({"setveil_held_transactions_total": 500.0, "setveil_consumer_lag{partition=\"0\"}": 7.0},
                     100) == 0
