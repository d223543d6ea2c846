"""What `setveil replay` sends (streams/replay.py): records in turn over the partitions, a subject's
records all to the partition its key gives, so that a worker can merge them."""

from __future__ import annotations

import asyncio
import gc
import logging

import msgpack
import pytest
from aiokafka.errors import KafkaConnectionError, KafkaTimeoutError
from aiokafka.partitioner import DefaultPartitioner
from aiokafka.structs import RecordMetadata

from setveil.core.errors import ParameterError
from setveil.core.window import Window
from setveil.streams import replay as replay_module
from setveil.streams.broker import free_port
from setveil.streams.codec import message_bytes
from setveil.streams.kafka import BrokerUnavailable
from setveil.streams.replay import ReplayProgress, deal, messages, pack_unkeyed, replay
from setveil.streams.settings import load_settings


def _sent(window, batch, partitions, subjects=None):
    out = []
    for partition, key, size, value in messages(window, batch, partitions=partitions, subjects=subjects):
        decoded = msgpack.unpackb(value)
        records = decoded if batch > 1 else [decoded]
        assert len(records) == size <= batch
        out.append((partition, key, records))
    return out


def test_records_without_subjects_go_to_the_partitions_in_turn():
    window = Window.from_transactions([["a"], ["b"], ["c"], ["d"], ["e"]])
    assert [(p, k, [r["tid"] for r in rs]) for p, k, rs in _sent(window, 1, 3)] == [
        (0, None, [0]), (1, None, [1]), (2, None, [2]), (0, None, [3]), (1, None, [4])]
    assert [(p, [r["tid"] for r in rs]) for p, _, rs in _sent(window, 2, 2)] == [(0, [0, 1]), (1, [2, 3]), (0, [4])]
    assert all("subject" not in r for _, _, rs in _sent(window, 2, 2) for r in rs)


@pytest.mark.parametrize("batch", [1, 4])
def test_a_subjects_records_all_go_to_the_partition_of_its_key(batch):
    subjects = [f"patient-{i % 7}" if i % 5 else None for i in range(60)] + [7, "7"]
    window = Window.from_transactions([[f"i{i}"] for i in range(len(subjects))])
    sent = _sent(window, batch, 3, subjects)
    partitioner = DefaultPartitioner()
    where: dict = {}
    tids = []
    for partition, key, records in sent:
        for record in records:
            tids.append(record["tid"])
            subject = record.get("subject")
            assert subject == subjects[record["tid"]]
            if subject is not None:
                assert where.setdefault(subject, partition) == partition
                assert partition == partitioner(str(subject).encode(), [0, 1, 2], [0, 1, 2])
        # a message of one record is keyed by its subject, as a keyed producer's would be
        expected = str(records[0]["subject"]).encode() if batch == 1 and "subject" in records[0] else None
        assert key == expected
    assert sorted(tids) == list(range(len(subjects)))
    assert len(where) == 9
    # records without a subject still take the partitions in turn
    assert {p for p, _, rs in sent for r in rs if "subject" not in r} == {0, 1, 2}


@pytest.mark.parametrize("batch, sent, parameter, advice", [(3, 2, "batch", "give a smaller --batch"),
                                                            (2, 2, "batch", "give a smaller --batch"),
                                                            (1, 4, "records.max_message_bytes", "raise that setting")])
def test_a_message_the_workers_would_dead_letter_as_oversize_is_refused(batch, sent, parameter, advice):
    # Regression (QA as an operator): `replay --batch 30000` sent 1.8 MB messages, reported
    # success, and the workers dead-lettered every one. The limit is that of records.max_message_bytes:
    # a message of exactly that many bytes is taken
    window = Window.from_transactions([["aaaa"], ["bbbb"], ["cccc"], ["dddd"]])
    largest = max(len(value) for *_, value in messages(window, batch))
    records = f"{batch} record{'' if batch == 1 else 's'}"
    with pytest.raises(ParameterError, match=f"a message of {records} would be {largest} bytes, over "
                                             f"records.max_message_bytes={largest - 1}, .*: {advice}") as refused:
        list(messages(window, batch, max_bytes=largest - 1))
    # the parameter named is the one the advice says to change (a message of one record named 'batch')
    assert refused.value.name == parameter
    assert len(list(messages(window, batch, max_bytes=largest))) == sent


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("partitions", [1, 2, 5])
def test_the_bytes_demo_and_bench_stream_check_are_the_bytes_they_send(batch, partitions):
    # Regression: demo and bench stream packed every message once to refuse an oversize one and
    # again to send it (37 ms of the demo's sample, per run of bench stream). The messages
    # checked are dealt to the partitions as replay deals a window's records, and sent as they are
    window = Window.from_transactions([[f"i{i}", "x" * i] for i in range(11)])
    packed = pack_unkeyed(window, batch, 1 << 20, 1 << 24)
    dealt = deal(packed, partitions)
    assert dealt == list(messages(window, batch, partitions=partitions))
    assert all(value is checked for (*_, value), (_, checked) in zip(dealt, packed, strict=True))


def test_a_broker_gone_between_the_topic_and_the_first_message_ends_replay_in_its_one_error(monkeypatch, caplog):
    # Regression (QA, the oldest dependencies under load): the broker taken away after replay
    # found its topic and before its producer started (while the messages of the sample's 20,000
    # transactions were made) ended replay in aiokafka's KafkaConnectionError, a traceback, under
    # the client's own ERROR line and above "Unclosed AIOKafkaProducer"
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens there: the broker is gone

    async def topic_found(settings):
        return 2

    monkeypatch.setattr(replay_module, "_input_partitions", topic_found)
    settings = load_settings(env={"SETVEIL_KAFKA_BOOTSTRAP": bootstrap})
    with caplog.at_level(logging.WARNING):
        with pytest.raises(BrokerUnavailable) as raised:
            asyncio.run(replay(settings, Window.from_transactions([["a"], ["b"], ["c"]])))
        error = str(raised.value)
        del raised  # its frames hold the producer, which says so when collected unclosed
        gc.collect()
    assert error == (f"the broker at {bootstrap} (kafka.bootstrap) stopped taking messages after 0 transactions "
                     "were sent (KafkaConnectionError)")
    assert [record.getMessage() for record in caplog.records] == []


def test_a_stopped_replay_counts_only_what_the_broker_acknowledged():
    # what a stopped replay says (streams/commands.py): a message the stop dropped, or one still
    # under way, may or may not be in the topic, and is not counted as there
    async def settled() -> ReplayProgress:
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in range(4)]
        for future, (partition, offset) in zip(futures, [(0, 7), (1, 3), (0, 8)]):
            future.set_result(RecordMetadata("in", partition, None, offset, -1, 0, None))
        dropped = loop.create_future()
        dropped.set_exception(KafkaTimeoutError())
        progress = ReplayProgress(planned=100, sent=12)
        failed = progress.settle([(futures[0], 2), (futures[1], 2), (futures[2], 2), (futures[3], 3), (dropped, 3)])
        assert isinstance(failed, KafkaTimeoutError)
        return progress

    progress = asyncio.run(settled())
    assert progress.said("in") == ("6 of 100 transactions acknowledged by the broker in in (partition 0 to offset 8, "
                                   "partition 1 to offset 3); 6 more were sent unacknowledged and may be there too")
    assert ReplayProgress(planned=100).said("in") == "no transaction was sent to in"


@pytest.mark.parametrize("batch, advice", [(1, "raise that setting"), (2, "give a smaller --batch")])
def test_a_message_the_kafka_client_would_refuse_is_refused_naming_producer_max_request_bytes(batch, advice):
    # Regression (rev65): with records.max_message_bytes and producer.max_request_bytes both 1024,
    # as the settings allow, a record of 1,016 bytes passed replay's check, and the Kafka client
    # refused it as 1,102 bytes with its framing: `setveil replay` said "the broker at ...
    # (kafka.bootstrap) stopped taking messages after 0 transactions were sent
    # (MessageSizeTooLargeError)", blaming a broker that had refused nothing
    window = Window.from_transactions([["a" * 1000], ["b" * 10], ["c" * 10]])
    framed = max(message_bytes(key, value, []) for _, key, _, value in messages(window, batch))
    with pytest.raises(ParameterError) as refused:
        list(messages(window, batch, max_bytes=1 << 20, max_request_bytes=framed - 1))
    assert refused.value.name == "producer.max_request_bytes"
    records = f"{batch} record{'' if batch == 1 else 's'}"
    assert refused.value.problem == (f"a message of {records} would be {framed} bytes as the Kafka client "
                                     f"counts it (with its key and framing), over producer.max_request_bytes="
                                     f"{framed - 1}, which the client refuses to send: {advice}")
    assert "a" * 10 not in str(refused.value)
    assert len(list(messages(window, batch, max_bytes=1 << 20, max_request_bytes=framed))) == 3 // batch + 3 % batch


def test_a_stopped_replay_with_nothing_acknowledged_says_what_it_sent():
    # a broker that takes the messages and answers none (it hangs): they were sent, and may be
    # in the topic (rev65: a line saying that none was sent, as where none was, passed every test)
    assert ReplayProgress(planned=100, sent=4).said("in") == ("0 of 100 transactions acknowledged by the broker in in; "
                                                              "4 more were sent unacknowledged and may be there too")


def test_settling_gives_the_first_failure_and_each_partitions_highest_offset():
    # the futures of several INFLIGHT rounds may be settled in any order: the offset is the
    # partition's last, and the error the first met (rev65: the last one's, and the last offset
    # met, each passed every test)
    async def settled() -> tuple[ReplayProgress, BaseException | None]:
        loop = asyncio.get_running_loop()
        acknowledged = []
        for partition, offset in [(0, 9), (0, 4)]:
            future = loop.create_future()
            future.set_result(RecordMetadata("in", partition, None, offset, -1, 0, None))
            acknowledged.append((future, 1))
        failures = []
        for error in (KafkaTimeoutError(), KafkaConnectionError()):
            future = loop.create_future()
            future.set_exception(error)
            failures.append((future, 1))
        progress = ReplayProgress(planned=4, sent=4)
        return progress, progress.settle([failures[0], *acknowledged, failures[1]])

    progress, failed = asyncio.run(settled())
    assert isinstance(failed, KafkaTimeoutError)
    assert (progress.acknowledged, progress.last_offsets) == (2, {0: 9})
