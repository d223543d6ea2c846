"""The stop watchdog of the worker (streams/worker.py): it exits whatever it finds still stopping."""

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
