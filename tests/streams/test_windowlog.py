"""The window-log reader against a real broker: what it makes of the entries, and a stopping worker
leaves no client open."""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings

import pytest
from aiokafka import TopicPartition
from aiokafka.structs import OffsetAndMetadata

from setveil.streams import kafka
from setveil.streams.windowlog import FIRST_READ, WindowLogError, WindowLogReader, encode_entry, log_partition

from .kafkatools import produce, records

#: seconds after which a read is cut short: within its consumer's start, its admin client's, or after
CUTS = (0, 0.001, 0.01, 0.05, 0.1, 0.3)


def _unclosed_clients(run) -> list[str]:
    """The clients that ``run`` left open, as aiokafka reports them when they are collected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        asyncio.run(run())
        gc.collect()
    return [str(w.message) for w in caught if "Unclosed" in str(w.message)]


async def _reader(settings) -> WindowLogReader:
    counts = await kafka.ensure_topics(settings)
    return WindowLogReader(settings, counts[settings.topics.windows])


async def _log(settings, log_partitions: int, windows: list[tuple[int, int, int]]) -> None:
    """Window log entries ``(input partition, first, last)``, in order, as workers write them."""
    await kafka.ensure_topics(settings)
    producer = kafka.producer(settings)
    await producer.start()
    try:
        for partition, first, last in windows:
            await producer.send_and_wait(settings.topics.windows, encode_entry(first, last),
                                         key=str(partition).encode(), partition=log_partition(partition, log_partitions))
    finally:
        await producer.stop()


@pytest.mark.slow
def test_the_cut_points_are_the_ends_of_a_partitions_windows_from_the_start_on(make_settings):
    settings = make_settings()
    # partition 0 in windows of 10, more than the first read holds; partition 1's windows end
    # elsewhere, in the same log partition (a log with fewer partitions than the input)
    zero = [(0, 10 * i, 10 * i + 9) for i in range(2 * FIRST_READ)]
    one = [(1, 7 * i, 7 * i + 6) for i in range(2 * FIRST_READ)]
    everything = [entry for pair in zip(zero, one) for entry in pair]
    produce(settings, records([["a"]] * 200))  # partition 0 ends at offset 200

    async def run():
        await _log(settings, 1, everything)
        reader = WindowLogReader(settings, 1)
        try:
            return [await reader.cut_points(0, 12, None), await reader.cut_points(0, 10, 200),
                    await reader.cut_points(0, 19, 199), await reader.cut_points(0, 0, 200),
                    await reader.first_offset(0, 3)]
        finally:
            await reader.stop()

    from_12, from_10, from_19, from_0, first = asyncio.run(run())
    ends = [10 * i + 9 for i in range(2 * FIRST_READ)]
    # window 10-19 straddles offset 12; the ends of windows 0-9 and of partition 1 are not cut points
    assert from_12 == (ends[1:], (10, 19))
    # a window that begins at the start straddles nothing; ends at or past the input's end are stale
    assert from_10 == ([19 + 10 * i for i in range(19)], None)
    assert from_19 == ([19 + 10 * i for i in range(18)], (10, 19))
    assert from_0 == (ends[:20], None)
    assert first == 3


@pytest.mark.slow
def test_delivery_resumes_at_the_groups_committed_offset_or_at_the_partitions_first(make_settings):
    settings = make_settings()
    produce(settings, records([["a"]] * 10))

    async def run():
        reader = await _reader(settings)
        try:
            resumed = [await reader.resume_offset(0)]
            committer = kafka.consumer(settings, group_id=settings.consumer.group_id, enable_auto_commit=False)
            await committer.start()
            try:
                tp = TopicPartition(settings.topics.input, 0)
                committer.assign([tp])
                # -1: a group's offset that says nothing is committed; 5: the first not yet acknowledged
                for committed in (-1, 5):
                    await committer.commit({tp: OffsetAndMetadata(committed, "")})
                    resumed.append(await reader.resume_offset(0))
            finally:
                await committer.stop()
            return resumed
        finally:
            await reader.stop()

    assert asyncio.run(run()) == [0, 0, 5]


@pytest.mark.slow
def test_a_new_window_log_gets_as_many_partitions_as_an_existing_input_topic(make_settings):
    # mutation pass (app70): ensure_topics giving the window log topics.partitions whatever the input
    # topic had passed every test; an input topic made with more partitions beforehand (by its
    # producers, say) kept the windows of several input partitions in one log partition
    settings = make_settings(topics__partitions=2)
    asyncio.run(kafka.ensure_topics(settings.replace(topics__partitions=3), [settings.topics.input]))
    counts = asyncio.run(kafka.ensure_topics(settings))
    assert [counts[name] for name in (settings.topics.input, settings.topics.windows, settings.topics.output)] \
        == [3, 3, 2]


def test_a_partitions_windows_are_logged_to_the_log_partition_of_its_number():
    # where workers of every version look for them: the log's partition of the same number, or
    # modulo the log's partition count
    assert [log_partition(p, 4) for p in range(6)] == [0, 1, 2, 3, 0, 1]


@pytest.mark.slow
def test_a_stopped_reader_reads_nothing_and_opens_no_client(make_settings):
    settings = make_settings()

    async def run():
        reader = await _reader(settings)
        await reader.stop()
        with pytest.raises(WindowLogError, match="stopped"):
            await reader.resume_offset(0)

    assert _unclosed_clients(run) == []


@pytest.mark.slow
@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("how", ["cancelled", "stopped"])
def test_a_read_cut_short_while_its_clients_start_leaves_none_open(make_settings, how, cut):
    # Regression (QA, churn): a worker stopped while an actor opened its partition logged
    # "Unclosed AIOKafkaConsumer" and "Unclosed AIOKafkaConnection" at ERROR.
    settings = make_settings()

    async def run():
        reader = await _reader(settings)
        read = asyncio.create_task(reader.resume_offset(0))
        await asyncio.sleep(cut)
        if how == "cancelled":
            read.cancel()
        else:
            await reader.stop()
        try:
            await read  # a read under way when the reader stops ends before the clients close
        except asyncio.CancelledError:
            assert how == "cancelled"
        except WindowLogError:
            assert how == "stopped"  # one not yet under way is refused
        await reader.stop()

    assert _unclosed_clients(run) == []


@pytest.mark.slow
def test_cut_points_beyond_the_inputs_end_are_counted_in_the_warning_and_ignored(make_settings, caplog):
    settings = make_settings()

    async def run():
        await _log(settings, 1, [(0, 0, 9), (1, 0, 4), (0, 10, 19), (0, 20, 29), (0, 30, 39)])
        reader = WindowLogReader(settings, 1)
        try:
            return await reader.cut_points(0, 12, 25)
        finally:
            await reader.stop()

    with caplog.at_level(logging.WARNING, logger="setveil.streams"):
        cut = asyncio.run(run())
    assert cut == ([19], (10, 19))
    # the two stale points, not the three from the start on
    assert [record.getMessage() for record in caplog.records if record.name == "setveil.streams"] == [
        f"window log {settings.topics.windows}: partition 0 has 2 cut points beyond the input's end; "
        "ignored (was the input topic re-created?)"]
