"""The rule metrics' floor at a support of one transaction (plugins/rho/metrics.py _rules_bounded)
refuses a window once the longest record's own subsets pass the budget, and a floor that reaches
the budget exactly does not pass it: the next size is added to the floor, so the window is still
refused before any counting, 'at least' the floor of both sizes."""

import pytest

from setveil.core.mining import MiningTooLarge
from setveil.plugins.rho.metrics import _rules_bounded


def test_a_floor_at_the_budget_takes_the_next_size_before_refusing():
    # one record of 3 items: its pairs are 2 * 3 = 6 rules, the budget; with its triple 9
    rows = [[0, 1, 2], []]
    with pytest.raises(MiningTooLarge) as refused:
        _rules_bounded(rows, 1, None, 6)
    assert refused.value.at_least and refused.value.count == 9
    assert str(refused.value) == ("mining at a support of 1 transaction would list at least 9 rules, "
                                  "more than the budget of 6")


def test_a_floor_and_a_count_at_the_budget_pass():
    _rules_bounded([[0, 1, 2], []], 1, None, 9)
    _rules_bounded([[0, 1, 2], [0, 1], []], 1, 2, 6)
