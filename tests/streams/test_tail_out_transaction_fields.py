"""tail --out at a batch whose transactions lack a tid, or whose items are not an array of strings
(any producer may write the output topic): it stops naming the message, nothing written, where a
string's characters, a map's keys or a number's text were written as the transaction's items."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import msgpack
import pytest

from setveil.streams.released import Released

from .kafkatools import send

STOPS = ("is a setveil.batch/1 message without the fields, or the types, that docs/batch-format.md gives; "
         "tail stops rather than skip it")


def _batch(transactions: list) -> bytes:
    return msgpack.packb({"schema": "setveil.batch/1", "verified": True, "transactions": transactions,
                          "window": {"id": "in/0/0-0", "partition": 0, "opened": 1.0, "closed": 2.0},
                          "metrics": {"items_in": 3, "information_loss": 0.0}})


@pytest.mark.parametrize("items", ["HIV", {"HIV": 1}, [25, 52], ["a", None]], ids=["text", "map", "numbers", "null"])
def test_items_that_are_no_array_of_strings_are_refused_and_nothing_is_held(items):
    release = Released()
    with pytest.raises(TypeError, match="^a transaction's items are not an array of strings$"):
        release.add("in/0/0-1", [{"tid": 0, "items": ["a"]}, {"tid": 1, "items": items}])
    # the batch's tids are not marked released: refused before them
    release.add("in/0/0-1", [{"tid": 0, "items": ["a"]}, {"tid": 1, "items": ["b"]}])
    window, windows = release.numbered()
    assert [list(labels) for labels in window] == [["a"], ["b"]] and windows == ["in/0/0-1"] * 2


@pytest.mark.slow
@pytest.mark.parametrize("transaction", [{"items": ["a"]}, {"tid": 0, "items": "HIV"}, {"tid": 0, "items": [7]}],
                         ids=["no-tid", "text", "numbers"])
def test_tail_out_stops_at_a_transaction_without_its_fields_and_writes_nothing(make_settings, tmp_path, transaction):
    settings = make_settings(topics__partitions=1)
    asyncio.run(send(settings, settings.topics.output, [(0, _batch([transaction]), None)]))
    release = tmp_path / "release.dat"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")} | settings.as_env()
    result = subprocess.run([sys.executable, "-m", "setveil", "tail", "--idle", "2", "--out", str(release)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == f"setveil: error: {settings.topics.output}/0/0 {STOPS}"
    assert not release.exists()
