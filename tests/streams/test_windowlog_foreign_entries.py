"""An entry of the window log that no worker wrote - another producer's, a null value, damaged -
stops the worker in one line naming it, exit status 1, where it stopped "after an unexpected
FormatError" (or TypeError, ValueError) with no word of where, on every restart: cut without
its log, a re-delivered window could be released twice, differently."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from setveil.streams import kafka
from setveil.streams.windowlog import UnreadableEntry, WindowLogReader, decode_entry, encode_entry

from .kafkatools import produce, records, wait_until

FOREIGN = [None, b"", b"\xc1", b"hello", msgpack.packb([1, 2, 3]), msgpack.packb([5, 2]), msgpack.packb([-1, 3]),
           msgpack.packb([True, 4]), msgpack.packb([1.0, 2]), msgpack.packb({"first": 0, "last": 4}),
           msgpack.packb([0, 2**64 - 1])[:-1]]


def test_an_entry_a_worker_wrote_is_read_back():
    assert decode_entry(encode_entry(0, 0)) == (0, 0)
    assert decode_entry(encode_entry(7, 2**63 - 1)) == (7, 2**63 - 1)


@pytest.mark.parametrize("value", FOREIGN)
def test_any_other_value_is_no_entry(value):
    assert decode_entry(value) is None


async def _log(settings, entries: list[tuple[bytes, bytes | None]]) -> None:
    """Values written to the window log's partition 0, each under its key (an input partition's number)."""
    await kafka.ensure_topics(settings)
    producer = kafka.producer(settings)
    await producer.start()
    try:
        for key, value in entries:
            await producer.send_and_wait(settings.topics.windows, value, key=key, partition=0)
    finally:
        await producer.stop()


@pytest.mark.slow
def test_the_reader_names_a_foreign_entry_of_its_partition_and_passes_another_partitions(make_settings):
    settings = make_settings(topics__partitions=1)
    asyncio.run(_log(settings, [(b"0", encode_entry(0, 4)), (b"1", b"\xc1"), (b"0", encode_entry(5, 9))]))
    assert asyncio.run(_cut_points(settings)) == ([4, 9], None)
    asyncio.run(_log(settings, [(b"0", None), (b"0", encode_entry(10, 14))]))
    with pytest.raises(UnreadableEntry) as info:
        asyncio.run(_cut_points(settings))
    assert str(info.value) == (f"window log {settings.topics.windows}/0/3: the entry of input partition 0 is not the "
                               "[first, last] offsets a worker writes (another producer's, or damaged), and a "
                               "partition is not windowed without its log; stopping")
    # the input partition named is the entry's key, not the log's partition that holds it
    with pytest.raises(UnreadableEntry) as info:
        asyncio.run(_cut_points(settings, 1))
    assert str(info.value).startswith(f"window log {settings.topics.windows}/0/1: the entry of input partition 1 is "
                                      "not the [first, last] offsets")


async def _cut_points(settings, input_partition: int = 0):
    reader = WindowLogReader(settings, 1)
    try:
        return await reader.cut_points(input_partition, 0, None)
    finally:
        await reader.stop()


@pytest.mark.slow
def test_a_worker_stops_naming_a_foreign_entry(make_settings, start_worker):
    settings = make_settings(topics__partitions=1)
    asyncio.run(_log(settings, [(b"0", b"\xc1")]))
    produce(settings, records([["a", "b"]] * 5))
    worker = start_worker(settings, ready=False)
    wait_until(lambda: worker.process.poll() is not None, 60, "the worker to stop")
    assert worker.process.returncode == 1
    assert (f"[ERROR] window log {settings.topics.windows}/0/0: the entry of input partition 0 is not the [first, "
            "last] offsets a worker writes (another producer's, or damaged), and a partition is not windowed without "
            "its log; stopping") in worker.log_text()
    assert "unexpected" not in worker.log_text()
