"""deploy/docker-compose.yml's commands, run outside containers as the file runs them: a worker,
the producer's replay of the bundled sample and tail, each with the environment compose gives it,
over the setveil.toml it mounts, the image's paths read in the source tree. No Docker engine is
needed; the Kafka service is the embedded broker.

Only what containers keep apart changes: the broker's and the web port's addresses, the topics and
the group (so that no other test's topics are read), Faust's data directory, and tail's --count, so
that it stops once it has read the windows the sample makes."""

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
import uuid
from pathlib import Path

import pytest

from setveil.streams.broker import free_port

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
COMPOSE = (DEPLOY / "docker-compose.yml").read_text()
MOUNTED = "/etc/setveil/setveil.toml"


def _outside(argument: str) -> str:
    """``argument`` as it reads outside the image: the mounted settings file, and under /app what
    the Dockerfile copies there from the source tree."""
    return str(DEPLOY / "setveil.toml") if argument == MOUNTED else argument.replace("/app/", f"{REPO}/")


def _command(header: str) -> list[str]:
    """The command of the block under ``header`` (a service's, or the workers' shared one)."""
    indent = re.match(r" *", header).group(0) + "  "
    block = re.search(rf"^{re.escape(header)}\n((?:{indent}.*\n|\n)*)", COMPOSE, re.MULTILINE).group(1)
    listed = re.search(rf"^{indent}command: (\[.*?\])$", block, re.MULTILINE | re.DOTALL).group(1)
    return [sys.executable, "-m", "setveil", *map(_outside, json.loads(listed))]


@pytest.mark.slow
def test_the_compose_services_commands_anonymize_the_sample_end_to_end(broker, tmp_path):
    assert f"./setveil.toml:{MOUNTED}:ro" in COMPOSE
    assert "\nWORKDIR /app\nCOPY streams/data ./streams/data\n" in (DEPLOY / "Dockerfile").read_text()
    prefix = f"compose-{uuid.uuid4().hex[:6]}"
    web = free_port()
    common = {name: value for name, value in os.environ.items() if not name.startswith("SETVEIL_")}
    common.update({name: _outside(value.strip('"'))
                   for name, value in re.findall(r"^  (SETVEIL_[A-Z_]+): (.*)$", COMPOSE, re.MULTILINE)})
    common.update(SETVEIL_KAFKA_BOOTSTRAP=broker.bootstrap, SETVEIL_TOPICS_INPUT=f"{prefix}.in",
                  SETVEIL_TOPICS_OUTPUT=f"{prefix}.out", SETVEIL_TOPICS_DLQ=f"{prefix}.dlq",
                  SETVEIL_TOPICS_WINDOWS=f"{prefix}.windows", SETVEIL_CONSUMER_GROUP_ID=prefix)
    workers = {**common, **{name: value.strip('"') for name, value in
                            re.findall(r"^    (SETVEIL_[A-Z_]+): (.*)$", COMPOSE, re.MULTILINE)},
               "SETVEIL_WEB_PORT": str(web), "SETVEIL_WORKER_DATA_DIR": str(tmp_path / "faust")}
    assert workers["SETVEIL_WINDOW_MAX_TRANSACTIONS"] == "1000"
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(_command("x-worker: &worker"), env=workers, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/readyz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-2000:]
            time.sleep(0.5)
        producer = subprocess.run(_command("  producer:"), env=common, capture_output=True, text=True, timeout=120)
        assert producer.returncode == 0, producer.stderr
        sample = gzip.decompress((REPO / "streams" / "data" / "T10I4D100K-20k.dat.gz").read_bytes()).decode()
        count = len(sample.splitlines())
        assert producer.stderr.startswith(f"{count} transactions in {count // 20} messages to {prefix}.in in ")
        # a partition's last transactions, fewer than window.min_transactions, wait for more input: the
        # replay's messages spread over the partitions as the client picks, and up to that many less
        # one are held on each
        settings = tomllib.loads((DEPLOY / "setveil.toml").read_text())
        least = count - settings["topics"]["partitions"] * (settings["window"]["min_transactions"] - 1)
        tail = subprocess.run([*_command("  tail:"), "--count", str(least)], env=common, capture_output=True,
                              text=True, timeout=120)
        assert tail.returncode == 0, tail.stderr
        summary = re.match(r"\d+ windows \(0 duplicates dropped\), (\d+) transactions, information loss ",
                           tail.stdout.splitlines()[-1])
        assert summary is not None and least <= int(summary.group(1)) <= count, tail.stdout[-2000:]
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)
        log.close()
