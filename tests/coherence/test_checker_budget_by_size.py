"""The coherence checker counts its mining budget a few sizes at a time (``by_size``), those of at
most 1, 2, 4 ... items in turn, and refuses at the first count past it ('at least'), where counting
every size first cost a window of long records seconds (coherence/checker.py). A mutation review
found nothing that pinned it: the outcome of a window within the budget is the same either way.
The budget is lowered here to 1,000."""

import pytest

from setveil.core.mining import MiningTooLarge
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence import checker


def test_a_window_of_long_records_is_refused_at_the_first_sizes_past_the_budget(monkeypatch):
    # 20 records of the same 30 public items: 465 itemsets of at most 2, then 31,930 of at most 4
    # (of 174,436 up to p = 5)
    monkeypatch.setattr(checker, "ITEMSET_BUDGET", 1_000)
    window = Window.from_transactions([[f"x{i}" for i in range(30)]] * 20)
    with pytest.raises(MiningTooLarge) as refused:
        list(checker.coherence_violations(window, window, ItemSchema(private=frozenset({"a"})), 0.5, 5, 5))
    assert (refused.value.count, refused.value.at_least) == (31_930, True)
    assert "would list at least 31,930 itemsets, more than the budget of 1,000" in str(refused.value)
