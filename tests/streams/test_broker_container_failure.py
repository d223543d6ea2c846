"""A Kafka container that cannot be started ends in one line naming the Docker engine and the
alternative, where docker-py's and testcontainers' errors ended the command in a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from setveil.streams.broker import BrokerError, docker_available, free_port, start_kafka_container

ALTERNATIVE = ("set SETVEIL_KAFKA_BOOTSTRAP to a running cluster, such as the embedded broker "
               "`setveil dev-broker` starts")


def test_a_docker_engine_that_does_not_answer_is_named_with_the_alternative(monkeypatch):
    engine = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there: the real client's connect is refused
    monkeypatch.setenv("DOCKER_HOST", engine)
    with pytest.raises(BrokerError) as refused:
        start_kafka_container()
    assert str(refused.value) == (f"cannot start a Kafka container through the Docker engine at {engine} "
                                  f"(DockerException): {ALTERNATIVE}")


class PingOnly(BaseHTTPRequestHandler):
    """An engine that answers its ping and version, as a daemon does while its API is failing,
    and nothing else: the container cannot be created."""

    def do_GET(self):
        if self.path.endswith("/_ping"):
            self._answer(200, b"OK", "text/plain")
        elif self.path.endswith("/version"):
            self._answer(200, json.dumps({"ApiVersion": "1.44", "Version": "25.0.0"}).encode(), "application/json")
        else:
            self._refuse()

    def do_POST(self):
        self._refuse()

    def _refuse(self):
        self._answer(500, json.dumps({"message": "the engine failed"}).encode(), "application/json")

    def _answer(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def failing_engine():
    server = ThreadingHTTPServer(("127.0.0.1", 0), PingOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_demo_on_an_engine_that_answers_but_fails_ends_in_one_line(failing_engine, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", failing_engine)
    assert docker_available()  # so the demo takes the container, not the embedded broker
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
    done = subprocess.run([sys.executable, "-m", "setveil", "demo", "--count", "1000"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (f"setveil: error: cannot start a Kafka container through the Docker "
                                            f"engine at {failing_engine} (APIError): {ALTERNATIVE}")
    assert "Traceback" not in done.stderr
