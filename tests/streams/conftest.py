"""A real broker for the stream tests (docs/operations.md, "Brokers for development, tests and CI")
and helpers.

The broker is chosen as everywhere else (:func:`setveil.streams.broker.open_broker`):
SETVEIL_KAFKA_BOOTSTRAP, else a Kafka container, else the embedded Tansu. Each test gets its
own topics and consumer group, so tests never see each other's messages.
"""

from __future__ import annotations

import re
import socket
import uuid

import pytest

from setveil.streams.broker import free_port, open_broker
from setveil.streams.demo import sample_files
from setveil.streams.process import WorkerProcess
from setveil.streams.settings import Settings, load_settings

PARAMS = ("h=0.4", "k=5", "p=3")


@pytest.fixture
def ipv6_loopback() -> str:
    """``::1``, for a test of an IPv6 host, which is skipped where this machine cannot bind it."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError as exc:
        pytest.skip(f"::1 cannot be bound here: {exc}")
    return "::1"


@pytest.fixture(scope="session")
def broker(tmp_path_factory):
    running = open_broker(log_path=tmp_path_factory.mktemp("broker") / "broker.log")
    yield running
    running.stop()


@pytest.fixture(scope="session")
def sample():
    """The bundled T10I4D100K sample with its sensitive and public item lists."""
    with sample_files() as paths:
        yield paths


@pytest.fixture
def make_settings(broker, request, tmp_path):
    name = re.sub(r"[^a-zA-Z0-9]+", "-", request.node.name)[:40].strip("-")
    prefix = f"t-{name}-{uuid.uuid4().hex[:6]}"

    def make(**changes) -> Settings:
        pairs = {
            "kafka.bootstrap": broker.bootstrap,
            "topics.input": f"{prefix}.in",
            "topics.output": f"{prefix}.out",
            "topics.dlq": f"{prefix}.dlq",
            "topics.windows": f"{prefix}.windows",
            "topics.partitions": 2,
            "consumer.group_id": prefix,
            "consumer.session_timeout": 2.0,
            "consumer.heartbeat_interval": 0.5,
            "consumer.rebalance_timeout": 2.0,
            "consumer.commit_interval": 0.5,
            "window.max_transactions": 500,
            "window.max_seconds": 0.5,
            "window.min_transactions": 10,
            "web.port": free_port(),
            "web.bind": "127.0.0.1",
            "worker.data_dir": str(tmp_path / "faust"),  # a killed worker cannot remove its own
        }
        pairs.update({key.replace("__", "."): value for key, value in changes.items()})
        return load_settings(None, pairs, env={})

    return make


CALL_FAILED = pytest.StashKey[bool]()
LOG_TAIL_LINES = 60


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


@pytest.fixture
def start_worker(sample, tmp_path, request):
    """Start `setveil serve` with coherence (h=0.4, k=5, p=3), or ``model`` with ``params``, on the
    sample's item lists.

    When the test fails, the end of each worker's log is printed with the failure: pytest's
    temporary directories, where the logs are, do not outlive a few later runs."""
    workers: list[WorkerProcess] = []

    def start(settings: Settings, ready: bool = True, params=PARAMS, model: str = "coherence") -> WorkerProcess:
        _, sensitive, public = sample
        args = ["--model", model, "--sensitive", str(sensitive), "--public", str(public)]
        for param in params:
            args += ["-P", param]
        worker = WorkerProcess(settings, args, tmp_path / f"worker-{len(workers)}.log").start()
        workers.append(worker)
        if ready:
            worker.wait_ready()
        return worker

    yield start
    if request.node.stash.get(CALL_FAILED, False):
        for worker in workers:  # before they stop, whose log lines would fill the tail
            tail = worker.log_text().splitlines()[-LOG_TAIL_LINES:]
            print(f"--- the last {len(tail)} lines of {worker.log_path.name}", *tail, sep="\n")
    for worker in workers:
        worker.stop()
