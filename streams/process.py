"""A worker in a child process (``setveil serve``), as the demo, the benchmark and the tests run it.

Settings reach the child as ``SETVEIL_*`` variables; it gets a session of its own, so a
Ctrl-C in the terminal reaches the parent, which stops the child with SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

from setveil.core.errors import SetveilError
from setveil.core.orphans import start_killed_with_parent

from .settings import Settings


class WorkerFailed(SetveilError):
    """The worker process exited or did not become ready."""


@contextlib.contextmanager
def logs_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder for the workers' logs, removed however the run ends, except after a
    failure whose message names a file in it (a worker's log), which is kept for the reader (QA:
    the demo named a log it had already removed)."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    keep = False
    try:
        yield directory
    except SetveilError as exc:
        keep = str(directory) in str(exc)
        raise
    finally:
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)


class WorkerProcess:
    def __init__(self, settings: Settings, model_args: Sequence[str], log_path: str | os.PathLike):
        self.settings = settings
        self.model_args = list(model_args)
        self.log_path = Path(log_path)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.web.port}"

    def start(self) -> WorkerProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
        env.update(self.settings.as_env())
        env["PYTHONUNBUFFERED"] = "1"
        command = [sys.executable, "-m", "setveil", "serve", *self.model_args]
        with open(self.log_path, "ab") as log:
            # SIGTERM when the demo, benchmark or test that started it is killed outright: it ran on,
            # alone, until its broker's absence stopped it a minute later
            self.process = start_killed_with_parent(command, signal.SIGTERM, env=env, stdout=log,
                                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                    start_new_session=True)
        return self

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive()
            try:
                if self.get("/readyz")[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise WorkerFailed(f"the worker was not ready after {timeout:g} s (log: {self.log_path})")
            time.sleep(0.1)

    def _check_alive(self) -> None:
        if self.process is None or self.process.poll() is not None:
            code = None if self.process is None else self.process.returncode
            raise WorkerFailed(f"the worker exited with status {code} (log: {self.log_path})")

    async def watch(self) -> None:
        """Return never; raise :class:`WorkerFailed` once the worker has exited, so that a run
        waiting on its output does not wait out an idle limit first."""
        while True:
            self._check_alive()
            await asyncio.sleep(0.5)

    def metrics(self) -> dict[str, float]:
        """The worker's Prometheus samples: ``{'name{labels}': value}``."""
        self._check_alive()  # gone, it would answer with a refused connection that names no log
        status, body = self.get("/metrics")
        if status != 200:
            raise WorkerFailed(f"/metrics answered {status}")
        out = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                out[name] = float(value)
        return out

    def peak_rss_bytes(self) -> int | None:
        """The worker's peak resident memory (Linux), read while it runs: :func:`tree_peak_rss_bytes`."""
        if self.process is None:
            return None
        return tree_peak_rss_bytes(self.process.pid)

    def cpu_seconds(self) -> float:
        """User and system CPU time the worker and its child processes have used so far (Linux)."""
        if self.process is None:
            return 0.0
        ticks = 0
        for pid in _process_tree(self.process.pid):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # its own time and that of its children it has waited for; live children count themselves
            ticks += sum(int(field) for field in fields[11:15])
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM, then SIGKILL if it does not stop in time; returns the exit status."""
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode

    def kill(self) -> None:
        """SIGKILL: the crash the no-loss guarantee is tested against."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def metric_total(samples: dict[str, float], name: str) -> float:
    """Metric ``name`` summed over its labels, from :meth:`WorkerProcess.metrics`' samples."""
    return sum(value for key, value in samples.items() if key == name or key.startswith(name + "{"))


def tree_peak_rss_bytes(pid: int) -> int | None:
    """The peak resident memory of ``pid`` (Linux); with its live child processes
    (``model.time_limit``'s, a model's) the sum of their peaks, an upper bound. None off Linux."""
    total = None
    for member in _process_tree(pid):
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total = (total or 0) + int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its live descendants (Linux)."""
    tree, index = [pid], 0
    while index < len(tree):
        for task in Path(f"/proc/{tree[index]}/task").glob("*/children"):
            try:
                tree += [int(child) for child in task.read_text().split()]
            except OSError:
                continue
        index += 1
    return tree
