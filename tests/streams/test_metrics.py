"""What a worker exposes to operators (``/metrics``, ``/readyz``) is what docs/operations.md says."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from faust.types import TP
from prometheus_client.parser import text_string_to_metric_families

from setveil.streams.app import StreamService, create_app
from setveil.streams.causes import MESSAGE_KINDS, WINDOW_CAUSES
from setveil.streams.codec import message_bytes
from setveil.streams.metrics import ServiceMetrics, latency_buckets
from setveil.streams.process import tree_peak_rss_bytes
from setveil.streams.settings import load_settings

from .kafkatools import produce, read_topic, records, wait_until

REPO = Path(__file__).resolve().parents[2]


def _families(exposition: str) -> dict[str, tuple[str, frozenset[str]]]:
    """Every metric of an exposition, as an operator's query names it (a counter with its
    ``_total``), with its type and its labels (a histogram's ``le`` aside)."""
    families = {}
    for family in text_string_to_metric_families(exposition):
        labels = frozenset(label for sample in family.samples for label in sample.labels if label != "le")
        name = f"{family.name}_total" if family.type == "counter" else family.name
        families[name] = (family.type, labels)
    return families


def _exposed() -> dict[str, tuple[str, frozenset[str]]]:
    return _families(ServiceMetrics(lambda: {0: (3, 7)}).exposition().decode())


def _metrics_section() -> str:
    text = (REPO / "docs" / "operations.md").read_text()
    return text.split("## Metrics", 1)[1].split("\n## ", 1)[0]


def _documented() -> dict[str, tuple[str, frozenset[str]]]:
    """The Metrics table's rows: `name{label,...}` | type | meaning."""
    rows = re.findall(r"^\| `((?:setveil|process|python)_[a-z_]+)(?:\{([a-z,]+)\})?` \| ([a-z]+) \|",
                      _metrics_section(), flags=re.MULTILINE)
    return {name: (kind, frozenset(labels.split(",")) - {""}) for name, labels, kind in rows}


def _off_linux() -> set[str]:
    """The documented metrics read from /proc, which a worker elsewhere does not expose."""
    return set() if sys.platform == "linux" else {
        n for n in _documented() if n.startswith("process_") or n == "setveil_peak_resident_memory_bytes"}


def _samples() -> dict[tuple[str, tuple], float]:
    text = ServiceMetrics(lambda: {}).exposition().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_every_metric_the_worker_exposes_is_documented_and_no_other():
    # Regression: a metric added to the worker must reach the operators' table, with the type and
    # labels a query needs (python_info's five labels were "the implementation and version")
    documented = _documented()
    assert _exposed() == {name: documented[name] for name in documented.keys() - _off_linux()}


def test_no_created_series_beside_the_documented_ones():
    # Regression (QA as an operator): prometheus_client's 11 *_created families were exposed, undocumented
    assert not [name for name, _ in _samples() if name.endswith("_created")]


def test_the_process_memory_the_tuning_section_asks_for_is_exposed():
    # Regression: /metrics had no process metrics, though the docs send operators there for memory.
    if sys.platform != "linux":
        return  # prometheus_client reads them from /proc
    samples = _samples()
    assert samples[("process_resident_memory_bytes", ())] > 0
    assert ("process_cpu_seconds_total", ()) in samples


def test_the_peak_memory_counts_the_live_child_processes_that_process_metrics_leave_out():
    # Regression (QA as an operator): with model.time_limit a window runs in a child process that
    # no metric counted, so a container's memory limit could be sized only from bench stream
    if sys.platform != "linux":
        return  # read from /proc
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; b = bytearray(64 << 20); b[::4096] = "
                              "b'x' * len(b[::4096]); print(flush=True); time.sleep(60)"], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline()  # its 64 MiB are resident
        own = _samples()[("process_resident_memory_bytes", ())]
        assert _samples()[("setveil_peak_resident_memory_bytes", ())] >= own + (64 << 20)
    finally:
        child.kill()
        child.wait()


def test_the_peak_memory_is_each_live_descendants_own_peak_however_deep_or_from_whichever_thread():
    # the deepest of three processes, started from a thread of the second that still runs (as a pool
    # or a time limit's solve process may be), had 64 MiB resident and let them go
    if sys.platform != "linux":
        return  # read from /proc
    deepest = ("import os, resource, time; b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096]); del b; "
               "print(os.getpid(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10, flush=True); "
               "time.sleep(60)")
    second = (f"import subprocess, sys, threading; threading.Thread(target=subprocess.run, "
              f"args=([sys.executable, '-c', {deepest!r}],)).start()")
    first = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', "
                              f"{second!r}])"], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert first.stdout is not None
        pid, peak = map(int, first.stdout.readline().split())
        assert peak >= 64 << 20
        # its peak as the kernel counts it for the process itself, and within the sum of the three
        assert abs(tree_peak_rss_bytes(pid) - peak) < 256 << 10
        assert tree_peak_rss_bytes(first.pid) > peak
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(first.pid, signal.SIGKILL)
        first.wait()


def test_every_rejection_cause_and_dead_letter_kind_is_exported_as_zero_before_any_event():
    # Regression: a labelled series appeared only with its first event, so rate(...) > 0 missed it.
    samples = _samples()
    for cause in WINDOW_CAUSES:
        assert samples[("setveil_windows_rejected_total", (("cause", cause),))] == 0
    for kind in MESSAGE_KINDS:
        assert samples[("setveil_records_dead_lettered_total", (("kind", kind),))] == 0


def test_the_code_names_causes_and_kinds_only_through_streams_causes():
    # streams/causes.py is the one place the label values are written: a literal elsewhere would
    # be a cause or kind the metrics do not start at 0 (this found one the refactoring missed)
    for name in ("codec.py", "processor.py", "isolation.py", "app.py"):
        source = (REPO / "streams" / name).read_text()
        for value in {*WINDOW_CAUSES, *MESSAGE_KINDS}:
            assert f'"{value}"' not in source and f"'{value}'" not in source, (name, value)


def test_the_docs_name_every_label_value_in_the_code_order():
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(setveil_[a-z_]+)\{[a-z]+\}` \|[^|]*\|(.*)$",
                                                         _metrics_section(), flags=re.MULTILINE)}
    for metric, values in (("setveil_windows_rejected_total", WINDOW_CAUSES),
                           ("setveil_records_dead_lettered_total", MESSAGE_KINDS)):
        named = re.findall(r"`([a-z-]+)`", rows[metric])
        assert [v for v in named if v not in ("cause", "kind")] == list(values)


def _service(assigned: bool, rebalancing: bool) -> SimpleNamespace:
    app = SimpleNamespace(tables=SimpleNamespace(recovery=SimpleNamespace(in_recovery=False)), rebalancing=rebalancing,
                          consumer=SimpleNamespace(assignment=lambda: {TP("in", 2), TP("in", 0), TP("other", 1)}))
    return SimpleNamespace(app=app, assigned=assigned, fatal=None, topic="in")


def test_readyz_names_no_partition_between_a_revocation_and_the_next_assignment():
    # Regression: during a rebalance /readyz said "assigned": false with the revoked partitions listed.
    ready, body = StreamService.readiness(_service(assigned=False, rebalancing=True))
    assert not ready and body["assigned"] is False and body["partitions"] == []
    ready, body = StreamService.readiness(_service(assigned=True, rebalancing=False))
    assert ready and body["partitions"] == [0, 2]


def test_readyz_answers_503_once_the_worker_stops_on_a_fatal_error():
    # mutation pass (app70): readiness without its check of a fatal error passed every test; a
    # worker stopping after a send the broker did not take stayed ready, as /healthz said 503
    service = _service(assigned=True, rebalancing=False)
    service.fatal = TimeoutError()
    ready, body = StreamService.readiness(service)
    assert not ready and body["ready"] is False and body["assigned"] is True


def _endpoint_row(path: str) -> str:
    text = (REPO / "docs" / "operations.md").read_text()
    return re.search(rf"^\| `{path}` \|(.*)$", text.split("## Endpoints", 1)[1], flags=re.MULTILINE).group(1)


def test_healthz_answers_the_bodies_the_endpoints_table_shows(tmp_path):
    # Regression (operator walkthrough): the table gave the body of a worker that runs and not the
    # one of a worker stopping on a fatal error, which a probe or a script reading it meets
    settings = load_settings(None, {}, env={})
    app, service = create_app(settings, None, settings.topics.partitions, str(tmp_path))
    healthz = app.web.views["/healthz"]
    running = asyncio.run(healthz.get(None))
    service.fatal = TimeoutError()
    failed = asyncio.run(healthz.get(None))
    row = _endpoint_row("/healthz")
    for response in (running, failed):
        assert f"{response.status} `{response.body.decode()}`" in row


def test_window_latency_has_buckets_just_past_the_age_a_window_is_cut_at():
    # QA soak: at window.max_seconds 5 every window cut by age fell into the one bucket (5, 10], so
    # the histogram's p50 and p99 read 7.5 and 9.95 s whatever the work took
    metrics = ServiceMetrics(lambda: {}, max_seconds=5.0)
    metrics.window_latency.observe(5.3)
    text = metrics.exposition().decode()
    bounds = {s.labels["le"]: s.value for family in text_string_to_metric_families(text)
              for s in family.samples if s.name == "setveil_window_latency_seconds_bucket"}
    assert [bounds[le] for le in ("5.0", "5.5", "6.25", "7.5", "10.0")] == [0, 1, 1, 1, 1]
    # at 3 s the bound at twice the age is one of its own, not one of the fixed buckets
    assert {3.3, 3.75, 4.5, 6.0} <= set(latency_buckets(3.0))


def test_the_throughput_window_is_trimmed_without_a_scrape(monkeypatch):
    # Regression (soak): only a scrape of /metrics trimmed it, so a worker nobody scraped kept an
    # entry for every window it ever emitted
    clock = [1000.0]
    monkeypatch.setattr("setveil.streams.metrics.time.monotonic", lambda: clock[0])
    metrics = ServiceMetrics(lambda: {})
    for _ in range(100):
        metrics.emitted(10, 0.1, 0.05, 0.2, 1000)
        clock[0] += 1.0
    assert len(metrics._recent) <= 11
    assert metrics.transactions_per_second() == 10.0


def test_the_windows_emitted_and_rejected_are_counted_with_their_transactions(monkeypatch):
    # what an operator reads of two acknowledged windows and a rejected one: the counters count
    # windows and transactions, the histograms observe each window, the gauges read the last one
    monkeypatch.setattr("setveil.streams.metrics.time.monotonic", lambda: 1000.0)
    metrics = ServiceMetrics(lambda: {2: (4, 9)})
    metrics.emitted(120, 0.3, 0.1, 0.25, 5000)
    metrics.emitted(30, 0.2, 0.1, 0.05, 2000)
    metrics.rejected(WINDOW_CAUSES[1], 40)
    text = metrics.exposition().decode()
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(text) for s in family.samples}
    assert [samples[(name, ())] for name in (
        "setveil_windows_emitted_total", "setveil_transactions_emitted_total", "setveil_transactions_rejected_total",
        "setveil_window_transactions_count", "setveil_window_transactions_sum", "setveil_window_information_loss_count",
        "setveil_information_loss", "setveil_transactions_per_second")] == [2, 150, 40, 2, 150, 2, 0.05, 15.0]
    assert samples[("setveil_window_information_loss_sum", ())] == pytest.approx(0.3)
    assert [samples[("setveil_windows_rejected_total", (("cause", cause),))] for cause in WINDOW_CAUSES] == [
        1 if cause == WINDOW_CAUSES[1] else 0 for cause in WINDOW_CAUSES]
    assert [samples[(name, (("partition", "2"),))] for name in ("setveil_consumer_lag", "setveil_held_transactions")] \
        == [4, 9]


def test_the_worker_serves_the_documented_endpoints_and_not_fausts_router_or_tables(make_settings, start_worker):
    # Regression (QA as an operator): the metrics port also served Faust's /router, the URL of
    # every worker of the group, and /table
    settings = make_settings()
    worker = start_worker(settings)
    assert [worker.get(path)[0] for path in ("/healthz", "/readyz", "/metrics")] == [200, 200, 200]
    assert [worker.get(path)[0] for path in ("/router/", "/table/")] == [404, 404]
    # "besides these, only Faust's index answers": not its debug pages (graph, stats, assignment)
    assert worker.get("/") == (200, b'{"status":"OK"}')
    assert [worker.get(path)[0] for path in ("/graph/", "/assignment/", "/performance/")] == [404, 404, 404]
    # the bodies the Endpoints table shows, and every metric of its Metrics table once a window
    # went out (a partition's series appear with its first message), by name, type and labels
    assert worker.get("/healthz")[1] == b'{"status":"ok"}'
    assert worker.get("/readyz")[1] == b'{"ready":true,"assigned":true,"rebalancing":false,"recovering":false,' \
                                       b'"partitions":[0,1]}'
    produce(settings, records([["n1", "n2"]] * 20))
    wait_until(lambda: worker.metrics().get("setveil_windows_emitted_total"), 60, "a window")
    documented = _documented()
    assert _families(worker.get("/metrics")[1].decode()) == {
        name: documented[name] for name in documented.keys() - _off_linux()}


def test_batch_bytes_have_buckets_at_half_and_all_of_the_request_limit():
    # a window is cut at half of producer.max_request_bytes in input bytes, and a batch above it
    # fails closed: an operator sizing it reads how close the batches come to both
    metrics = ServiceMetrics(lambda: {}, max_request_bytes=3_000_000)
    metrics.emitted(10, 0.1, 0.05, 0.2, 1_400_000)
    metrics.emitted(10, 0.1, 0.05, 0.2, 2_900_000)
    text = metrics.exposition().decode()
    bounds = {s.labels["le"]: s.value for family in text_string_to_metric_families(text)
              for s in family.samples if s.name == "setveil_batch_bytes_bucket"}
    assert [bounds[le] for le in ("1.048576e+06", "1.5e+06", "3e+06", "4.194304e+06")] == [0, 1, 2, 2]


@pytest.mark.slow
def test_batch_bytes_are_the_sizes_the_producer_counts_of_the_batches_sent(make_settings, start_worker):
    # Regression (QA as an operator): the Tuning section has producer.max_request_bytes sized from
    # the largest batch, but neither /metrics nor a benchmark said how large a batch was
    settings = make_settings(topics__partitions=1, window__max_transactions=100, window__min_transactions=5,
                             window__max_seconds=60)
    worker = start_worker(settings)
    produce(settings, records([[f"n{(i + j) % 7}" for j in range(3)] for i in range(300)]))
    wait_until(lambda: worker.metrics().get("setveil_transactions_emitted_total", 0) >= 300, 60, "three windows")
    sizes = [message_bytes(m.key, m.value, [(k, v.encode()) for k, v in m.headers.items()])
             for m in read_topic(settings, settings.topics.output)]
    metrics = worker.metrics()
    assert len(sizes) == 3 and metrics["setveil_batch_bytes_count"] == 3
    assert metrics["setveil_batch_bytes_sum"] == sum(sizes)
