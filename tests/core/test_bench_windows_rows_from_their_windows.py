"""A row of `setveil bench windows` from the windows it cut and what each took: a last window
shorter than the model's smallest joins the one before it, each window draws from the seed and its
index, the windows counted are the released and the rejected, the latency percentiles are the
released windows' (the 50th and the 99th), and the throughput is the input's transactions over the
seconds all its windows took. The pipeline and the clock are stand-ins, so that every figure is
known (a mutation pass over core/bench.py: windows cut without the smallest, every window drawing
as window 0, the rejected left out of the count, the 95th percentile, transactions a millisecond,
and a refusal without the allowed range passed every test not marked slow)."""

import json
import types

import numpy as np

from setveil.core import bench
from setveil.core.engine import window_rng
from setveil.core.errors import WindowRejected

from .figure1 import run

#: coherence at k=3: 10 transactions in windows of 3 are windows of 3, 3 and 4
MODEL = ["--model", "coherence", "-P", "h=0.8", "-P", "k=3", "-P", "p=2"]
#: the seconds each window takes, in order; the second is rejected
SECONDS = [1.0, 2.0, 4.0]
SEED = 5


class Clock:
    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def _stand_ins(monkeypatch):
    """The clock bench windows reads, and a pipeline that takes SECONDS on it, releases each window
    as it is, and records each window's length and first draw."""
    clock, seen = Clock(), []

    class Pipeline:
        def __init__(self, configured, manager):
            pass

        def run(self, window, rng):
            index = len(seen)
            seen.append((len(window), rng.random()))
            clock.now += SECONDS[index]
            if index == 1:
                raise WindowRejected("refused")
            return types.SimpleNamespace(release=types.SimpleNamespace(window=window))

    monkeypatch.setattr(bench, "Pipeline", Pipeline)
    monkeypatch.setattr(bench, "time", clock)
    return seen


def test_a_row_of_bench_windows_is_measured_over_the_windows_cut(tmp_path, monkeypatch):
    seen = _stand_ins(monkeypatch)
    (tmp_path / "data.dat").write_text("a b\n" * 10)
    (tmp_path / "private.txt").write_text("b\n")
    out = tmp_path / "windows.json"
    result = run("bench", "windows", tmp_path / "data.dat", *MODEL, "--sensitive", tmp_path / "private.txt",
                 "--sizes", "3", "--seed", SEED, "--json", out)
    assert result.exit_code == 0, result.output
    assert seen == [(3, window_rng(SEED, 0).random()), (3, window_rng(SEED, 1).random()),
                    (4, window_rng(SEED, 2).random())]
    row = json.loads(out.read_text())["rows"][0]
    released = [SECONDS[0], SECONDS[2]]
    assert row == {"window": 3, "windows": 3, "rejected": 1, "transactions_per_second": 10 / sum(SECONDS),
                   "latency_p50_seconds": float(np.percentile(released, 50)),
                   "latency_p99_seconds": float(np.percentile(released, 99)), "info_loss": 0.0,
                   "rejected_latency_p50_seconds": SECONDS[1]}


def test_sizes_below_the_models_smallest_window_are_refused_with_the_range_allowed(tmp_path):
    (tmp_path / "data.dat").write_text("a b\n" * 10)
    (tmp_path / "private.txt").write_text("b\n")
    result = run("bench", "windows", tmp_path / "data.dat", *MODEL, "--sensitive", tmp_path / "private.txt",
                 "--sizes", "5,2")
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "setveil: error: parameter 'sizes': 2 is fewer than the 3 transactions model 'coherence' needs of a window; "
        "allowed: integers in [3, inf)")
