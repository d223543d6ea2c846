"""The ports the demo, the benchmark and the tests choose for workers and brokers
(:func:`setveil.streams.broker.free_port`).

Regression: a port was chosen by binding port 0 and letting go, so the kernel could hand the same
port to the next caller, or to a client connection as its local port, before the worker bound it;
a worker then failed to start with its web port "in use by another process" (one test failure in
a whole-suite run under load)."""

from __future__ import annotations

import errno
import socket

import pytest

from setveil.streams.broker import BrokerError, free_port, refuse_taken_port, wait_for_port


def test_ports_chosen_one_after_another_are_all_different():
    # a port let go was handed out again within a few hundred calls in 3 of 3 tries
    ports = [free_port() for _ in range(300)]
    assert len(set(ports)) == len(ports)


def test_a_chosen_port_is_refused_to_a_program_that_binds_it_without_reuse():
    # the kernel's own choices (port 0, a client's local port) are made the same way
    port = free_port()
    with socket.socket() as other, pytest.raises(OSError) as refused:
        other.bind(("127.0.0.1", port))
    assert refused.value.errno == errno.EADDRINUSE


def test_a_chosen_port_can_be_listened_on_as_a_worker_and_a_broker_do():
    # aiohttp (asyncio's create_server) and Tansu (Rust's TcpListener) set SO_REUSEADDR
    port = free_port()
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass


def test_nothing_listens_on_a_chosen_port():
    # tests use one as a broker that is gone
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", free_port()), timeout=5).close()


def test_a_port_is_chosen_on_an_ipv6_host(ipv6_loopback):
    # dev-broker --host ::1 chooses its port there (an IPv4 socket could not bind the name)
    port = free_port("::1")
    with socket.socket(socket.AF_INET6) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("::1", port))
        server.listen()


def test_an_ipv6_address_is_named_in_brackets_where_a_port_follows_it(ipv6_loopback):
    # "::1:PORT" reads as one address, on no port at all, to an operator and to the settings alike
    port = free_port("::1")
    with pytest.raises(BrokerError, match=fr"^nothing listens on \[::1\]:{port} after 0 s$"):
        wait_for_port("::1", port, 0)
    with socket.socket(socket.AF_INET6) as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("::1", port))
        other.listen()
        with pytest.raises(BrokerError, match=fr"^cannot listen on \[::1\]:{port}: Address already in use"):
            refuse_taken_port("::1", port)
