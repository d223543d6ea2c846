"""``setveil bench stream``: what its throughput measures, what it refuses up front, and the logs
it keeps when a run fails (docs/operations.md, "Benchmark")."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from setveil.core.errors import ParameterError, SetveilError
from setveil.core.formats import read_window
from setveil.streams.bench import MAX_SECONDS, BenchConfig, Run, _watch, run_bench, throughput_clock
from setveil.streams.broker import free_port
from setveil.streams.process import WorkerFailed, WorkerProcess, logs_folder
from setveil.streams.replay import pack_unkeyed
from setveil.streams.settings import load_settings
from setveil.streams.tail import WindowSummary

REPO = Path(__file__).resolve().parents[2]
COHERENCE = ["--model", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3"]


def _window(partition: int, transactions: int, opened: float, emitted: float) -> WindowSummary:
    return WindowSummary(f"in/{partition}/{opened}", partition, transactions, 0.1, opened, opened, emitted, True)


def _drained(tail: int) -> list[WindowSummary]:
    """Two partitions drained in 0.2 s per window of 5,000, then each partition's last window:
    full (tail 0) or partial, cut only after waiting window.max_seconds."""
    windows = [_window(p, 5000, 0.0 + 0.1 * i, 0.2 * (i + 1) + 0.01 * p) for p in (0, 1) for i in range(3)]
    last = 0.3 if tail else 0.8
    return windows + [_window(p, tail or 5000, 0.6, last + MAX_SECONDS * bool(tail) + 0.01 * p) for p in (0, 1)]


def test_the_idle_wait_of_a_partial_last_window_is_off_the_clock():
    # Regression: the rate was transactions / (last batch - first open), so a --count that left
    # a partial window per partition added max_seconds of idle wait (41k against 21k tx/s).
    full, partial = throughput_clock(_drained(0)), throughput_clock(_drained(4000))
    assert full == partial == (pytest.approx(0.61), 30000)


def test_a_partial_last_window_emitted_while_others_drain_counts():
    # partition 1's partial window is out while partition 0 still drains: no idle time on the clock
    windows = [_window(0, 5000, 0.1 * i, 0.2 * (i + 1)) for i in range(4)]
    windows += [_window(1, 5000, 0.0, 0.3), _window(1, 100, 0.05, 0.5)]
    assert throughput_clock(windows) == (pytest.approx(0.6), 20100)


def test_no_partition_with_two_windows_gives_no_rate():
    assert throughput_clock([_window(0, 50, 0.0, 1.1), _window(1, 50, 0.0, 1.2)]) == (0.0, 0)


def _config(tmp_path: Path, windows: list[int], model_args=COHERENCE) -> BenchConfig:
    dataset = tmp_path / "tiny.dat"
    dataset.write_text("".join(f"{i % 7} {i % 5 + 10} {i % 3 + 20}\n" for i in range(40)))
    window = read_window(dataset)
    return BenchConfig(dataset, window, model_args, "h=0.4 k=5 p=3", 0.4, 5, 0.2, 1, (None, None),
                       True, 10, pack_unkeyed(window, 10, 1 << 20, 1 << 24), 2, windows, [1], 1)


def test_the_docs_name_every_field_of_a_json_row_and_no_other():
    # Regression (QA as an operator): the rows of --json were documented nowhere, their latencies
    # in seconds beside a table in ms, and "transactions" left out the rejected windows' unsaid
    text = (REPO / "docs" / "operations.md").read_text().split("### Benchmark", 1)[1]
    paragraph = text.split("`--json FILE` writes", 1)[1].split("\n\n", 1)[0].split("with these fields:", 1)[1]
    documented = [name for name in re.findall(r"`([^`]+)`", paragraph) if re.fullmatch(r"[a-z_0-9]+", name)]
    row = Run(1000, 1, 1, 900, 1.5, 800, 0.01, 0.02, 0.18, 1, 120.0, 1.2).json_row()
    assert documented == list(row)
    assert row["transactions_per_second"] == 800 / 1.5 and row["tail"] == 100


def test_a_window_below_the_models_smallest_is_refused_before_any_broker(tmp_path):
    # Regression: --window 3 with k=5 started a broker and workers that refused it at start-up.
    # named as its repeats are ("window"), as every list option of the bench commands names itself
    with pytest.raises(ParameterError) as refused:
        _config(tmp_path, [1000, 3])
    assert refused.value.name == "window" and "\n" not in str(refused.value)
    assert _config(tmp_path, [5]).windows == [5]


def test_a_failed_run_keeps_the_log_its_error_names(tmp_path, monkeypatch):
    # Regression: the error named a worker's log in a temporary directory already deleted.
    monkeypatch.delenv("SETVEIL_KAFKA_BOOTSTRAP", raising=False)
    nowhere = SimpleNamespace(bootstrap=f"127.0.0.1:{free_port()}", kind="external")
    with pytest.raises(SetveilError) as failed:
        run_bench(nowhere, _config(tmp_path, [10]), lambda line: None)
    log = Path(re.search(r"\(log: (.+)\)", str(failed.value)).group(1))
    try:
        assert "no Kafka broker answers" in log.read_text()
    finally:
        for path in log.parent.iterdir():
            path.unlink()
        log.parent.rmdir()


@pytest.mark.parametrize("stop", [None, KeyboardInterrupt, BrokenPipeError])
def test_a_run_leaves_no_directory_unless_its_failure_names_a_log_in_it(broker, tmp_path, monkeypatch, stop):
    # Regression (QA): Ctrl-C, or an error naming no log (here a closed stdout), left
    # /tmp/setveil-bench-* behind (empty, with the item files only, or with the workers' logs)
    monkeypatch.delenv("SETVEIL_KAFKA_BOOTSTRAP", raising=False)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # this test's own, not the shared /tmp

    def echo(line: str) -> None:
        if stop is not None and re.match(r"\| +\d", line):  # the first run's row
            raise stop

    if stop is None:
        assert len(run_bench(broker, _config(tmp_path, [10]), echo)) == 1
    else:
        with pytest.raises(stop):
            run_bench(broker, _config(tmp_path, [10]), echo)
    assert list(scratch.iterdir()) == []


def test_the_logs_folder_is_kept_only_for_a_failure_that_names_a_log_in_it(tmp_path, monkeypatch):
    # Regression (QA of the docs): the demo's failure named a worker log it had already removed
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(WorkerFailed), logs_folder("setveil-demo-") as folder:
        raise WorkerFailed(f"the worker exited with status 1 (log: {folder / 'worker.log'})")
    assert folder.is_dir()
    for failure in (WorkerFailed("the worker was not ready"), KeyboardInterrupt()):
        with pytest.raises(type(failure)), logs_folder("setveil-demo-") as other:
            raise failure
        assert not other.exists()


def _own_port():
    """Default settings but a free web.port: on the default one, another worker on the machine (a
    `setveil serve`, another run's) answered /readyz 200, and the dying worker was taken as ready."""
    return load_settings(None, {}, env={}).replace(web__port=free_port())


def test_a_worker_that_exits_before_it_is_ready_is_named_at_once_with_its_log(tmp_path, monkeypatch):
    # the worker runs on the settings it was given, not on a SETVEIL_ variable of the caller's
    monkeypatch.setenv("SETVEIL_CONSUMER_SESSION_TIMEOUT", "not-a-number")
    # not after the wait for readiness runs out, which tells neither that it exited nor how
    worker = WorkerProcess(_own_port(), ["--model", "no-such-model"], tmp_path / "w.log").start()
    try:
        with pytest.raises(WorkerFailed, match=re.escape(f"the worker exited with status 2 (log: {tmp_path / 'w.log'})")):
            worker.wait_ready(timeout=60)
    finally:
        worker.stop()
    assert "unknown model 'no-such-model'" in worker.log_text()
    # not a refused connection, which names no log
    with pytest.raises(WorkerFailed, match=re.escape(f"the worker exited with status 2 (log: {tmp_path / 'w.log'})")):
        worker.metrics()


def test_a_worker_not_ready_in_time_is_named_with_its_log_and_has_a_session_of_its_own(tmp_path):
    worker = WorkerProcess(_own_port(), ["--model", "no-such-model"], tmp_path / "w.log").start()
    try:
        # a Ctrl-C in the terminal reaches only the command that started it, which stops it with SIGTERM
        assert os.getsid(worker.process.pid) == worker.process.pid
        said = f"the worker was not ready after 0 s (log: {tmp_path / 'w.log'})"
        with pytest.raises(WorkerFailed, match=re.escape(said)):
            worker.wait_ready(timeout=0)
    finally:
        worker.stop()


def _own_process(tmp_path, code: str) -> WorkerProcess:
    """A worker that runs a program of the test's own, whose CPU time and answer to a signal the
    test knows, once the program has printed a line."""
    worker = WorkerProcess(load_settings(None, {}, env={}), [], tmp_path / "w.log")
    worker.process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                      start_new_session=True)
    assert worker.process.stdout is not None and worker.process.stdout.readline()
    return worker


def _end(worker: WorkerProcess) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(worker.process.pid, signal.SIGKILL)
    worker.process.wait()


def test_a_workers_cpu_seconds_are_its_own_its_live_child_processes_and_those_it_waited_for(tmp_path):
    burn = "import time\nwhile time.process_time() < 0.5:\n    pass\n"
    live = f"{burn}print(flush=True)\ntime.sleep(60)\n"
    code = (f"import subprocess, sys\n{burn}subprocess.run([sys.executable, '-c', {burn!r}])\n"
            f"live = subprocess.Popen([sys.executable, '-c', {live!r}], stdout=subprocess.PIPE)\n"
            "live.stdout.readline()\nprint(flush=True)\ntime.sleep(60)\n")
    worker = _own_process(tmp_path, code)
    try:
        # 0.5 s each, their start included, less up to a clock tick of each time
        assert 1.4 <= worker.cpu_seconds() < 2.0
    finally:
        _end(worker)


# a worker's clean stop takes seconds (its own watchdog ends it after STOP_SECONDS): killed sooner,
# it would stop as a crash does
@pytest.mark.parametrize(("on_sigterm", "stop", "status"), [
    ("lambda *_: (time.sleep(3), sys.exit(0))", {}, 0),
    ("signal.SIG_IGN", {"timeout": 1}, -signal.SIGKILL)], ids=["a-clean-stop-of-3-s", "sigterm-ignored"])
def test_a_worker_is_given_its_time_to_stop_on_sigterm_then_killed(tmp_path, on_sigterm, stop, status):
    worker = _own_process(tmp_path, f"import signal, sys, time\nsignal.signal(signal.SIGTERM, {on_sigterm})\n"
                                    "print(flush=True)\ntime.sleep(60)\n")
    try:
        assert worker.stop(**stop) == status
    finally:
        _end(worker)


def test_kill_is_sigkill_whatever_the_worker_would_do_on_sigterm(tmp_path):
    worker = _own_process(tmp_path, "import signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *_: sys.exit(0))\n"
                                    "print(flush=True)\ntime.sleep(60)\n")
    worker.kill()
    assert worker.process.returncode == -signal.SIGKILL


def test_a_worker_that_exits_mid_run_ends_the_run_naming_its_log():
    # Regression: the reading waited out its 60 s idle limit, then a URLError traceback, no log named.
    dead = SimpleNamespace(process=SimpleNamespace(poll=lambda: 1, returncode=1), log_path="/tmp/w-0.log")
    done = asyncio.Event()
    with pytest.raises(WorkerFailed, match=r"status 1 during the run \(log: /tmp/w-0.log\)"):
        asyncio.run(_watch([dead], 10, [], done))
    assert done.is_set()


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["sigterm", "ctrl-c"])
def test_a_stop_signal_ends_a_benchmark_with_its_status_and_leaves_nothing(broker, sample, tmp_path, stop, status):
    # Regression (QA re-check): SIGTERM ended a benchmark half-way with status 0 and half a table;
    # (QA chaos pass) Ctrl-C between two runs' loops said "setveil: aborted"
    data, _, _ = sample
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "SETVEIL_KAFKA_BOOTSTRAP": broker.bootstrap, "TMPDIR": str(scratch), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "setveil", "bench", "stream", str(data), "--count", "2000", "--window", "500",
         "--runs", "20"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stdout:
            if re.match(r"\| +\d", line):  # the first run's row
                break
        process.send_signal(stop)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == status, err
    assert f"setveil: stopped by {stop.name}; the rows above are the runs measured" in err.splitlines()
    assert list(scratch.iterdir()) == []


def test_a_memory_limit_without_a_time_limit_is_refused_before_any_broker(sample):
    data, _, _ = sample
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--memory-limit", "64"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert "Invalid value for '--memory-limit': 64 needs --time-limit too" in refused.stderr
    for value, said in (("32", "Invalid value for '--memory-limit': 32 is less than 64 MiB"), (str(2**40 + 1), "is not in the range 0<=x<=1099511627776")):
        # QA: a value the worker refuses started the broker first, then named model.memory_limit
        refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--time-limit", "5",
                                  "--memory-limit", value], capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2 and said in refused.stderr and "broker" not in refused.stdout + refused.stderr
    # QA as an operator: an infinite time limit, which the worker refuses, started a run first
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--time-limit", "inf"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "Invalid value for '--time-limit': inf is not in the range 0<=x<inf." in refused.stderr
    # QA: this command's own refusals named --memory-limit and --partitions without the quotes
    # of click's (--time-limit above)
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--workers", "3"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == "setveil: error: Invalid value for '--partitions': 3 workers need at least as many partitions\n"


def test_a_memory_limit_of_exactly_64_mib_is_taken(sample):
    # the floor is allowed, as --help says ("at least 64") and model.memory_limit takes it; the
    # window below k=5, refused after the limits are checked, ends the run before any broker
    data, _, _ = sample
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--time-limit", "5",
                              "--memory-limit", "64", "--window", "3"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("setveil: error: parameter 'window': 3 is fewer than the 5 transactions")


def test_the_coherence_options_are_no_parameters_of_another_model(sample):
    # --h, --k and --p stand in for -P for coherence alone: rho given without -P is asked for its
    # own parameter, not told that coherence's h is none of its parameters (mutation pass)
    data, sensitive, _ = sample
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--model", "rho",
                              "--sensitive", str(sensitive)], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("setveil: error: parameter 'rho': model 'rho' needs it (")


def test_a_batch_the_workers_would_dead_letter_is_refused_before_any_broker(tmp_path):
    # Regression (QA as an operator): the run started a broker and its workers, and named the
    # message only after its 60 s wait for batches that never came
    data = tmp_path / "wide.dat"
    data.write_text("".join(" ".join(str(1000 + (t + i) % 500) for i in range(20)) + "\n" for t in range(12_000)))
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), "--batch", "12000"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert re.fullmatch(r"setveil: error: parameter 'batch': a message of 12000 records would be \d+ bytes, over "
                        r"records.max_message_bytes=1048576, which the workers dead-letter: give a smaller --batch\n",
                        refused.stderr)


@pytest.mark.parametrize("options, problem", [(["--window", "10", "--window", "10"], "parameter 'window': 10"),
                                              (["--workers", "1", "--workers", "1"], "parameter 'workers': 1")])
def test_a_repeated_window_size_or_worker_count_is_refused_before_any_broker(sample, options, problem):
    # QA: --window 10 --window 10 started a broker and measured the size twice, where bench
    # sanitize speed refuses -n 10 -n 10
    data, _, _ = sample
    refused = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", str(data), *options],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == f"setveil: error: {problem} given more than once; give each once\n"


def _bench_config(monkeypatch, *args) -> BenchConfig:
    """The BenchConfig `setveil bench stream ARGS` would measure with, taken where the broker would start."""
    from click.testing import CliRunner

    from setveil.core.cli import _load_plugin_commands, cli
    from setveil.streams import bench, broker, interrupt

    taken = []

    def taken_instead(running, config, echo):
        taken.append(config)
        return []

    monkeypatch.setattr(broker, "broker", contextlib.nullcontext)
    monkeypatch.setattr(bench, "run_bench", taken_instead)
    monkeypatch.setattr(interrupt, "stop_on_signals", lambda: None)
    _load_plugin_commands()
    result = CliRunner().invoke(cli, ["bench", "stream", *map(str, args)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return taken[0]


@pytest.mark.parametrize("model, least", [(["--model", "rho", "-P", "rho=0.5"], 1),
                                          (["--model", "kanonymity", "-P", "k=3", "--fanout", "4"], 3),
                                          ([], 5), (["--k", "7"], 7)])
def test_the_workers_hold_windows_below_what_the_model_needs_alone(monkeypatch, sample, model, least):
    # a user walkthrough: rho's windows were held till they made 5 transactions, --k's default,
    # which is coherence's k, where serve's min_transactions = "auto" takes rho's 1
    data, sensitive, _ = sample
    items = ["--sensitive", sensitive] if model[1:2] == ["rho"] else []
    config = _bench_config(monkeypatch, data, "--count", "50", "--window", "20", *model, *items)
    assert config.min_transactions == least


@pytest.mark.parametrize("options, refused", [
    (["--k", "10", "-P", "h=0.4", "-P", "k=5", "-P", "p=3"],
     "parameter 'k': --k stands in for coherence's -P k, and -P gives the model's parameters: drop --k"),
    (["-m", "rho", "-P", "rho=0.5", "--p", "2"],
     "parameter 'p': --p stands in for coherence's -P p, and the model is 'rho': drop --p"),
    (["--sensitive", "SENSITIVE", "--public-share", "0.5"],
     "parameter 'public-share': --public-share chooses the item split, and --sensitive gives the items: "
     "drop --public-share"),
    (["-m", "kanonymity", "-P", "k=3", "--fanout", "4", "--seed", "2"],
     "parameter 'seed': --seed seeds the item split, and model 'kanonymity' classifies no items: drop --seed"),
    (["-m", "rho", "-P", "rho=0.5", "--sensitive", "SENSITIVE", "--h", "0.3"],
     "parameter 'h': --h stands in for coherence's -P h and sets the item split's frequency rule, and the model "
     "is 'rho' and --sensitive gives the items: drop --h")])
def test_a_model_or_split_option_the_run_would_ignore_is_refused_before_any_broker(monkeypatch, sample, options,
                                                                                  refused):
    # a user walkthrough: each of these was taken and ignored in silence
    from click.testing import CliRunner

    from setveil.core.cli import _load_plugin_commands, cli
    from setveil.streams import broker

    monkeypatch.setattr(broker, "broker", None)  # a broker started would fail the test with a TypeError
    data, sensitive, _ = sample
    _load_plugin_commands()
    args = ["bench", "stream", str(data), *(str(sensitive) if arg == "SENSITIVE" else arg for arg in options)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 2 and result.output == f"setveil: error: {refused}\n"


@pytest.mark.parametrize("options", [["--h", "0.3", "-P", "h=0.4", "-P", "k=5", "-P", "p=3"],
                                     ["-m", "rho", "-P", "rho=0.5", "--seed", "3", "--public-share", "0.4"],
                                     ["--k", "3", "--p", "2", "--sensitive", "SENSITIVE"]])
def test_a_model_or_split_option_the_run_uses_is_taken(monkeypatch, sample, options):
    # --h still sets the split's frequency rule beside -P; rho's items are split without --sensitive
    _, sensitive, _ = sample
    _bench_config(monkeypatch, sample[0], "--count", "50", "--window", "20",
                  *(str(sensitive) if arg == "SENSITIVE" else arg for arg in options))
