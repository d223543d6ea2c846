"""Input messages with a header name that is not UTF-8 are dead-lettered, not a crash loop
(docs/operations.md, "Delivery guarantees", "Bad input").

Kafka takes any bytes as a header name, but aiokafka's record reader decodes names as strict
UTF-8, and does so while the worker's consumer unpacks a fetched batch: the UnicodeDecodeError
ended the worker (exit status 1), and every restart, and every worker that took the partition
over, stopped at the same message again (found by a QA re-check, 2 of 2 runs).

:func:`tolerate_header_names` keeps aiokafka's compiled reader for every batch and, for the one
batch it fails on, falls back to aiokafka's pure-Python reader with names decoded
``surrogateescape``: the records of that batch the compiled reader had not yet returned, the
offending one included, are delivered, and the partition goes on with the next batch. A name
that did not decode holds lone surrogates, which no UTF-8 text does; :func:`unreadable_name`
finds it, and the worker dead-letters that message whole like any other it cannot read.

aiokafka builds a fetched partition's reader in its fetcher module from two names,
``MemoryRecords`` (the fetched bytes) and ``PartitionRecords`` (their records, one at a time),
with no way to pass others in; both are replaced in that module, for every consumer of the
process. A fetch keeps its bytes, which the compiled reader does not expose, for the fallback.
"""

from __future__ import annotations

import struct

from aiokafka.consumer import fetcher
from aiokafka.record.default_records import _DefaultRecordBatchPy

from . import causes
from .codec import MessageRejected

#: the start of a batch in every message format: base offset, length, partition leader epoch (a CRC
#: before format 2), magic
BATCH_START = struct.Struct(">qiib")
#: the bytes of a batch that its length does not count: base offset and length
LOG_OVERHEAD = 12


class _Names(bytearray):
    """A batch's bytes whose slices decode as ``surrogateescape``: aiokafka's pure-Python reader
    slices a header name off the batch's buffer and decodes it with ``.decode("utf-8")``."""

    def __getitem__(self, index):
        item = bytearray.__getitem__(self, index)
        return _Name(item) if isinstance(index, slice) else item


class _Name(bytearray):
    def decode(self, encoding="utf-8", errors="strict"):
        return bytearray.decode(self, encoding, "surrogateescape")


def _failed_batch(data: bytes, offset: int) -> _DefaultRecordBatchPy:
    """The first batch of ``data`` (a fetch's bytes) that ends after ``offset``, to be read with
    header names decoded ``surrogateescape``."""
    view, pos = memoryview(data), 0
    while True:
        _, length, _, magic = BATCH_START.unpack_from(data, pos)
        end = pos + LOG_OVERHEAD + length
        if magic >= 2:  # formats before 2 have no headers
            batch = _DefaultRecordBatchPy(view[pos:end])
            if batch.next_offset > offset:
                iter(batch)  # decompresses into a new buffer, which is the one to wrap
                batch._buffer = _Names(batch._buffer)
                return batch
        pos = end


class _Fetched(fetcher.MemoryRecords):
    """aiokafka's (compiled) fetched records, which keep their bytes."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.data = data


class _PartitionRecords(fetcher.PartitionRecords):
    """aiokafka's reader of a fetched partition, which reads a batch its compiled reader fails on
    again with :func:`_failed_batch`."""

    def __next__(self):
        # aiokafka's own __next__, repeated: called through super() it cost a third more per record
        try:
            return next(self._records_iterator)
        except StopIteration:
            self._records_iterator = None  # as aiokafka does: a reference cycle broken
            raise
        except UnicodeDecodeError:
            # the reader's generator ended with the error, but the fetched records stand after
            # the batch it failed in: a new one goes on from the next batch
            self._records_iterator = self._rest_of_failed_batch()
            return next(self)

    def _rest_of_failed_batch(self):
        # Batches end at increasing offsets and the reader had passed every batch that ends at or
        # before next_fetch_offset (which it set to the end of each), so the failed one is the
        # first that ends after it. Its CRC was checked, and its transaction state read, before
        # its records were.
        batch, tp = _failed_batch(self._records.data, self.next_fetch_offset), self._tp
        for record in batch:
            if record.offset >= self.next_fetch_offset:
                self.next_fetch_offset = record.offset + 1
                yield self._consumer_record(tp, record)
        self.next_fetch_offset = batch.next_offset
        yield from self._unpack_records()


def tolerate_header_names() -> None:
    """Read header names that are not UTF-8 in every consumer of the process (again: no change)."""
    fetcher.MemoryRecords = _Fetched
    fetcher.PartitionRecords = _PartitionRecords


def unreadable_name(headers) -> MessageRejected | None:
    """Why a message whose ``headers`` hold a name that was not UTF-8 is dead-lettered, or None."""
    for index, (name, _) in enumerate(headers or (), 1):
        if not name.isascii():
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                return MessageRejected(causes.MALFORMED, f"the name of header {index} of {len(headers)} is not "
                                                         "UTF-8")
    return None
