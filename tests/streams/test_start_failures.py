"""A worker that fails to start after it has started its ``model.time_limit`` window process
exits, in one line naming the setting at fault, and leaves no process behind (docs/operations.md,
"Settings"). The causes here arise after the checks ``serve`` makes before it connects
(streams/preflight.py), so each test takes the check away or makes the cause afterwards, in the
worker's own process, on a real broker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import PARAMS

pytestmark = pytest.mark.slow

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
