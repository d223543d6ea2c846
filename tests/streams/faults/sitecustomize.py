"""Loaded by a worker started with this folder on PYTHONPATH: faults that a test cannot cause
from outside the process, each switched on by its environment variable.

FAULT_STALE_READ_OFFSET=N: after every seek to committed offsets, Faust's read position of each
input partition is N, as if left over from an earlier assignment of the partition to this worker
(seen under rebalance churn: Faust then drops every message below it as already read).

FAULT_STALE_AFTER_SEEK=1: with the above, every other seek of an input partition leaves the
read position at N as well, as a delivery blocked across the rebalance would each time.

FAULT_GAP_AFTER_SEEK=K: the first delivery of each input partition after Faust's seek to its
committed offset C comes from offset C + K, once (a stale fetch position under churn); Faust
records offsets C + 1 to C + K as a gap in the partition.

FAULT_GAP_OVER_DELIVERED=K: after Faust's first seek of each input partition to its committed
offset C, Faust's gap of the partition holds offsets C + 1 to C + K, while the records are
delivered in order (what a delivery from the end of a batch fetched before a rebalance leaves
for a partition the worker kept, holding the messages in between).

FAULT_LATE_DISCARD=S: Faust's conductor notices that the stream of an ended actor is gone only S
seconds later, once the rebalance that revoked its partition is over (a race under churn: the
change is then not dropped as part of the rebalance, and the conductor re-subscribes later).

FAULT_RESUBSCRIBE_SECONDS=S: Faust's conductor re-subscribes S seconds after the topics of its
streams changed, instead of 45.

FAULT_FETCHER_ERROR_FILE=PATH: once PATH exists, aiokafka's fetcher task fails as it did on a
fetch size over the protocol's int32 (a struct.error while it builds the next fetch request).

FAULT_FETCHER_CANCEL_FILE=PATH: once PATH exists, aiokafka's fetcher task is cancelled, which its
routine swallows: the task ends without an error, as only the fetcher's own close should end it.

FAULT_SLOW_START_FILE=PATH: the worker, built, waits 3 s before it runs, having created PATH (a
machine slow to start it: Faust takes SIGTERM only once its worker runs).

FAULT_SLOW_CONFIGURE_FILE=PATH: the coherence model, being configured, creates PATH and waits
3 s (a model that takes long to configure: large item files or hierarchies).

FAULT_SLOW_BUILD_FILE=PATH: the worker's Faust worker, about to be built, creates PATH and waits
3 s (a machine slow to build it: the model.time_limit window process runs, Faust takes no signal yet).

FAULT_SLOW_WINDOW_FILE=PATH: the first window the coherence model anonymizes, in whichever
process, creates PATH and then takes 600 s; later windows (PATH exists) run as usual. A real
window that takes long depends on the machine: the hostile one of test_service.py took about
10 s on some days and 1.6 s on another, when stopping the worker missed it.

FAULT_WINDOW_SECONDS=S: every window the coherence model anonymizes takes S seconds more (a
window whose model takes long, on any machine).

FAULT_SLOW_PART_FILE=PATH: every part the rho model's divide and conquer suppresses creates PATH
and then takes 600 s, in the pool's processes too (they are forked from this process or from a
forkserver that loaded this file). Real parts took 2.5 s on a fast machine, against tests that
signal 0.5 s after the pool started.

FAULT_WINDOW_LOG_WAIT_FILE=PATH: the window log reader, about to start its clients for its
first read, creates PATH and waits 3 s, within the read's producer.request_timeout and without
holding the event loop (the test takes the broker away meanwhile: a broker gone just as a
partition's first message arrives).

FAULT_WINDOW_LOG_REFUSED_SECONDS=S: for S seconds from its first read, the window log reader's
clients connect to a port nothing listens on, so that every connection is refused as by a broker
that is down; then to the broker again (a broker back within producer.request_timeout, which the
embedded broker cannot be: a restart loses its topics).

FAULT_SLOW_REVOKE_FILE=PATH: the worker's handler of the revocation Faust signals before each
join of the group creates PATH and waits 2 s on the event loop, the consumer subscribed and its
join not begun (the window a stop signal landed in after about 10 ms).

FAULT_SLOW_WEB_STOP_SECONDS=S: the worker's web server waits S seconds before it stops, as in a
stop slowed by its Kafka clients, within the stop's 10 s (or, S above 10, a stop that overruns its
limit in a service known beforehand). A worker whose clients stop at once
closes its web server about 25 ms after a fatal error, and a test polling /healthz for the 503 it
answers meanwhile missed it on a loaded machine.
"""

import asyncio
import functools
import os
import time


def _slowed(function, path: str, seconds: float, once: bool = False):
    """``function``, first creating ``path`` and then waiting ``seconds``; with ``once``, only the
    call that creates ``path``, in whichever process (later calls run at once). It keeps the
    function's name: the rho pool pickles suppress_part by name, which must find this wrapper."""

    @functools.wraps(function)
    def slowed(*args, **kwargs):
        try:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | (os.O_EXCL if once else 0)))
        except FileExistsError:
            return function(*args, **kwargs)
        time.sleep(seconds)
        return function(*args, **kwargs)

    return slowed

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


def _after_first_seek(action):
    """Run ``action(consumer, tp, committed)`` once for each input partition, after Faust's first
    seek of it to its committed offset (a partition with nothing committed is left alone)."""
    from faust.transport import consumer as _seeking

    done = set()
    seek = _seeking.Consumer.perform_seek

    async def perform_seek(self):
        await seek(self)
        for tp, committed in list(self._read_offset.items()):
            if tp.topic.endswith(".in") and committed and tp not in done:
                done.add(tp)
                await action(self, tp, committed)

    _seeking.Consumer.perform_seek = perform_seek


_gap = os.environ.get("FAULT_GAP_AFTER_SEEK")
if _gap is not None:

    async def _fetch_past_records(consumer, tp, committed):
        await consumer._thread.seek_wait({tp: committed + int(_gap)})
        consumer._read_offset[tp] = committed

    _after_first_seek(_fetch_past_records)

_gap_over = os.environ.get("FAULT_GAP_OVER_DELIVERED")
if _gap_over is not None:

    async def _record_a_gap(consumer, tp, committed):
        await consumer._add_gap(tp, committed + 1, committed + int(_gap_over))

    _after_first_seek(_record_a_gap)

_late = os.environ.get("FAULT_LATE_DISCARD")
if _late is not None:
    from faust.transport import conductor as _conductor

    _discard = _conductor.Conductor.discard

    def _discard_noticed_late(self, topic):
        _discard(self, topic)
        asyncio.get_running_loop().call_later(float(_late), self._flag_changes)

    _conductor.Conductor.discard = _discard_noticed_late

_resubscribe = os.environ.get("FAULT_RESUBSCRIBE_SECONDS")
if _resubscribe is not None:
    from faust.transport import conductor as _conductor

    _conductor.Conductor._resubscribe_sleep_lock_seconds = float(_resubscribe)

_fetcher_error = os.environ.get("FAULT_FETCHER_ERROR_FILE")
if _fetcher_error is not None:
    import struct

    from aiokafka.consumer import fetcher as _fetcher

    _actions = _fetcher.Fetcher._get_actions_per_node

    def _failing_actions(self, assignment):
        if os.path.exists(_fetcher_error):
            raise struct.error("'i' format requires -2147483648 <= number <= 2147483647")
        return _actions(self, assignment)

    _fetcher.Fetcher._get_actions_per_node = _failing_actions

_fetcher_cancel = os.environ.get("FAULT_FETCHER_CANCEL_FILE")
if _fetcher_cancel is not None:
    from asyncio import current_task as _current_task

    from aiokafka.consumer import fetcher as _fetcher

    _actions_before_cancel = _fetcher.Fetcher._get_actions_per_node

    def _cancelled_actions(self, assignment):
        if os.path.exists(_fetcher_cancel):
            _current_task().cancel()  # taken at the routine's next await
        return _actions_before_cancel(self, assignment)

    _fetcher.Fetcher._get_actions_per_node = _cancelled_actions

_slow_start = os.environ.get("FAULT_SLOW_START_FILE")
if _slow_start is not None:
    from mode import worker as _mode_worker

    _mode_worker.Worker.execute_from_commandline = _slowed(_mode_worker.Worker.execute_from_commandline, _slow_start, 3)

_slow_configure = os.environ.get("FAULT_SLOW_CONFIGURE_FILE")
if _slow_configure is not None:
    from setveil.plugins.coherence.model import Coherence

    Coherence.__init__ = _slowed(Coherence.__init__, _slow_configure, 3)

_slow_build = os.environ.get("FAULT_SLOW_BUILD_FILE")
if _slow_build is not None:
    from setveil.streams import worker as _worker

    _worker.Worker.__init__ = _slowed(_worker.Worker.__init__, _slow_build, 3)

_slow_window = os.environ.get("FAULT_SLOW_WINDOW_FILE")
if _slow_window is not None:
    from setveil.plugins.coherence.model import Coherence

    Coherence.anonymize = _slowed(Coherence.anonymize, _slow_window, 600, once=True)

_window_seconds = os.environ.get("FAULT_WINDOW_SECONDS")
if _window_seconds is not None:
    from setveil.plugins.coherence.model import Coherence

    _anonymize = Coherence.anonymize

    @functools.wraps(_anonymize)
    def _anonymize_slowly(*args, **kwargs):
        time.sleep(float(_window_seconds))
        return _anonymize(*args, **kwargs)

    Coherence.anonymize = _anonymize_slowly

_slow_part = os.environ.get("FAULT_SLOW_PART_FILE")
if _slow_part is not None:
    from setveil.plugins.rho import dnc as _dnc

    _dnc.suppress_part = _slowed(_dnc.suppress_part, _slow_part, 600)

_window_log_wait = os.environ.get("FAULT_WINDOW_LOG_WAIT_FILE")
if _window_log_wait is not None:
    from setveil.streams import windowlog as _windowlog

    _start_reader = _windowlog.WindowLogReader._start

    async def _start_reader_late(self):
        if not os.path.exists(_window_log_wait):
            os.close(os.open(_window_log_wait, os.O_CREAT | os.O_WRONLY))
            await asyncio.sleep(3)
        return await _start_reader(self)

    _windowlog.WindowLogReader._start = _start_reader_late

_window_log_refused = os.environ.get("FAULT_WINDOW_LOG_REFUSED_SECONDS")
if _window_log_refused is not None:
    from setveil.streams import windowlog as _windowlog
    from setveil.streams.broker import free_port

    _refused_until: list[float] = []
    _closed_port = free_port()

    def _reachable(settings):
        """``settings``, or a copy whose bootstrap refuses every connection while the fault lasts."""
        if not _refused_until:
            _refused_until.append(time.monotonic() + float(_window_log_refused))
        if time.monotonic() < _refused_until[0]:
            return settings.replace(kafka__bootstrap=f"127.0.0.1:{_closed_port}")
        return settings

    _reader_consumer, _reader_admin = _windowlog.consumer, _windowlog._admin
    _windowlog.consumer = lambda settings, *topics, **extra: _reader_consumer(_reachable(settings), *topics, **extra)
    _windowlog._admin = lambda settings, timeout: _reader_admin(_reachable(settings), timeout)

_slow_web_stop = os.environ.get("FAULT_SLOW_WEB_STOP_SECONDS")
if _slow_web_stop is not None:
    from faust.web.drivers import aiohttp as _web

    _stop_server = _web.Web.stop_server

    async def _stop_server_late(self):
        await asyncio.sleep(float(_slow_web_stop))
        return await _stop_server(self)

    _web.Web.stop_server = _stop_server_late

_slow_revoke = os.environ.get("FAULT_SLOW_REVOKE_FILE")
if _slow_revoke is not None:
    from setveil.streams.app import StreamService

    _on_revoked = StreamService.on_revoked

    async def _on_revoked_slowly(self, *args, **kwargs):
        os.close(os.open(_slow_revoke, os.O_CREAT | os.O_WRONLY))
        await asyncio.sleep(2)
        return await _on_revoked(self, *args, **kwargs)

    StreamService.on_revoked = _on_revoked_slowly
