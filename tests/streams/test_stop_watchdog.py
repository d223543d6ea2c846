"""The stop watchdog of the worker (streams/worker.py): it exits whatever it finds still stopping."""

import threading
import types

import pytest

from setveil.streams import worker


class _Exited(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


def _exit(status: int) -> None:
    raise _Exited(status)


def test_the_watchdog_exits_when_reading_the_services_still_stopping_fails(monkeypatch, capsys):
    # Regression (review): the watchdog reads the loop's tasks from its own thread while the loop
    # runs on, and a set changing size under it would raise there, leaving the process running
    def changed_under_it(loop):
        raise RuntimeError("Set changed size during iteration")

    monkeypatch.setattr(worker, "still_stopping", changed_under_it)
    monkeypatch.setattr(worker.os, "_exit", _exit)
    hanging = types.SimpleNamespace(service=None, temporary_dir=None, loop=None)
    with pytest.raises(_Exited) as exited:
        worker.Worker._stop_hangs(hanging)
    assert exited.value.status == 0
    assert capsys.readouterr().err == ("setveil: the worker did not stop within 10 s (still stopping: not known); "
                                       "exiting without waiting for the rest of its stop\n")


def test_a_stop_that_hangs_after_a_fatal_error_exits_1_and_removes_the_temporary_data_dir(monkeypatch, tmp_path):
    # the exit status is the worker's failure, as a stop that ends in time says it: a supervisor
    # must not read a refused batch as a clean stop
    monkeypatch.setattr(worker, "still_stopping", lambda loop: "none")
    monkeypatch.setattr(worker.os, "_exit", _exit)
    data_dir = tmp_path / "faust"
    data_dir.mkdir()
    failed = types.SimpleNamespace(fatal=RuntimeError("a batch was refused"))
    hanging = types.SimpleNamespace(service=failed, temporary_dir=str(data_dir), loop=None)
    with pytest.raises(_Exited) as exited:
        worker.Worker._stop_hangs(hanging)
    assert exited.value.status == 1 and not data_dir.exists()


class _Service:
    def __init__(self, label: str) -> None:
        self.shortlabel = label
        self._children: list[_Service] = []


def test_the_services_still_stopping_are_named_by_their_paths_and_a_cycle_ends_a_path():
    # Review: a parent chain that came back on itself, as a tree read while it changes might,
    # kept the watchdog in its walk up the tree for ever, short of its exit
    app, consumer, thread, web = (_Service(label) for label in ("App", "Consumer", "Thread", "Web"))
    app._children = [consumer, web]
    consumer._children = [thread]
    assert worker.stopping_paths({app, consumer, thread, web}) == ["App > Consumer > Thread", "App > Web"]
    consumer._children = [thread, app]
    found: list[list[str]] = []
    walk = threading.Thread(target=lambda: found.append(worker.stopping_paths({app, consumer, thread})), daemon=True)
    walk.start()
    walk.join(timeout=10)  # a daemon thread: a walk that never ends fails the test instead of hanging the suite
    assert found == [["App > Consumer > Thread"]]
    assert worker.stopping_paths(set()) == []
