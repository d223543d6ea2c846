"""A worker of a benchmark run's pool that dies where the run calls the model itself (bench rho)
reaches the run as WorkerDied, and the benchmark as a RunDied saying a worker died, not as the
run's result (a mutation pass over core/bench.py: in_child taking the run's "died" answer for its
result passed every test not marked slow, the tests of bench rho included)."""

import pytest

from setveil.core.bench import RunDied, in_child
from setveil.core.errors import WorkerDied


def _a_worker_died() -> dict:
    raise WorkerDied("a divide-and-conquer worker process died abruptly")


def test_a_run_whose_worker_died_is_a_run_that_died():
    with pytest.raises(RunDied, match="^a worker process of the run died abruptly") as raised:
        in_child(_a_worker_died)
    assert raised.value.exit_code == 1
