"""The service against a real broker: no loss, bad input, fail closed, crash, scale (issue 6)."""

from __future__ import annotations

import msgpack
import pytest
from click.testing import CliRunner
from kafkatools import produce, read_topic, records, wait_until

from setveil.core.cli import cli, configure
from setveil.core.formats import read_window, write_window
from setveil.core.window import Window
from setveil.streams.codec import BATCH_TYPE, REJECTED_RECORD_TYPE, REJECTED_WINDOW_TYPE, decode_batch

pytestmark = pytest.mark.slow

PARAMS = ["h=0.4", "k=5", "p=3"]


def coherence(sample):
    _, sensitive, public = sample
    return configure("coherence", None, PARAMS, sensitive, public, None, None)


def batches(settings):
    """Emitted batches, decoded, with re-deliveries (same window id) collapsed after a check."""
    out = {}
    for message in read_topic(settings, settings.topics.output):
        assert message.headers["ce_type"] == BATCH_TYPE
        assert message.headers["content-type"] == "application/msgpack"
        batch = decode_batch(message.value)
        assert message.headers["ce_id"] == batch["window"]["id"]
        previous = out.setdefault(batch["window"]["id"], batch)
        assert previous["transactions"] == batch["transactions"], "a re-delivered window changed"
    return out


def released_tids(found: dict) -> list:
    return [t["tid"] for batch in found.values() for t in batch["transactions"]]


def check_every_batch(found: dict, original: dict, model) -> None:
    """Each batch is a valid release of its own window (what `setveil verify` checks)."""
    for batch in found.values():
        transactions = batch["transactions"]
        before = Window.from_transactions([original[t["tid"]] for t in transactions])
        after = Window.from_transactions([t["items"] for t in transactions], vocab=before.vocab)
        problems = list(model.violations(before, after))
        assert not problems, (batch["window"]["id"], problems[0].describe())
        assert batch["verified"] is True


def test_fifty_thousand_records_through_one_worker(make_settings, start_worker, sample, tmp_path):
    data, sensitive, public = sample
    base = list(read_window(data))
    transactions = [base[i % len(base)] for i in range(50_000)]
    settings = make_settings(window__max_transactions=2000, window__min_transactions=100)
    worker = start_worker(settings)
    # single-record messages first, then msgpack arrays of 50 records, over both partitions
    values = records(transactions[:10_000]) + records(transactions[10_000:], first_tid=10_000, batch=50)
    produce(settings, values, partition=lambda i: i % 2)
    wait_until(lambda: worker.metrics().get("setveil_transactions_emitted_total", 0) >= 50_000, 120,
               "50,000 transactions emitted")

    found = batches(settings)
    tids = released_tids(found)
    assert sorted(tids) == list(range(50_000)), "every record in exactly one batch"
    assert read_topic(settings, settings.topics.dlq) == []
    check_every_batch(found, dict(enumerate(transactions)), coherence(sample).model)
    for batch in found.values():
        assert batch["metrics"]["transactions"] <= 2000
        assert batch["model"] == {"name": "coherence", "policy": "mm-il",
                                  "parameters": {"h": 0.4, "k": 5, "p": 3, "il": "support"}}

    # the union of all batches, written in tid order, passes `setveil verify` against the input
    original_path, release_path = tmp_path / "original.dat", tmp_path / "release.dat"
    write_window(Window.from_transactions(transactions), original_path)
    by_tid = {t["tid"]: t["items"] for batch in found.values() for t in batch["transactions"]}
    write_window(Window.from_transactions([by_tid[i] for i in range(50_000)]), release_path)
    result = CliRunner().invoke(cli, ["verify", str(original_path), str(release_path), "--model", "coherence",
                                      "--sensitive", str(sensitive), "--public", str(public),
                                      *[arg for p in PARAMS for arg in ("-P", p)]])
    assert result.exit_code == 0, result.output
    assert "satisfies coherence" in result.output
    metrics = worker.metrics()
    assert metrics["setveil_windows_emitted_total"] == len(found)
    assert "secret" not in worker.log_text()
