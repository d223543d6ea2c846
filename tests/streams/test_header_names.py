"""A header name that is not UTF-8 is dead-lettered, not a crash loop (docs/operations.md, "Bad
input"; setveil.streams.headers)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from aiokafka.consumer import fetcher
from aiokafka.errors import CorruptRecordException
from aiokafka.record.default_records import DefaultRecordBase, _DefaultRecordBatchBuilderPy
from aiokafka.record.util import calc_crc32c
from aiokafka.structs import TopicPartition

from setveil.streams.codec import REJECTED_RECORD_TYPE
from setveil.streams import headers
from setveil.streams.headers import tolerate_header_names, undecodable_name, unreadable_name

from .kafkatools import committed, produce, read_topic, records, wait_until
from .test_cli import BAD_HEADER_NAME, REPO
from .test_service import NEUTRAL, batches, released_tids


class NotUtf8(str):  # the pure-Python record builder encodes header names with str.encode
    def encode(self, *args, **kwargs):
        return b"\xff\xfename"


def batch(base: int, size: int, bad: int, compression: int) -> bytes:
    """A record batch of offsets ``base`` to ``base + size - 1``; record ``bad`` has a header name
    that is not UTF-8 (none when it is out of range). Each record has a header value of 64 bytes
    alike, which compression shrinks: a batch it does not shrink is written uncompressed."""
    builder = _DefaultRecordBatchBuilderPy(magic=2, compression_type=compression, is_transactional=False,
                                           producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    for index in range(size):
        names = [("ok", b"1" * 64), (NotUtf8("x"), b"y")] if index == bad else [("ok", b"1" * 64)]
        builder.append(index, timestamp=None, key=None, value=b"%d" % (base + index), headers=names)
    data = bytearray(builder.build())
    data[:8] = base.to_bytes(8, "big")  # the broker sets a batch's base offset
    return bytes(data)


def test_the_reason_names_the_first_header_that_is_not_utf8_and_counts_from_one():
    # the names as the tolerant reader gives them: a byte that is not UTF-8 decoded surrogateescape
    names = [("ok", b"1"), (b"\xffa".decode("utf-8", "surrogateescape"), b"2"),
             (b"\xfeb".decode("utf-8", "surrogateescape"), b"3")]
    rejection = unreadable_name(names)
    assert (rejection.kind, rejection.reason) == ("malformed", "the name of header 2 of 3 is not UTF-8")
    assert unreadable_name([("ok", b"1"), ("caf\u00e9", b"2")]) is None


def test_only_a_header_name_that_is_not_utf8_is_read_again():
    # a batch corrupt in any other way (a CRC that does not match) stays an error: read again
    # with the tolerant reader, its records would be delivered as if they were sound
    assert not undecodable_name(CorruptRecordException("Record is corrupt (stored crc = 1, computed crc = 2)"))
    wrapped = CorruptRecordException("Failed to decode")
    wrapped.__cause__ = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    assert undecodable_name(wrapped) and undecodable_name(wrapped.__cause__)


@pytest.mark.parametrize("compression", [DefaultRecordBase.CODEC_NONE, DefaultRecordBase.CODEC_GZIP])
@pytest.mark.parametrize("fetch_offset", [0, 2, 3, 6])
def test_the_reader_reads_past_header_names_that_are_not_utf8(monkeypatch, compression, fetch_offset):
    # the reader is replaced for the whole process: restored after the test
    monkeypatch.setattr(fetcher, "MemoryRecords", fetcher.MemoryRecords)
    monkeypatch.setattr(fetcher, "PartitionRecords", fetcher.PartitionRecords)
    tolerate_header_names()
    # a bad record within a batch, one first in the next batch, then a batch without one; a fetch
    # starts at the batch that holds its offset, as brokers send it
    layout = [(0, 5, 2), (5, 3, 0), (8, 2, -1)]
    data = b"".join(batch(base, size, bad, compression) for base, size, bad in layout if base + size > fetch_offset)
    assert data[22] & DefaultRecordBase.CODEC_MASK == compression  # the first batch's attributes
    reader = fetcher.PartitionRecords(TopicPartition("in", 0), fetcher.MemoryRecords(data), [], fetch_offset,
                                      None, None, True, 0)
    read = list(reader)
    assert [int(record.value) for record in read] == list(range(fetch_offset, 10))
    assert reader.next_fetch_offset == 10
    bad = [record.offset for record in read if unreadable_name(record.headers) is not None]
    assert bad == [offset for offset in (2, 5) if offset >= fetch_offset]
    for record in read:
        name = record.headers[-1][0]
        assert name == "ok" or name.encode("utf-8", "surrogateescape") == b"\xff\xfename"
    assert unreadable_name(read[-1].headers) is None


def test_a_batch_whose_crc_does_not_match_is_an_error_not_read_again(monkeypatch):
    # read again with the tolerant reader, which checks no CRC, its records would be delivered
    # as if they were sound
    monkeypatch.setattr(fetcher, "MemoryRecords", fetcher.MemoryRecords)
    monkeypatch.setattr(fetcher, "PartitionRecords", fetcher.PartitionRecords)
    tolerate_header_names()
    data = batch(0, 3, -1, DefaultRecordBase.CODEC_NONE)
    data = data.replace(b"\x01\x021", b"\x01\x027")  # the value of offset 1: no key, one byte
    reader = fetcher.PartitionRecords(TopicPartition("in", 0), fetcher.MemoryRecords(data), [], 0, None, None, True, 0)
    with pytest.raises(CorruptRecordException, match="Invalid CRC"):
        list(reader)


def test_the_reader_goes_on_from_the_end_of_a_batch_read_again_past_its_compacted_offsets(monkeypatch):
    # compaction keeps a batch's last offset when it removes the records there; a next fetch from
    # within the batch would give that batch again, and the partition would read it for ever
    monkeypatch.setattr(fetcher, "MemoryRecords", fetcher.MemoryRecords)
    monkeypatch.setattr(fetcher, "PartitionRecords", fetcher.PartitionRecords)
    tolerate_header_names()
    data = bytearray(batch(0, 3, 1, DefaultRecordBase.CODEC_NONE))
    data[23:27] = (4).to_bytes(4, "big")  # the last offset delta: offsets 3 and 4 were compacted away
    data[17:21] = calc_crc32c(bytes(data[21:])).to_bytes(4, "big")
    reader = fetcher.PartitionRecords(TopicPartition("in", 0), fetcher.MemoryRecords(bytes(data)), [], 0,
                                      None, None, True, 0)
    assert [record.offset for record in reader] == [0, 1, 2]
    assert reader.next_fetch_offset == 5


PURE_READER = """
import sys
from aiokafka.consumer import fetcher
from aiokafka.errors import CorruptRecordException
from aiokafka.structs import TopicPartition
from setveil.streams.headers import tolerate_header_names, undecodable_name, unreadable_name
from tests.streams.test_header_names import batch

assert fetcher.MemoryRecords.__name__ == "_MemoryRecordsPy"
tolerate_header_names()
data = batch(0, 5, 2, 1) + batch(5, 3, 0, 1) + batch(8, 2, -1, 1)
reader = fetcher.PartitionRecords(TopicPartition("in", 0), fetcher.MemoryRecords(data), [], 0, None, None, True, 0)
read = list(reader)
assert [int(record.value) for record in read] == list(range(10)), [record.offset for record in read]
assert [record.offset for record in read if unreadable_name(record.headers)] == [2, 5]
"""


def test_the_pure_python_reader_reads_past_them_too():
    # Regression (QA re-check): aiokafka's pure-Python reader, used without its compiled wheel or
    # with AIOKAFKA_NO_EXTENSIONS, wraps the decode error in CorruptRecordException; the worker
    # crash-looped there as before the fix
    subprocess.run([sys.executable, "-c", PURE_READER], check=True, timeout=60, cwd=REPO,
                   env={**os.environ, "AIOKAFKA_NO_EXTENSIONS": "1"})


@pytest.mark.slow
def test_a_header_name_that_is_not_utf8_is_dead_lettered_and_the_worker_keeps_going(make_settings, start_worker):
    # Regression (QA re-check, 2 of 2 runs): aiokafka's compiled reader raised UnicodeDecodeError
    # while it unpacked the batch; the worker exited with status 1, and so did every restart
    settings = make_settings(topics__partitions=1, window__min_transactions=5)
    worker = start_worker(settings)
    good = records(NEUTRAL[:40])
    produce(settings, good[:10])
    subprocess.run([sys.executable, "-c", BAD_HEADER_NAME, settings.kafka.bootstrap, settings.topics.input],
                   check=True, env={**os.environ, "AIOKAFKA_NO_EXTENSIONS": "1"}, timeout=60)
    produce(settings, good[10:])
    wait_until(lambda: worker.process.poll() is not None
               or worker.metrics().get("setveil_transactions_emitted_total", 0) >= 40, 60, "the good records")
    assert worker.process.poll() is None, "the worker stopped"

    [dead] = read_topic(settings, settings.topics.dlq)
    assert dead.value == b"v"  # the original bytes
    assert dead.headers["ce_type"] == REJECTED_RECORD_TYPE
    assert dead.headers["setveil_kind"] == "malformed"
    assert dead.headers["setveil_reason"] == "the name of header 1 of 1 is not UTF-8"
    assert dead.headers["setveil_offset"] == "10"
    assert sorted(released_tids(batches(settings))) == list(range(40)), "every good record in exactly one batch"
    wait_until(lambda: committed(settings) == 41, 30, "the group's offset committed past all 41")
    assert worker.metrics()['setveil_records_dead_lettered_total{kind="malformed"}'] == 1
    assert worker.get("/healthz")[0] == 200
    assert "UnicodeDecodeError" not in worker.log_text()


def test_each_failed_batch_is_read_again_once(monkeypatch):
    # Regression (QA re-check of the fix): the batch that failed was looked for from the start of
    # the fetch, reading every batch before it again; 8,000 one-record batches, each with a bad
    # name, held the worker's consumer thread 92 s. Counted rather than timed: each failed batch
    # is read once more, and no other.
    monkeypatch.setattr(fetcher, "MemoryRecords", fetcher.MemoryRecords)
    monkeypatch.setattr(fetcher, "PartitionRecords", fetcher.PartitionRecords)
    tolerate_header_names()
    read_again = []

    class Counted(headers._DefaultRecordBatchPy):
        def __init__(self, buffer):
            super().__init__(buffer)
            read_again.append(self.base_offset)

    monkeypatch.setattr(headers, "_DefaultRecordBatchPy", Counted)
    data = b"".join(batch(offset, 1, 0 if offset % 2 else -1, DefaultRecordBase.CODEC_NONE) for offset in range(400))
    reader = fetcher.PartitionRecords(TopicPartition("in", 0), fetcher.MemoryRecords(data), [], 0, None, None, True, 0)
    assert [record.offset for record in reader] == list(range(400))
    assert read_again == list(range(1, 400, 2))
