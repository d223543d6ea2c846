"""demo and bench stream take --bootstrap, the cluster to use instead of a broker of their own, as
serve, replay and tail take it, where only SETVEIL_KAFKA_BOOTSTRAP (and the demo's --set
kafka.bootstrap) could name one and --bootstrap was 'No such option'."""

import os
import subprocess
import sys

import pytest

from setveil.streams.broker import free_port


def setveil(*args, env_bootstrap=None, scratch=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
    if env_bootstrap is not None:
        env["SETVEIL_KAFKA_BOOTSTRAP"] = env_bootstrap
    if scratch is not None:
        env["TMPDIR"] = str(scratch)
    return subprocess.run([sys.executable, "-m", "setveil", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120)


def tiny(tmp_path):
    dataset = tmp_path / "tiny.dat"
    dataset.write_text("".join(f"{i % 7} {i % 5 + 10} {i % 3 + 20}\n" for i in range(200)))
    return dataset


@pytest.mark.parametrize("command", [["demo"], ["bench", "stream", "DATA", "--window", "100"]])
def test_a_cluster_bootstrap_names_that_does_not_answer_ends_in_one_line_before_a_worker_starts(tmp_path, command):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens there
    args = [tiny(tmp_path) if arg == "DATA" else arg for arg in command]
    # over the variable, as serve's, replay's and tail's --bootstrap is
    result = setveil(*args, "--bootstrap", bootstrap, env_bootstrap=f"127.0.0.1:{free_port()}", scratch=scratch)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"setveil: error: no Kafka broker answers at {bootstrap} "
                                          "(kafka.bootstrap, from the command line)"]
    assert list(scratch.iterdir()) == []


def test_the_demos_bootstrap_wins_over_its_set_kafka_bootstrap(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    given, overridden = (f"127.0.0.1:{free_port()}" for _ in range(2))  # nothing listens at either
    result = setveil("demo", "--set", f"kafka.bootstrap={overridden}", "--bootstrap", given, scratch=scratch)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [f"setveil: error: no Kafka broker answers at {given} "
                                          "(kafka.bootstrap, from the command line)"]


@pytest.mark.parametrize("command", [["demo"], ["bench", "stream", "DATA"]])
def test_an_empty_bootstrap_is_refused(tmp_path, command):
    args = [tiny(tmp_path) if arg == "DATA" else arg for arg in command]
    result = setveil(*args, "--bootstrap", "")
    assert result.returncode == 2
    assert result.stderr == ("setveil: error: parameter 'kafka.bootstrap': '' is not host:port (a comma-separated "
                             "list of them; from the command line)\n")


@pytest.mark.slow
def test_bench_stream_runs_on_the_cluster_bootstrap_names(broker, tmp_path):
    result = setveil("bench", "stream", tiny(tmp_path), "--window", "100", "--bootstrap", broker.bootstrap)
    assert result.returncode == 0, result.stderr
    header, _, _, row = result.stdout.splitlines()
    assert "; broker external; " in header
    assert row.startswith("| 100 ") and "| 200 " in row
