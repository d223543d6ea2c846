"""streams/codec.py ``MessageRecords`` is a sequence of the records it holds as columns: indexed,
sliced and compared, it answers as the list of those records would, whatever their lengths (a
record of several items before the one asked for included), and two of them are equal only when
each column is, the times too (a mutation review found both unpinned)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.records import Record
from setveil.streams.codec import MessageRecords

RECORDS = st.lists(st.builds(Record, st.lists(st.sampled_from("abcdef"), unique=True, max_size=4),
                             st.one_of(st.none(), st.integers(0, 9)), st.one_of(st.none(), st.sampled_from(["s", 0])),
                             st.one_of(st.none(), st.sampled_from([0.0, 1.5]))), max_size=6)


@settings(max_examples=300, deadline=None)
@given(RECORDS, st.integers(-8, 8), st.one_of(st.none(), st.integers(-8, 8)), st.sampled_from([None, 1, 2, -1]))
def test_each_index_and_slice_is_the_lists(records, start, stop, step):
    columns = MessageRecords.of(records)
    assert [columns[index] for index in range(-len(records), len(records))] == \
           [records[index] for index in range(-len(records), len(records))]
    assert columns[start:stop:step] == records[start:stop:step]


def test_the_third_record_after_two_of_two_items():
    columns = MessageRecords.of([Record(["a", "b"], 1), Record(["c", "d"], 2), Record(["e", "f"], 3)])
    assert columns[2] == Record(["e", "f"], 3)
    assert columns[-2] == Record(["c", "d"], 2)


@settings(max_examples=300, deadline=None)
@given(RECORDS, RECORDS)
def test_columns_are_equal_as_their_records_are(one, other):
    assert (MessageRecords.of(one) == MessageRecords.of(other)) == (one == other)


def test_records_that_differ_only_in_time_are_not_equal():
    assert MessageRecords.of([Record(["a"], 1, None, 1.5)]) != MessageRecords.of([Record(["a"], 1, None, 2.5)])
