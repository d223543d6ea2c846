"""The memory of a benchmark run (setveil.core.bench.in_child): its whole process tree's,
each page counted once (tree_mib), beside its largest process's peak (peak_mib)."""

import json
import multiprocessing
import os

import numpy as np
import pytest

from setveil.core import bench
from setveil.core.bench import in_child

from .figure1 import MODEL, run

MIB = 2**20
#: what each of a run's two workers allocates, in MiB
WORKER_MIB = 128
#: what the benchmark's process holds before it forks the run, in MiB
DATA_MIB = 256

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="Linux's smaps_rollup")


def _two_workers(work) -> dict:
    """A run that forks two workers running ``work`` at once and waits for them, as ρ's pool does."""
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=work) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert all(worker.exitcode == 0 for worker in workers)
    return {}


def _held_until_sampled(monkeypatch, allocate_mib: int, data: np.ndarray | None = None):
    """A worker that allocates ``allocate_mib`` MiB (written, so resident) and reads ``data``,
    then holds both until the benchmark has sampled the tree with both workers holding theirs:
    the sample's moment is no matter of timing."""
    context = multiprocessing.get_context("fork")
    held, sampled = context.Value("i", 0), context.Event()
    sample = bench.tree_mib

    def tree_mib(root):
        both = held.value == 2  # read before the sample: it then sees what both hold
        mib = sample(root)
        if both:
            sampled.set()
        return mib

    monkeypatch.setattr(bench, "tree_mib", tree_mib)

    def work():
        allocated = np.ones(allocate_mib * MIB // 8)
        read = 0.0 if data is None else float(data.sum())
        with held.get_lock():
            held.value += 1
        assert sampled.wait(120), "the benchmark took no sample while both workers held their memory"
        assert allocated.sum() + read > 0

    return work


def test_the_tree_counts_every_workers_allocation_where_the_peak_counts_the_largest_process(monkeypatch):
    memory = in_child(_two_workers, _held_until_sampled(monkeypatch, WORKER_MIB))
    start = memory["peak_mib"] - memory["run_mib"]
    # the largest process holds what the run started with and one worker's allocation, the tree
    # both workers': near the sum of what was allocated, over what the run started with
    assert memory["peak_mib"] == pytest.approx(start + WORKER_MIB, abs=WORKER_MIB / 4)
    assert memory["tree_mib"] > memory["peak_mib"] + 0.75 * WORKER_MIB
    assert memory["tree_mib"] == pytest.approx(start + 2 * WORKER_MIB, abs=WORKER_MIB / 4)


def test_the_tree_counts_the_data_its_workers_only_read_once_and_in_full(monkeypatch):
    # the data is the benchmark's, forked into the run and from it into both workers: four
    # processes map it, and each one's resident memory counts it (a sum of RSS: four times)
    data = np.ones(DATA_MIB * MIB // 8)
    memory = in_child(_two_workers, _held_until_sampled(monkeypatch, 0, data))
    start = memory["peak_mib"] - memory["run_mib"]
    assert start > DATA_MIB
    assert memory["tree_mib"] < start + DATA_MIB / 4
    # its Pss gives the benchmark's process a quarter of it, which the tree holds all the same: a
    # run of its own would, as its peak_mib counts it
    assert memory["tree_mib"] > start - DATA_MIB / 8


def test_the_tree_is_none_where_linux_has_no_smaps_rollup(monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "ROLLUP", str(tmp_path / "{}"))
    memory = in_child(_two_workers, lambda: None)
    assert memory["tree_mib"] is None and memory["peak_mib"] > 0


@pytest.mark.parametrize("rollup", [True, False])
def test_bench_run_gives_the_trees_memory_blank_without_smaps_rollup(files, monkeypatch, rollup):
    if not rollup:
        monkeypatch.setattr(bench, "ROLLUP", str(files / "{}"))
    out = files / "bench.json"
    result = run("bench", "run", files / "fig1.dat", *MODEL, "--sensitive", files / "private.txt", "--runs", "1",
                 "--json", out)
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())["summary"]
    header, _, _, median = result.output.splitlines()[1:5]
    cells = dict(zip((c.strip() for c in header.split("|")), (c.strip() for c in median.split("|"))))
    if rollup:
        # sampled at least as the run starts, when it shares all it holds with the benchmark
        start = summary["peak_mib"] - summary["run_mib"]
        assert summary["tree_mib"] > 0.9 * start
        assert cells["tree_mib"] == f"{summary['tree_mib']:.4g}"
    else:
        assert summary["tree_mib"] is None and cells["tree_mib"] == ""
