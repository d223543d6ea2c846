"""The windower counts a window's transactions by its messages' records, whatever their number of
items: a record of three items is one transaction towards max_transactions, merged by subject or
not. A mutation review found that counting the labels instead passed every test, whose records
each held one item."""

import pytest

from setveil.core.records import Record
from setveil.streams.windowing import Message, Windower


@pytest.mark.parametrize("merge_subjects", [False, True])
def test_two_records_of_three_items_are_two_transactions(merge_subjects):
    windower = Windower(max_transactions=2, min_transactions=1, max_seconds=60.0, merge_subjects=merge_subjects)
    windower.add(Message(0, [Record(["a", "b", "c"], subject="s")], 0.0))
    assert windower.pending_transactions == 1
    assert windower.cuts(0.0) == []
    windower.add(Message(1, [Record(["a", "d", "e"], subject="t")], 0.0))
    assert windower.pending_transactions == 2
    assert [[message.offset for message in cut.messages] for cut in windower.cuts(0.0)] == [[0, 1]]
