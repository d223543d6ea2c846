"""setveil forks only while its process runs one thread: a fork copies the locks other threads hold
(Python 3.12 and later warn of it). The commands that fork (the rho benchmark's runs, the audit's
solves under a time limit, divide and conquer's pool) are run as a user runs them, with an audit
hook that counts the threads at every fork.

The suite itself runs in pytest-xdist's workers, whose own threads make every fork of a test warn
on 3.12 and later; pyproject.toml ignores that warning, and this module checks what it would
have caught."""

import os
import subprocess
import sys

import numpy as np

from .audit.helpers import ASYMMETRIC, graph_database

HOOKED = """
import os, sys, threading
def count(event, args):
    if event == "os.fork":
        with open(os.environ["FORKS_SEEN"], "a") as seen:
            seen.write(f"{threading.active_count()}\\n")
sys.addaudithook(count)
from setveil.__main__ import main
sys.argv[0] = "setveil"
main()
"""


def _threads_at_forks(tmp_path, *args) -> list[int]:
    seen = tmp_path / "forks.txt"
    done = subprocess.run([sys.executable, "-c", HOOKED, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "FORKS_SEEN": str(seen)}, timeout=300)
    assert done.returncode == 0, done.stderr
    return [int(line) for line in seen.read_text().split()] if seen.exists() else []


def test_the_rho_benchmark_forks_its_runs_single_threaded(tmp_path):
    lines = [" ".join(str(x) for x in sorted({i % 5, i % 3 + 5, i % 4 + 8})) for i in range(60)]
    (tmp_path / "mine.dat").write_text("\n".join(lines) + "\n")
    threads = _threads_at_forks(tmp_path, "bench", "rho", "--datasets", tmp_path, "--dataset", "mine",
                                "--experiment", "speed", "--speed-runs", "1", "--workers", "1")
    assert threads and set(threads) == {1}


def test_the_audit_forks_its_solves_single_threaded(tmp_path):
    data = tmp_path / "graph.dat"
    data.write_text("".join(" ".join(row) + "\n" for row in graph_database(ASYMMETRIC)))
    threads = _threads_at_forks(tmp_path, "bench", "audit", data, "--sigma", 0.05, "--noise", 0, "--runs", 1,
                                "--methods", "mip", "--determined", "--time-limit", 30)
    assert threads and set(threads) == {1}


def test_divide_and_conquer_forks_its_pool_single_threaded(tmp_path):
    data, *model = _split_by_divide_and_conquer(tmp_path)
    threads = _threads_at_forks(tmp_path, "anonymize", data, "-o", tmp_path / "out.dat", *model)
    assert len(threads) >= 2 and set(threads) == {1}


def _split_by_divide_and_conquer(tmp_path) -> list:
    rng = np.random.default_rng(0)
    rows = (rng.choice(60, rng.integers(3, 8)) for _ in range(2_000))
    (tmp_path / "in.dat").write_text("".join(" ".join(f"i{j}" for j in sorted(set(row))) + "\n" for row in rows))
    (tmp_path / "sensitive.txt").write_text("".join(f"i{j}\n" for j in range(0, 60, 4)))
    return [tmp_path / "in.dat", "--model", "rho", "-P", "rho=0.5", "-P", "t_max=200", "-P", "workers=2",
            "-P", "rule_metrics=false", "--sensitive", tmp_path / "sensitive.txt"]


def test_bench_run_forks_its_memory_run_and_that_runs_pool_single_threaded(tmp_path):
    # the memory run's process keeps one thread, so that its pool forks from it as the timed
    # run's does (and counts in its peak): through a forkserver, whose forks are not this
    # process's, there would be 3 forks here, not 5
    threads = _threads_at_forks(tmp_path, "bench", "run", *_split_by_divide_and_conquer(tmp_path), "--runs", "1")
    assert len(threads) == 5 and set(threads) == {1}  # the memory run and 2 workers, the timed run's 2


def test_the_rho_benchmark_forks_the_pools_of_its_runs_single_threaded(tmp_path):
    data = _split_by_divide_and_conquer(tmp_path)[0]
    threads = _threads_at_forks(tmp_path, "bench", "rho", "--datasets", tmp_path, "--dataset", data.stem,
                                "--experiment", "tmax", "--t-max-values", "200", "--workers", "2")
    assert len(threads) == 8 and set(threads) == {1}  # 4 runs (dist, mine; 1 and 2 workers), 2 pools of 2
