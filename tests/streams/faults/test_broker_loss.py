"""A worker whose broker goes away while it reads the window log (docs/operations.md, "Endpoints"):
it retries within producer.request_timeout, as a send does, and past it stops with the same ERROR
line. The faults are injected in the worker (sitecustomize.py, this folder)."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest
from aiokafka.errors import KafkaConnectionError, KafkaTimeoutError, TopicAuthorizationFailedError

from setveil.core.errors import SetveilError

from setveil.streams import kafka
from setveil.streams.broker import free_port, start_tansu
from setveil.streams.settings import load_settings
from setveil.streams.windowlog import BrokerSilent, WindowLogError, WindowLogReader

from ..kafkatools import produce, read_topic, records, wait_until
from ..test_service import _health_until_exit, _inject_faults


@pytest.fixture
def own_broker(tmp_path):
    """A Tansu broker of the test's own, which the test stops: the shared ``broker`` fixture
    (tests/streams/conftest.py) serves the whole session, and a test that stopped it would take
    it from every test after it. Stopping twice is harmless, so the test may stop it first."""
    running = start_tansu(log_path=tmp_path / "own-broker.log")
    yield running
    running.stop()


def _answered(request_timeout: float, failures: list[BaseException]):
    """What the reader's ``_answered`` makes of a read that fails with ``failures``, in turn, then
    answers; and how many attempts it made."""
    settings = load_settings(None, {"producer.request_timeout": request_timeout}, env={})
    reader = WindowLogReader(settings, 1)
    attempts = []

    async def read():
        attempts.append(None)
        if len(attempts) <= len(failures):
            failure = failures[len(attempts) - 1]
            if failure is None:
                await asyncio.sleep(3600)  # an attempt the broker never answers
            raise failure
        return "answer"

    async def run():
        try:
            return await reader._answered("log", read)
        except Exception as exc:
            return exc

    return asyncio.run(run()), len(attempts)


def test_a_read_refused_by_a_broker_out_of_reach_is_tried_again(caplog):
    assert _answered(5.0, [KafkaConnectionError("refused")] * 2) == ("answer", 3)
    # one warning for the read, not one per attempt
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_a_read_refused_for_the_request_timeout_ends_naming_the_failure():
    # an attempt left unanswered at the deadline is cut short; the error names what failed before it
    failure, attempts = _answered(2.0, [KafkaConnectionError("refused")] * 2 + [None])
    assert isinstance(failure, BrokerSilent) and (failure.topic, failure.failure) == ("log", "KafkaConnectionError")
    assert attempts == 3


def test_the_error_names_the_last_failure_before_the_attempt_cut_short():
    # the worker's ERROR line names the latest failure, not the first
    failure, attempts = _answered(2.0, [KafkaConnectionError("refused"), ConnectionResetError(), None])
    assert isinstance(failure, BrokerSilent) and failure.failure == "ConnectionResetError" and attempts == 3


def test_a_read_the_broker_never_answers_ends_at_the_request_timeout_without_a_retry_warning(caplog):
    failure, attempts = _answered(1.0, [None])
    assert isinstance(failure, BrokerSilent) and failure.failure == "TimeoutError" and attempts == 1
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_a_read_refused_while_the_worker_stops_is_not_tried_again():
    # a stopping worker would otherwise wait out producer.request_timeout for a broker out of reach
    reader = WindowLogReader(load_settings(None, {"producer.request_timeout": 5.0}, env={}), 1)
    attempts = []

    async def read():
        attempts.append(asyncio.create_task(reader.stop()))
        await asyncio.sleep(0)  # the stop begins: the reader is stopping, its read under way
        raise KafkaConnectionError("refused")

    async def run():
        try:
            await reader._answered("log", read)
        except WindowLogError as exc:
            await asyncio.gather(*attempts)
            return exc

    failure = asyncio.run(run())
    assert type(failure) is WindowLogError and "stopped" in str(failure) and len(attempts) == 1


def test_a_read_the_broker_refuses_for_good_is_not_tried_again():
    failure, attempts = _answered(5.0, [TopicAuthorizationFailedError()])
    assert isinstance(failure, TopicAuthorizationFailedError) and attempts == 1


def test_an_offsets_lookup_the_broker_leaves_unanswered_is_tried_again():
    # mutation pass (app70): aiokafka's KafkaTimeoutError, which it does not mark retriable, taken
    # for a refusal for good passed every not-slow test: a worker whose broker was slow to answer a
    # window log read stopped at once, not after producer.request_timeout
    assert _answered(5.0, [KafkaTimeoutError()] * 2) == ("answer", 3)


@pytest.mark.slow
def test_a_broker_gone_as_a_partition_opens_stops_the_worker_with_the_documented_line(
        make_settings, start_worker, own_broker, monkeypatch, tmp_path):
    # Regression (QA as an operator): a broker gone just as a partition's first message arrived
    # stopped the worker at once, "after an unexpected KafkaConnectionError" from the window log
    # reader's connect, where the documentation promises the ERROR line naming the topic and
    # producer.request_timeout
    reached = tmp_path / "reading-the-window-log"
    # the slow web stop keeps the 503 long enough to be seen (faults/sitecustomize.py)
    _inject_faults(monkeypatch, FAULT_WINDOW_LOG_WAIT_FILE=str(reached), FAULT_SLOW_WEB_STOP_SECONDS="2")
    # more than the 3 s the fault waits before the reader connects
    settings = make_settings(kafka__bootstrap=own_broker.bootstrap, producer__request_timeout=8.0)
    worker = start_worker(settings)
    produce(settings, records([["a", "b"]] * 20), partition=0)
    wait_until(reached.exists, 30, "the window log reader's first read")
    own_broker.stop()
    health = _health_until_exit(worker)
    assert worker.process.poll() == 1, "the worker did not exit with status 1 within 60 s"
    assert 503 in health
    text = worker.log_text()
    assert (f"the broker did not answer a read of {settings.topics.input} (KafkaConnectionError; retried for up to "
            "producer.request_timeout=8 s); stopping the worker, unacknowledged input is re-delivered on restart"
            ) in text
    assert "unexpected" not in text
    # QA: the consumer's stop raised the cancellation of a fetch in its retry backoff, every time
    assert "Exception in thread" not in text and "Traceback" not in text


@pytest.mark.slow
def test_a_broker_back_within_the_request_timeout_costs_the_window_log_reader_nothing(
        make_settings, start_worker, monkeypatch):
    # Regression (QA as an operator): the window log reader's first connection refused stopped the
    # worker at once; the reader now connects again until producer.request_timeout
    _inject_faults(monkeypatch, FAULT_WINDOW_LOG_REFUSED_SECONDS="2")
    settings = make_settings(producer__request_timeout=15.0)
    worker = start_worker(settings)
    produce(settings, records([["a", "b"]] * 20), partition=0)
    wait_until(lambda: worker.metrics().get("setveil_transactions_emitted_total", 0) == 20, 60, "the window")
    assert worker.process.poll() is None and worker.get("/healthz")[0] == 200
    text = worker.log_text()
    assert (f"window log reader: a read of {settings.topics.input} failed (KafkaConnectionError); retrying for up "
            "to producer.request_timeout=15 s") in text
    assert "stopping the worker" not in text
    windows = [m for m in read_topic(settings, settings.topics.windows)]
    assert len(windows) == 1  # the window was logged before it was emitted, once


@pytest.mark.slow
def test_a_broker_gone_while_a_command_lists_its_topics_is_the_one_line_refusal(own_broker, monkeypatch, caplog):
    # Regression (QA, a broker that goes away): a broker that answered the admin client's start
    # and was gone for its next request made serve, replay and tail fail with aiokafka's
    # NodeNotReadyError and a traceback, where a broker that does not answer is one line
    started = kafka._admin

    async def answered_then_gone(settings, timeout):
        admin = await started(settings, timeout)
        own_broker.stop()
        return admin

    monkeypatch.setattr(kafka, "_admin", answered_then_gone)
    settings = load_settings(None, {"kafka.bootstrap": own_broker.bootstrap}, env={})
    with pytest.raises(SetveilError) as refused:
        asyncio.run(kafka.ensure_topics(settings))
    assert str(refused.value) == (f"no Kafka broker answers at {own_broker.bootstrap} "
                                  "(kafka.bootstrap, from the command line)")
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_broker_gone_between_the_topic_listing_and_the_readers_start_is_the_one_line_refusal(monkeypatch, caplog):
    # Regression (found beside replay's, QA under load): tail lists the topic with an admin client,
    # then starts its reader; a broker gone in between ended tail in aiokafka's
    # KafkaConnectionError, a traceback, under the client's own ERROR line and above
    # "Unclosed AIOKafkaConsumer"
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens there: the broker is gone

    async def listed(settings, topics, timeout=15.0):
        return {name: 1 for name in topics}

    async def read():
        async with kafka.reading_from_start(settings, settings.topics.output, "output", "topics.output"):
            raise AssertionError("the reader started with no broker")

    monkeypatch.setattr(kafka, "partition_counts", listed)
    settings = load_settings(None, {"kafka.bootstrap": bootstrap}, env={})
    with caplog.at_level(logging.WARNING):
        with pytest.raises(SetveilError) as refused:
            asyncio.run(read())
        error = str(refused.value)
        del refused  # its frames hold the reader, which says so when collected unclosed
        gc.collect()
    assert error == f"no Kafka broker answers at {bootstrap} (kafka.bootstrap, from the command line)"
    assert [record.getMessage() for record in caplog.records] == []
