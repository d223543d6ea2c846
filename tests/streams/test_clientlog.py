"""The client log's filters on records of the shape the libraries log them."""

from __future__ import annotations

import logging
import time
from types import SimpleNamespace

import pytest
from faust.transport.drivers import aiokafka as faust_aiokafka
from mode import Service

from setveil.streams import clientlog
from setveil.streams.clientlog import (FAUST_CONSUMER_LOGGER, AssignmentStallFilter, RepeatFilter,
                                         bootstrap_errors_unlogged, quiet_repeats)

STALLS_SINCE_START = [faust_aiokafka.SLOW_PROCESSING_NO_FETCH_SINCE_START,
                      faust_aiokafka.SLOW_PROCESSING_NO_RESPONSE_SINCE_START,
                      faust_aiokafka.SLOW_PROCESSING_NO_HIGHWATER_SINCE_START,
                      faust_aiokafka.SLOW_PROCESSING_STREAM_IDLE_SINCE_START,
                      faust_aiokafka.SLOW_PROCESSING_NO_COMMIT_SINCE_START]


class ConsumerThread(Service):
    """Logs as Faust's consumer thread does: through mode's service logger, on Faust's logger."""


ConsumerThread.logger = logging.getLogger(FAUST_CONSUMER_LOGGER)  # mode sets it from the module at class creation


@pytest.fixture
def logged():
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger(FAUST_CONSUMER_LOGGER)
    logger.addHandler(handler)
    assigned = {"at": None}
    stall = AssignmentStallFilter(lambda: assigned["at"], timeout=300.0)
    logger.addFilter(stall)
    yield records, assigned
    logger.removeFilter(stall)
    logger.removeHandler(handler)


@pytest.mark.parametrize("template", STALLS_SINCE_START)
def test_a_stall_since_start_right_after_an_assignment_is_dropped(logged, template):
    # Regression (QA soak): after a broker pause, Faust's check ran between the assignment and the
    # first fetch and logged "Aiokafka has not sent fetch request for TP(...) since start (started
    # 32.52 minutes ago)" at ERROR; fetching resumed at once
    records, assigned = logged
    assigned["at"] = time.monotonic() - 2.0
    ConsumerThread().log.error(template, "TP(topic='t', partition=2)", "32.52 minutes ago")
    assert records == []


@pytest.mark.parametrize("template", STALLS_SINCE_START)
def test_a_stall_since_start_is_kept_once_the_assignment_is_older_than_the_timeout(logged, template):
    records, assigned = logged
    assigned["at"] = time.monotonic() - 301.0
    ConsumerThread().log.error(template, "TP(topic='t', partition=2)", "32.52 minutes ago")
    assigned["at"] = None  # never assigned: nothing to measure from
    ConsumerThread().log.error(template, "TP(topic='t', partition=2)", "32.52 minutes ago")
    assert len(records) == 2


def test_other_faust_errors_are_kept(logged):
    records, assigned = logged
    assigned["at"] = time.monotonic()
    ConsumerThread().log.error(faust_aiokafka.SLOW_PROCESSING_NO_RECENT_FETCH, "TP(topic='t', partition=2)",
                               "6.00 minutes ago")
    assert len(records) == 1


def _client_record(level: int, msg: str, *args) -> logging.LogRecord:
    return logging.LogRecord("aiokafka.conn", level, __file__, 1, msg, args, None)


def test_a_repeated_client_warning_passes_once_per_interval_and_says_how_many_were_left_out(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(clientlog, "time", SimpleNamespace(monotonic=lambda: now[0]))
    repeats = RepeatFilter(10.0)
    refused = 'Unable connect to "%s": %s'
    passed = []
    for at, level, msg, args in ((1000, logging.ERROR, refused, ("h:1", "refused")),
                                 # the same template with other arguments is the same failure
                                 (1001, logging.ERROR, refused, ("h:2", "refused")),
                                 (1002, logging.ERROR, refused, ("h:1", "refused")),
                                 (1003, logging.WARNING, "Heartbeat failed", ()),
                                 (1004, logging.WARNING, "Heartbeat failed", ()),
                                 (1005, logging.INFO, refused, ("h:1", "refused")),  # below WARNING: never thinned
                                 (1011, logging.ERROR, refused, ("h:1", "refused"))):
        now[0] = at
        record = _client_record(level, msg, *args)
        if repeats.filter(record):
            passed.append(record.getMessage())
    assert passed == ['Unable connect to "h:1": refused', "Heartbeat failed", 'Unable connect to "h:1": refused',
                      'Unable connect to "h:1": refused (2 more like it in the last 11 s not shown)']


def test_every_logger_of_the_client_gets_one_repeat_filter_however_often_it_is_asked():
    # aiokafka logs each connection failure on aiokafka.conn, a child, whose records its parent's
    # filter never sees
    loggers = {name: logging.getLogger(name) for name in ("test-client", "test-client.conn", "test-clientele")}
    quiet_repeats("test-client")
    quiet_repeats("test-client")  # asked again: by each command's run() and by a worker's logging setup
    assert {name: sum(isinstance(f, RepeatFilter) for f in logger.filters) for name, logger in loggers.items()} == {
        "test-client": 1, "test-client.conn": 1, "test-clientele": 0}


def test_the_clients_bootstrap_errors_are_left_out_only_while_the_caller_reports_them(caplog):
    client = logging.getLogger("aiokafka")
    with caplog.at_level(logging.WARNING, logger="aiokafka"):
        with bootstrap_errors_unlogged():
            client.error('Unable connect to "%s": %s', "h:1", "[Errno 111] refused")
            client.warning("kept")
        client.error("after")
    assert [record.getMessage() for record in caplog.records] == ["kept", "after"]
