"""Loaded by a worker started with this folder on PYTHONPATH: faults that a test cannot cause
from outside the process, each switched on by its environment variable.

FAULT_STALE_READ_OFFSET=N: after every seek to committed offsets, Faust's read position of each
input partition is N, as if left over from an earlier assignment of the partition to this worker
(seen under rebalance churn: Faust then drops every message below it as already read).

FAULT_STALE_AFTER_SEEK=1: with the above, every other seek of an input partition leaves the
read position at N as well, as a delivery blocked across the rebalance would each time.
"""

import os

_stale = os.environ.get("FAULT_STALE_READ_OFFSET")
if _stale is not None:
    from faust.transport import consumer as _consumer
    from faust.transport.drivers import aiokafka as _driver

    def _make_stale(read_offset, partitions):
        for tp in partitions:
            if tp.topic.endswith(".in"):
                read_offset[tp] = int(_stale)

    _perform_seek = _consumer.Consumer.perform_seek

    async def perform_seek(self):
        await _perform_seek(self)
        _make_stale(self._read_offset, list(self._read_offset))

    _consumer.Consumer.perform_seek = perform_seek

    if os.environ.get("FAULT_STALE_AFTER_SEEK"):
        _seek_wait = _driver.AIOKafkaConsumerThread._seek_wait

        async def _stale_seek_wait(self, consumer, partitions):
            await _seek_wait(self, consumer, partitions)
            _make_stale(self.consumer._read_offset, partitions)

        _driver.AIOKafkaConsumerThread._seek_wait = _stale_seek_wait
