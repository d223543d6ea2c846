"""A worker that fails to start after it has started its ``model.time_limit`` window process
exits, in one line naming the setting at fault, and leaves no process behind (docs/operations.md,
"Settings"). The causes here arise after the checks ``serve`` makes before it connects
(streams/preflight.py), so each test takes the check away or makes the cause afterwards, in the
worker's own process, on a real broker; and a window process that fails as it starts says why."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from setveil.plugins.coherence.model import Coherence

from .conftest import PARAMS
from .test_processor import isolated, processor, with_model

#: how long a worker that cannot start may take to say so; a hang is the failure looked for
EXIT_SECONDS = 60


def _session(sid: int) -> list[int]:
    """The processes of session ``sid``: the worker's own, as it is started in a new session."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            # the fields after the command's name, which may hold spaces and parentheses
            if int(stat[stat.rindex(")") + 2:].split()[3]) == sid:
                members.append(int(entry.name))
    return members


def _serve(settings, sample, before: str) -> tuple[int, str, list[int]]:
    """Run ``setveil serve`` with ``settings`` under ``model.time_limit``, ``before`` run first in
    its process; its exit status, its stderr and the processes of its session left once it exited."""
    _, sensitive, public = sample
    args = ["serve", "--model", "coherence", "--sensitive", str(sensitive), "--public", str(public)]
    args += [part for param in PARAMS for part in ("-P", param)]
    code = f"{before}\nfrom setveil.core.cli import main\nmain({args!r})\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
    env.update(settings.as_env())
    worker = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = worker.communicate(timeout=EXIT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, 9)
        worker.communicate()
        pytest.fail(f"the worker did not exit within {EXIT_SECONDS} s of its start")
    deadline = time.monotonic() + 10
    while (left := _session(worker.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        os.kill(pid, 9)
    return worker.returncode, err, left


def _assert_refused(status: int, err: str, left: list[int], line: str) -> None:
    assert (status, err.splitlines()[-1], left) == (2, line, [])
    assert "Traceback" not in err


@pytest.mark.slow
def test_no_temporary_directory_after_the_check(make_settings, sample):
    # Regression (deploy pass, be69e8a): the temporary directory's mkdtemp failed after the window
    # process had started; a traceback, then the exit waited for that process until a SIGTERM
    settings = make_settings(worker__data_dir="", model__time_limit=30)
    status, err, left = _serve(settings, sample, """
import tempfile
def mkdtemp(*args, **kwargs):
    raise FileNotFoundError(2, "No usable temporary directory found in ['/tmp']")
tempfile.mkdtemp = mkdtemp
""")
    _assert_refused(status, err, left, "setveil: error: parameter 'worker.data_dir': not set, so Faust's data goes in "
                    "a temporary directory, and there is none: No usable temporary directory found in ['/tmp']; "
                    "allowed: a directory the worker may write, or one it may create, or TMPDIR naming one")


@pytest.mark.slow
def test_the_web_port_taken_after_the_check(make_settings, sample):
    # Regression: a port another process binds between the check and the web server's bind ended
    # in mode's traceback of the OSError, exit status 1, naming no setting
    settings = make_settings(model__time_limit=30)
    port = settings.web.port
    status, err, left = _serve(settings, sample, f"""
import socket
import setveil.streams.preflight as preflight
check = preflight.check_web_listen
def check_then_take(settings):
    check(settings)
    global taken
    taken = socket.socket()
    taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    taken.bind(("127.0.0.1", {port}))
    taken.listen()
import setveil.streams.worker as worker
worker.check_web_listen = check_then_take
""")
    _assert_refused(status, err, left, f"setveil: error: parameter 'web.port': {port} (from $SETVEIL_WEB_PORT) is in "
                    "use on 127.0.0.1 by another process; allowed: a free port in [1, 65535]")


@pytest.mark.slow
def test_the_data_directory_unwritable_after_the_check(make_settings, sample, tmp_path):
    # Regression: a data directory that became a file after the check (another process, a volume
    # remounted) ended in the traceback of Faust's mkdir, exit status 1
    data_dir = tmp_path / "faust"
    settings = make_settings(model__time_limit=30, worker__data_dir=str(data_dir))
    status, err, left = _serve(settings, sample, f"""
import setveil.streams.preflight as preflight
check = preflight.check_data_dir
def check_then_spoil(settings):
    check(settings)
    open({str(data_dir)!r}, "w").close()
import setveil.streams.worker as worker
worker.check_data_dir = check_then_spoil
""")
    _assert_refused(status, err, left, f"setveil: error: parameter 'worker.data_dir': {str(data_dir)!r} (from "
                    f"$SETVEIL_WORKER_DATA_DIR): Faust cannot create {data_dir} (File exists); allowed: a directory "
                    "the worker may write, or one it may create")


@pytest.mark.slow
def test_an_unexpected_start_failure_still_exits(make_settings, sample):
    # any other exception keeps its traceback, but the window process goes and the worker exits 1
    settings = make_settings(model__time_limit=30)
    status, err, left = _serve(settings, sample, """
import setveil.streams.worker as worker
def create_app(*args, **kwargs):
    raise RuntimeError("a bug in building the app")
worker.create_app = create_app
""")
    assert (status, err.splitlines()[-1], left) == (1, "RuntimeError: a bug in building the app", [])


@pytest.mark.slow
def test_an_oserror_of_no_setting_keeps_its_traceback_and_still_exits(make_settings, sample):
    # an OSError as Faust's worker starts that is neither its web server's bind nor a directory of
    # its data names no setting: it is neither put down to one nor taken for a start
    settings = make_settings(model__time_limit=30)
    status, err, left = _serve(settings, sample, """
import setveil.streams.worker as worker
first_start = worker.Worker.on_first_start
async def on_first_start(self):
    await first_start(self)  # the log set up, as Faust's web server and data directory find it
    raise OSError(5, "Input/output error")
worker.Worker.on_first_start = on_first_start
""")
    assert (status, left) == (1, [])
    assert "OSError: [Errno 5] Input/output error" in err and "parameter '" not in err


def _fails_as_it_loads() -> None:
    raise LookupError("the model's lookup table is not installed here")


class _FailsAsItLoads(Coherence):
    """A model that the window process cannot unpickle: its start fails with a Python error."""

    def __reduce__(self):
        return _fails_as_it_loads, ()


def test_a_window_process_that_fails_as_it_starts_says_why(sample, capfd):
    # Regression: its end of the pipe closed as it failed, and the worker killed it before it had
    # printed why and exited: 'did not start (killed by signal 9, SIGKILL, which the kernel's OOM
    # killer sends)', the error never shown
    good = processor(sample).pipeline.configured
    with pytest.raises(RuntimeError, match=r"^the anonymizing process did not start \(exit status 1\)$"):
        isolated(with_model(_FailsAsItLoads, good))
    assert "LookupError: the model's lookup table is not installed here" in capfd.readouterr().err


@pytest.mark.slow
def test_a_window_process_that_fails_as_the_worker_starts(make_settings, sample):
    # its error, then one line: the worker's own traceback said nothing more
    settings = make_settings(model__time_limit=30)
    status, err, left = _serve(settings, sample, """
import setveil.streams.isolation as isolation
from tests.streams.test_start_failures import _FailsAsItLoads
from tests.streams.test_processor import with_model
start = isolation.IsolatedProcessor.__init__
def start_unloadable(self, configured, *args, **kwargs):
    start(self, with_model(_FailsAsItLoads, configured), *args, **kwargs)
isolation.IsolatedProcessor.__init__ = start_unloadable
""")
    assert (status, err.splitlines()[-1], left) == (
        1, "setveil: error: the anonymizing process did not start (exit status 1)", [])
    assert "LookupError: the model's lookup table is not installed here" in err
    assert "_NotStarted" not in err
