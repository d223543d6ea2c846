"""Loaded by a worker started with this folder on PYTHONPATH: faults that a test cannot cause
from outside the process, each switched on by its environment variable.

FAULT_STALE_READ_OFFSET=N: after every seek to committed offsets, Faust's read position of each
input partition is N, as if left over from an earlier assignment of the partition to this worker
(seen under rebalance churn: Faust then drops every message below it as already read).
"""

import os

_stale = os.environ.get("FAULT_STALE_READ_OFFSET")
if _stale is not None:
    from faust.transport import consumer as _consumer

    _perform_seek = _consumer.Consumer.perform_seek

    async def perform_seek(self):
        await _perform_seek(self)
        for tp in list(self._read_offset):
            if tp.topic.endswith(".in"):
                self._read_offset[tp] = int(_stale)

    _consumer.Consumer.perform_seek = perform_seek
