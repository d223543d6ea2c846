"""A worker is configured by setveil's settings alone: Faust's own environment variables, which
name no setting, change nothing of it (docs/operations.md, "Settings")."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from setveil.streams import FAUST_IMPORT_NAMES
from setveil.streams.app import create_app
from setveil.streams.settings import load_settings

#: Faust reads these un-prefixed names, among others; an operator's environment may hold them
#: for another program (Celery's BROKER_URL), and Kubernetes sets <SERVICE>_PORT to a URL for
#: every Service of the namespace (a Service named "web" sets WEB_PORT=tcp://10.96.0.5:80)
FAUST_VARIABLES = {
    "WEB_PORT": "9999",
    "WEB_BIND": "127.0.0.2",
    "BROKER_URL": "kafka://elsewhere:9092",
    "PRODUCER_ACKS": "0",
    "CONSUMER_AUTO_OFFSET_RESET": "latest",
    "STREAM_WAIT_EMPTY": "true",
    "APP_WEB_ROUTER_ENABLED": "true",
    "TOPIC_PARTITIONS": "1",
    "BROKER_SESSION_TIMEOUT": "600",
    "PRODUCER_COMPRESSION_TYPE": "gzip",
    "PROCESSING_GUARANTEE": "exactly_once",
}

#: what each variable above would set in Faust's configuration
CONFIGURATION = ("web_port", "web_bind", "broker", "producer_acks", "consumer_auto_offset_reset", "stream_wait_empty",
                 "web_router_enabled", "topic_partitions", "broker_session_timeout", "producer_compression_type",
                 "processing_guarantee")


def _configuration(tmp_path) -> dict:
    settings = load_settings(None, {}, env={})
    app, _ = create_app(settings, None, settings.topics.partitions, str(tmp_path))
    return {name: getattr(app.conf, name) for name in CONFIGURATION}


def test_fausts_variables_in_the_environment_override_no_setting(monkeypatch, tmp_path):
    # Regression (QA as an operator): with WEB_PORT=9999 the worker served its probes on 9999 while
    # its settings line and `serve --check` said 6066; PRODUCER_ACKS=0 and BROKER_URL took the
    # batches' acknowledgement and the broker from under the settings, in silence
    expected = _configuration(tmp_path)
    for name, value in FAUST_VARIABLES.items():
        monkeypatch.setenv(name, value)
    assert _configuration(tmp_path) == expected


def test_a_batch_counts_as_sent_once_every_in_sync_replica_has_it_and_a_new_group_reads_from_the_start(tmp_path):
    # mutation pass (app70): producer acks from the leader alone, and a new group reading only what
    # is produced after it joined, passed every not-slow test. With either, a batch lost with its
    # leader, or the input produced before the first worker started, had its input committed all
    # the same (docs/operations.md, "No loss, at least once")
    settings = load_settings(None, {}, env={})
    app, _ = create_app(settings, None, settings.topics.partitions, str(tmp_path))
    assert (app.conf.producer_acks, app.conf.consumer_auto_offset_reset) == (-1, "earliest")


@pytest.mark.parametrize("value", ["tcp://10.96.0.5:80", "not a port"])
def test_a_kubernetes_service_link_named_like_a_faust_variable_does_not_stop_the_worker(monkeypatch, tmp_path, value):
    # Regression: a Service named "web" in the workers' namespace made every worker end in Faust's
    # traceback (ValueError: invalid literal for int() ... 'tcp://10.96.0.5:80') before it started
    expected = _configuration(tmp_path)
    monkeypatch.setenv("WEB_PORT", value)
    assert _configuration(tmp_path) == expected


#: the prefixed variables Faust reads once, when it is imported (faust.types._env, faust/__init__)
IMPORT_TIME_VARIABLES = {
    "F_WEB_PORT": "abc",  # Faust's int() of it ended `serve` and `serve --check` in a traceback
    "FAUST_BLOCKING_TIMEOUT": "y",  # float() of it, the same
    "F_DEBUG": "1",  # Faust's debug mode (blocking detection)
    "FAUST_WEB_TRANSPORT": "unix:///tmp/elsewhere",  # the probes' transport, though web.port names a port
    "F_LOOP": "no-such-loop",  # an event loop Faust would import and install
}


def _faust_reads_at_import(environment: dict[str, str]) -> subprocess.CompletedProcess:
    probe = ("import setveil.streams.app, faust.types._env as e; "
             "print(e.WEB_PORT, e.BLOCKING_TIMEOUT, e.DEBUG, e.WEB_TRANSPORT)")
    return subprocess.run([sys.executable, "-c", probe], env={**os.environ, **environment},
                          capture_output=True, text=True, timeout=120)


def test_fausts_import_time_variables_change_nothing_and_stop_nothing():
    # Regression (review of 9acc2b3): env={} kept Faust's un-prefixed names out of the app, but
    # Faust reads F_* and FAUST_* names when it is imported, before any app is built
    expected = _faust_reads_at_import({})
    given = _faust_reads_at_import(IMPORT_TIME_VARIABLES)
    assert given.returncode == 0, given.stderr.splitlines()[-1:]
    assert given.stdout == expected.stdout == "6066 10.0 False tcp:\n"


def test_every_variable_faust_reads_at_import_is_kept_from_it():
    # a Faust release that reads one more makes this fail, rather than a worker's configuration
    # change in silence
    source = Path(importlib.util.find_spec("faust.types._env").origin).read_text()
    read = set(re.findall(r'_getenv\(\s*"(\w+)"', source))
    assert read and read <= set(FAUST_IMPORT_NAMES)
