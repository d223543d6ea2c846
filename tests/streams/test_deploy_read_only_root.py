"""The Kubernetes Deployment runs each worker with a read-only root filesystem, its one writable
mount an emptyDir at /tmp: a worker with the ConfigMap's settings (its model.time_limit window
process and model.memory_limit among them) must start, release its windows and stop cleanly with
nothing else to write, its home folder and working directory included.

Without that emptyDir (and without a writable worker.data_dir) a worker refuses to start.

No cluster here: a mount namespace stands for the container, the root remounted read-only and a
tmpfs, given as TMPDIR, for the emptyDir."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from setveil.streams.broker import free_port
from setveil.streams.codec import BATCH_TYPE, decode_batch
from setveil.streams.settings import load_settings

from .deployfiles import KUBERNETES, configmap_toml, deployment_env
from .kafkatools import produce, read_topic, records, wait_until

# The container as the Deployment has it: the emptyDir mounted first (TMPDIR), then the rest read-only.
CONTAINER = 'mount -t tmpfs tmpfs "$TMPDIR" && mount -o remount,ro,bind / && cd "$HOME" && exec "$@"'
# The same without the emptyDir: TMPDIR names a folder of the read-only root.
NO_EMPTYDIR = 'mount -o remount,ro,bind / && cd "$HOME" && exec "$@"'

# Run inside: the folders given that still take a new file (none should), and whether a temporary
# directory can be had.
PROBE = """
import os, sys, tempfile
def writable(folder):
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True
try:
    tempfile.gettempdir()
    temporary = "temporary"
except OSError:
    temporary = "none"
print(temporary, *(p for p in sys.argv[1:] if writable(p)))
"""


def _in_container(command: list[str], layout: str) -> list[str]:
    return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", layout, "sh", *command]


def _container(sample, tmp_path: Path, layout: str, broker_bootstrap: str) -> tuple[Path, dict[str, str], dict]:
    """The ConfigMap's setveil.toml (its item files the sample's), the settings' variables (the
    Deployment's, then this test's topics, group, broker and port) and the environment a worker
    gets in a container of ``layout``; skips where such a container cannot be made."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to make a mount namespace")
    _, sensitive, public = sample
    items = tmp_path / "items"
    items.mkdir()
    shutil.copy(sensitive, items / "sensitive.txt")
    shutil.copy(public, items / "public.txt")
    config = tmp_path / "setveil.toml"
    config.write_text(configmap_toml().replace("/etc/setveil/items", str(items)))
    for folder in ("home", "emptydir"):
        (tmp_path / folder).mkdir()

    prefix = f"ro-{os.getpid()}-{time.monotonic_ns()}"
    settings_env = {
        **deployment_env(),
        "SETVEIL_KAFKA_BOOTSTRAP": broker_bootstrap,
        "SETVEIL_TOPICS_INPUT": f"{prefix}.in",
        "SETVEIL_TOPICS_OUTPUT": f"{prefix}.out",
        "SETVEIL_TOPICS_DLQ": f"{prefix}.dlq",
        "SETVEIL_TOPICS_WINDOWS": f"{prefix}.windows",
        "SETVEIL_TOPICS_REPLICATION_FACTOR": "1",  # one broker here
        "SETVEIL_CONSUMER_GROUP_ID": prefix,
        "SETVEIL_WEB_PORT": str(free_port()),
    }
    # TEMP and TMP would be a temporary directory's first candidates after TMPDIR
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_") and k not in ("TEMP", "TMP")}
    env.update(settings_env, HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "emptydir"), PYTHONUNBUFFERED="1")

    probe = subprocess.run(_in_container([sys.executable, "-c", PROBE, str(tmp_path / "home"), str(tmp_path),
                                          sys.prefix], layout), env=env, capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace with a read-only root here: {probe.stderr.strip()[-300:]}")
    temporary, *writable = probe.stdout.split()
    if writable:
        pytest.skip(f"on other mounts, still writable with the root read-only: {writable}")
    assert temporary == ("temporary" if layout == CONTAINER else "none")
    return config, settings_env, env


@pytest.mark.slow
def test_a_worker_runs_with_the_deployments_read_only_root_and_tmp_alone_writable(broker, sample, tmp_path):
    deployment = (KUBERNETES / "deployment.yaml").read_text()
    assert re.search(r"^ +readOnlyRootFilesystem: true$", deployment, re.MULTILINE)
    mounts = re.findall(r"^ +- \{name: \w+, mountPath: (\S+?)(, readOnly: true)?\}$", deployment, re.MULTILINE)
    assert [path for path, read_only in mounts if not read_only] == ["/tmp"]
    config, settings_env, env = _container(sample, tmp_path, CONTAINER, broker.bootstrap)

    settings = load_settings(config, env=settings_env)
    log_path = tmp_path / "worker.log"
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(_in_container([sys.executable, "-m", "setveil", "serve", "--config", str(config)],
                                                CONTAINER),
                                  env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  start_new_session=True)
    try:
        def ready() -> bool:
            assert worker.poll() is None, log_path.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{settings.web.port}/readyz", timeout=5) as answer:
                    return answer.status == 200
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                return False

        wait_until(ready, 90, "the worker's /readyz")
        transactions = [[f"n{(i + j) % 7}" for j in range(3)] for i in range(200)]
        produce(settings, records(transactions, batch=200))  # one message: one window, however slow the machine

        def released() -> list:
            assert worker.poll() is None, log_path.read_text()[-3000:]
            return [m for m in read_topic(settings, settings.topics.output) if m.headers.get("ce_type") == BATCH_TYPE]

        (batch,) = wait_until(released, 90, "the window's batch")
        assert sorted(t["tid"] for t in decode_batch(batch.value)["transactions"]) == list(range(200))
        assert read_topic(settings, settings.topics.dlq) == []
    finally:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)  # as tini passes the kubelet's on
        try:
            status = worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            raise
    text = log_path.read_text()
    assert status == 0, text[-3000:]
    assert "Traceback" not in text and "[ERROR]" not in text, text[-3000:]


@pytest.mark.parametrize("check", [True, False], ids=["serve --check", "serve"])
def test_without_the_emptydir_a_worker_refuses_to_start_naming_its_data_dir(sample, tmp_path, check):
    # Regression (deploy pass): with the root read-only and no writable temporary directory (the
    # Deployment without its tmp emptyDir) `serve --check` passed, and `serve`, its broker reached,
    # started the model.time_limit window process, ended in a traceback from the mkdtemp of Faust's
    # data directory, and then did not exit: the window process kept it waiting until a SIGTERM.
    # Both now refuse before they connect (no broker here).
    config, _, env = _container(sample, tmp_path, NO_EMPTYDIR, "127.0.0.1:1")
    command = [sys.executable, "-m", "setveil", "serve", "--config", str(config), *(["--check"] if check else [])]
    result = subprocess.run(_in_container(command, NO_EMPTYDIR), env=env, capture_output=True, text=True,
                            timeout=120)
    candidates = [str(tmp_path / "emptydir"), "/tmp", "/var/tmp", "/usr/tmp", str(tmp_path / "home")]
    assert (result.returncode, result.stderr) == (2, (
        "setveil: error: parameter 'worker.data_dir': not set, so Faust's data goes in a temporary directory, and "
        f"there is none: No usable temporary directory found in {candidates}; allowed: a directory the worker may "
        "write, or one it may create, or TMPDIR naming one\n"))
