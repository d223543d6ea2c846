"""Prometheus metrics of one worker (docs/operations.md, "Metrics", lists them).

Counters and histograms are updated as windows and dead letters are acknowledged; the
throughput gauge, the per-partition lag and held-transaction gauges, the peak memory and the
process's own metrics (memory, CPU, file descriptors) are computed when ``/metrics`` is scraped.

Every label value of the labelled counters (:mod:`.causes`) is exported as 0 from the start.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Mapping

from prometheus_client import (CollectorRegistry, Counter, Gauge, Histogram, PlatformCollector, ProcessCollector,
                               disable_created_metrics, generate_latest)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from . import causes
from .process import tree_peak_rss_bytes

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
LOSS_BUCKETS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)
THROUGHPUT_SECONDS = 10.0
#: 1 KiB to 64 MiB by fours
BATCH_BYTES_BUCKETS = tuple(float(1024 * 4 ** i) for i in range(9))


class _PartitionGauges(Collector):
    """Gauges whose per-partition values are read at scrape time."""

    def __init__(self, read: Callable[[], Mapping[int, tuple[int, int]]]):
        self.read = read

    def collect(self):
        lag = GaugeMetricFamily("setveil_consumer_lag", "Input messages not yet emitted or dead-lettered",
                                labels=["partition"])
        held = GaugeMetricFamily("setveil_held_transactions", "Transactions waiting in an open window",
                                 labels=["partition"])
        for partition, (messages, transactions) in sorted(self.read().items()):
            lag.add_metric([str(partition)], messages)
            held.add_metric([str(partition)], transactions)
        yield lag
        yield held


class _PeakMemory(Collector):
    """The worker's peak resident memory with its live child processes', read at scrape time."""

    def collect(self):
        peak = tree_peak_rss_bytes(os.getpid())
        if peak is not None:  # off Linux, as the process_ metrics, it is not exposed
            yield GaugeMetricFamily("setveil_peak_resident_memory_bytes",
                                    "Peak resident memory of the worker and its live child processes, summed",
                                    value=peak)


def latency_buckets(max_seconds: float | None) -> tuple[float, ...]:
    """The window latency buckets: a window cut by age waits ``window.max_seconds`` before its
    work, so a steady stream puts every such window between two fixed buckets (5 and 10 s at the
    default; a soak test saw p50 and p99 read 7.5 and 9.95 from that one bucket). Bounds at 1.1,
    1.25, 1.5 and 2 times it resolve the work after the wait."""
    if max_seconds is None:
        return LATENCY_BUCKETS
    return tuple(sorted(set(LATENCY_BUCKETS) | {round(max_seconds * f, 6) for f in (1.1, 1.25, 1.5, 2)}))


def batch_bytes_buckets(max_request_bytes: int | None) -> tuple[float, ...]:
    """The batch size buckets: producer.max_request_bytes is to be sized from the largest batch,
    and a window is cut at half of it in input bytes, so both are bounds of their own."""
    if max_request_bytes is None:
        return BATCH_BYTES_BUCKETS
    return tuple(sorted(set(BATCH_BYTES_BUCKETS) | {max_request_bytes / 2, float(max_request_bytes)}))


class ServiceMetrics:
    def __init__(self, partitions: Callable[[], Mapping[int, tuple[int, int]]], max_seconds: float | None = None,
                 max_request_bytes: int | None = None):
        # a *_created gauge beside every counter and histogram doubled the exposition with series that
        # say only when the worker started (process_start_time_seconds says it); the switch is the
        # process's, and the worker's process is this one's
        disable_created_metrics()
        r = self.registry = CollectorRegistry()
        self.windows_emitted = Counter("setveil_windows_emitted", "Windows whose batch the broker acknowledged",
                                       registry=r)
        self.windows_rejected = Counter("setveil_windows_rejected", "Windows that failed closed (dead-lettered)",
                                        ["cause"], registry=r)
        self.records_dead_lettered = Counter("setveil_records_dead_lettered",
                                             "Input messages sent to the dead-letter topic", ["kind"], registry=r)
        for cause in causes.WINDOW_CAUSES:
            self.windows_rejected.labels(cause)
        for kind in causes.MESSAGE_KINDS:
            self.records_dead_lettered.labels(kind)
        self.messages_redelivered = Counter("setveil_messages_redelivered",
                                            "Input messages delivered again to the worker that had them (after a "
                                            "rebalance kept their partition here); never taken in twice", registry=r)
        self.partition_rereads = Counter("setveil_partition_rereads",
                                         "Partitions read again from the offset due after Faust delivered them past "
                                         "records not yet delivered", registry=r)
        self.windows_held_for_lease = Counter("setveil_windows_held_for_lease",
                                              "Windows whose sends waited for the group to confirm the worker "
                                              "(its lease had run out, as after a pause)", registry=r)
        self.transactions_emitted = Counter("setveil_transactions_emitted", "Transactions in acknowledged batches",
                                            registry=r)
        self.transactions_rejected = Counter("setveil_transactions_rejected", "Transactions in rejected windows",
                                             registry=r)
        self.window_latency = Histogram("setveil_window_latency_seconds",
                                        "From a window's first message arriving to its batch being acknowledged",
                                        buckets=latency_buckets(max_seconds), registry=r)
        self.window_processing = Histogram("setveil_window_processing_seconds",
                                           "Building, anonymizing, checking and encoding one window", buckets=LATENCY_BUCKETS,
                                           registry=r)
        self.batch_bytes = Histogram("setveil_batch_bytes",
                                     "Bytes of each acknowledged batch message, as the producer counts them "
                                     "against producer.max_request_bytes",
                                     buckets=batch_bytes_buckets(max_request_bytes), registry=r)
        self.window_transactions = Histogram("setveil_window_transactions", "Transactions per emitted window",
                                             buckets=(10, 100, 500, 1000, 2000, 5000, 10000, 20000, 50000), registry=r)
        self.information_loss = Histogram("setveil_window_information_loss",
                                          "Information loss of each emitted window (the model's measure)",
                                          buckets=LOSS_BUCKETS, registry=r)
        self.last_information_loss = Gauge("setveil_information_loss", "Information loss of the last emitted window",
                                           registry=r)
        self._recent: deque[tuple[float, int]] = deque()
        throughput = Gauge("setveil_transactions_per_second",
                           f"Transactions emitted per second over the last {THROUGHPUT_SECONDS:g} s", registry=r)
        throughput.set_function(self.transactions_per_second)
        r.register(_PartitionGauges(partitions))
        r.register(_PeakMemory())
        # the worker process alone: a model's pool or the model.time_limit child is not counted
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)

    def emitted(self, transactions: int, latency: float, processing: float, loss: float, batch_bytes: int) -> None:
        self.windows_emitted.inc()
        self.batch_bytes.observe(batch_bytes)
        self.transactions_emitted.inc(transactions)
        self.window_latency.observe(latency)
        self.window_processing.observe(processing)
        self.window_transactions.observe(transactions)
        self.information_loss.observe(loss)
        self.last_information_loss.set(loss)
        now = time.monotonic()
        self._recent.append((now, transactions))
        # trimmed here too: a worker nobody scrapes kept every window's entry (soak: 1,264 after an
        # hour, about 0.15 MiB/h at two partitions)
        self._forget_before(now - THROUGHPUT_SECONDS)

    def rejected(self, cause: str, transactions: int) -> None:
        self.windows_rejected.labels(cause).inc()
        self.transactions_rejected.inc(transactions)

    def redelivered(self) -> None:
        self.messages_redelivered.inc()

    def reread(self) -> None:
        self.partition_rereads.inc()

    def held_for_lease(self) -> None:
        self.windows_held_for_lease.inc()

    def dead_lettered(self, kind: str) -> None:
        self.records_dead_lettered.labels(kind).inc()

    def transactions_per_second(self) -> float:
        self._forget_before(time.monotonic() - THROUGHPUT_SECONDS)
        return sum(n for _, n in self._recent) / THROUGHPUT_SECONDS

    def _forget_before(self, horizon: float) -> None:
        while self._recent and self._recent[0][0] < horizon:
            self._recent.popleft()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
