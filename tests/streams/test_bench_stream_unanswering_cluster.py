"""bench stream on a cluster SETVEIL_KAFKA_BOOTSTRAP names that does not answer ends in one line
before a worker starts, as the demo does, where it printed its header, started a worker and ended
naming the worker's log in a folder it kept for it."""

import os
import subprocess
import sys

from setveil.streams.broker import free_port


def test_a_cluster_that_does_not_answer_ends_the_benchmark_in_one_line_before_a_worker_starts(tmp_path):
    dataset = tmp_path / "tiny.dat"
    dataset.write_text("".join(f"{i % 7} {i % 5 + 10} {i % 3 + 20}\n" for i in range(40)))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens there
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
    env.update(SETVEIL_KAFKA_BOOTSTRAP=bootstrap, TMPDIR=str(scratch))
    result = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(dataset), "--window", "10"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"setveil: error: no Kafka broker answers at {bootstrap} "
                                          "(kafka.bootstrap, from $SETVEIL_KAFKA_BOOTSTRAP)"]
    assert list(scratch.iterdir()) == []
