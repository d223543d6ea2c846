"""Input messages with a header name that is not UTF-8 are dead-lettered, not a crash loop
(docs/operations.md, "Delivery guarantees", "Bad input").

Kafka takes any bytes as a header name, but aiokafka's record reader decodes names as strict
UTF-8, and does so while the worker's consumer unpacks a fetched batch: the UnicodeDecodeError
ended the worker (exit status 1), and every restart, and every worker that took the partition
over, stopped at the same message again (found by a QA re-check, 2 of 2 runs).

:func:`tolerate_header_names` keeps aiokafka's reader (compiled, unless aiokafka runs without its
extensions) for every batch and, for the one batch it fails on, falls back to aiokafka's
pure-Python reader with names decoded ``surrogateescape``: the records of that batch the reader
had not yet returned, the offending one included, are delivered, and the partition goes on with
the next batch. A name that did not decode holds lone surrogates, which no UTF-8 text does;
:func:`unreadable_name` finds it, and the worker dead-letters that message whole like any other
it cannot read. ``setveil tail`` reads its topics the same way and notes such a name
(:func:`.kafka.fetch`).

aiokafka builds a fetched partition's reader in its fetcher module from two names,
``MemoryRecords`` (the fetched bytes) and ``PartitionRecords`` (their records, one at a time),
with no way to pass others in; both are replaced in that module, for every consumer of the
process. A fetch keeps its bytes, which the compiled reader does not expose, for the fallback.
"""

from __future__ import annotations

import struct
from typing import Any

from aiokafka.consumer import fetcher
from aiokafka.errors import CorruptRecordException
from aiokafka.record.default_records import _DefaultRecordBatchPy

from . import causes
from .codec import MessageRejected

#: what starts a batch in every message format: base offset and length (which does not count them)
BATCH_START = struct.Struct(">qi")


class _Names(bytearray):
    """A batch's bytes whose slices decode as ``surrogateescape``: aiokafka's pure-Python reader
    slices a header name off the batch's buffer and decodes it with ``.decode("utf-8")``."""

    def __getitem__(self, index):
        item = bytearray.__getitem__(self, index)
        return _Name(item) if isinstance(index, slice) else item


class _Name(bytearray):
    def decode(self, encoding="utf-8", errors="strict"):
        return bytearray.decode(self, encoding, "surrogateescape")


class _Fetched(fetcher.MemoryRecords):
    """aiokafka's fetched records (its compiled reader's, or its pure-Python one's), which keep
    their bytes and where the batch they gave last lies in them: the batch a record of which failed
    to decode."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.data = data
        self.current = (0, 0)

    def next_batch(self):
        # Per batch, not per record: the cost stays out of the records' loop. The reader gives
        # the batches in the order they lie in the bytes, none skipped, so each starts where the
        # one before it ended; a rescan from the start at each failure cost a fetch of 8,000
        # one-record batches, each with a bad name, 82 s (QA re-check).
        batch = super().next_batch()
        if batch is not None:
            start = self.current[1]
            self.current = (start, start + BATCH_START.size + BATCH_START.unpack_from(self.data, start)[1])
        return batch


def _tolerant(data: bytes, span: tuple[int, int]) -> _DefaultRecordBatchPy:
    """The batch at ``span`` of ``data`` (a fetch's bytes), read with header names decoded
    ``surrogateescape``. It is one of format 2: earlier formats have no headers to fail on."""
    batch = _DefaultRecordBatchPy(memoryview(data)[span[0]:span[1]])
    iter(batch)  # decompresses into a new buffer, which is the one to wrap
    batch._buffer = _Names(batch._buffer)
    return batch


class _PartitionRecords(fetcher.PartitionRecords):
    """aiokafka's reader of a fetched partition, which reads a batch its reader fails on again
    with :func:`_tolerant`."""

    # aiokafka's attributes, which this class sets too: its generator of the records, None once they
    # are done (Any: no __next__ comes after that, aiokafka's own neither); the offset to fetch next
    _records_iterator: Any
    next_fetch_offset: int

    def __next__(self):
        # aiokafka's own __next__, repeated: called through super() it cost a third more per record
        try:
            return next(self._records_iterator)
        except StopIteration:
            self._records_iterator = None  # as aiokafka does: a reference cycle broken
            raise
        except (UnicodeDecodeError, CorruptRecordException) as exc:
            if not undecodable_name(exc):
                raise
            # the reader's generator ended with the error, but the fetched records stand after
            # the batch it failed in: a new one goes on from the next batch
            self._records_iterator = self._rest_of_failed_batch()
            return next(self)

    def _rest_of_failed_batch(self):
        # What aiokafka's _unpack_records does with a batch, from where the reader failed: its CRC
        # was checked, and whether it is a control batch or an aborted one, before its records were.
        batch, tp = _tolerant(self._records.data, self._records.current), self._tp
        for record in batch:
            if record.offset >= self.next_fetch_offset:
                self.next_fetch_offset = record.offset + 1
                yield self._consumer_record(tp, record)
        self.next_fetch_offset = batch.next_offset
        yield from self._unpack_records()


def undecodable_name(exc: BaseException) -> bool:
    """Whether aiokafka's reader raised ``exc`` at a header name that is not UTF-8: its compiled
    reader raises the decode error, its pure-Python one (AIOKAFKA_NO_EXTENSIONS, or no compiled
    wheel) wraps it; a batch that is corrupt in any other way is no such error."""
    return isinstance(exc, UnicodeDecodeError) or (isinstance(exc, CorruptRecordException)
                                                   and isinstance(exc.__cause__, UnicodeDecodeError))


def tolerate_header_names() -> None:
    """Read header names that are not UTF-8 in every consumer of the process (again: no change)."""
    fetcher.MemoryRecords = _Fetched
    fetcher.PartitionRecords = _PartitionRecords


def names_not_utf8(headers) -> list[tuple[int, str]]:
    """The position (from 1) of each name of ``headers`` that was not UTF-8, with the name as
    tail shows a header value that is not: its bytes decoded with U+FFFD for each that is not."""
    found = []
    for index, (name, _) in enumerate(headers or (), 1):
        if not name.isascii():
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                found.append((index, name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")))
    return found


def unreadable_name(headers) -> MessageRejected | None:
    """Why a message whose ``headers`` hold a name that was not UTF-8 is dead-lettered, or None."""
    found = names_not_utf8(headers)
    if not found:
        return None
    return MessageRejected(causes.MALFORMED, f"the name of header {found[0][0]} of {len(headers)} is not UTF-8")
