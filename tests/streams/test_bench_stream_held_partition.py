"""bench stream refuses, before any broker or worker starts, a dataset that leaves a partition
fewer transactions than the model needs of a window: the worker holds them for more input, which
never comes, so the run waited out its idle limit of 60 s and printed a row of 0 transactions,
exit 0 (a fuzz pass: 1 transaction at k=2 on 1 partition)."""

import os
import subprocess
import sys

import pytest

from setveil.core.errors import ParameterError
from setveil.core.formats import read_window
from setveil.streams.bench import BenchConfig, refuse_held_partitions
from setveil.streams.replay import pack_unkeyed

COHERENCE = ["--model", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3"]


def config(dataset, batch: int, partitions: int) -> BenchConfig:
    window = read_window(dataset)
    sensitive = dataset.parent / "sensitive.txt"
    sensitive.write_text("x\n")
    return BenchConfig(dataset, window, COHERENCE, "h=0.4 k=5 p=3", 0.4, 5, 0.2, 1, (str(sensitive), None), True,
                       batch, pack_unkeyed(window, batch, 1 << 20, 1 << 24), partitions, [5], [1], 1)


@pytest.mark.parametrize(("transactions", "batch", "partitions", "short"),
                         [(4, 10, 1, "4 transactions on partition 0"), (12, 10, 2, "2 transactions on partition 1"),
                          (23, 10, 3, "3 transactions on partition 2")])
def test_a_partition_dealt_fewer_than_a_window_needs_is_refused(tmp_path, transactions, batch, partitions, short):
    dataset = tmp_path / "in.dat"
    dataset.write_text("a x\n" * transactions)
    with pytest.raises(ParameterError) as refused:
        refuse_held_partitions(config(dataset, batch, partitions))
    assert refused.value.name == "partitions"
    assert refused.value.problem == (
        f"{dataset}: {transactions} transactions leave {short} (--batch {batch} to each of --partitions "
        f"{partitions} in turn), fewer than the 5 a window needs of model 'coherence': a worker would hold them "
        "for more input, which never comes; give fewer --partitions, a smaller --batch or more transactions")


def test_every_partition_dealt_a_window_passes(tmp_path):
    dataset = tmp_path / "in.dat"
    dataset.write_text("a x\n" * 15)
    refuse_held_partitions(config(dataset, 10, 2))  # 10 and 5
    refuse_held_partitions(config(dataset, 2, 2))  # 8 and 7, the last message of 1
    refuse_held_partitions(config(dataset, 10, 3))  # 10, 5 and none: a partition dealt none holds none


def test_the_command_refuses_it_before_any_broker_starts(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    sensitive = tmp_path / "sensitive.txt"
    sensitive.write_text("x\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
    env["TMPDIR"] = str(scratch)
    result = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", "-", "--window", "100",
                             "--partitions", "1", "-m", "coherence", "-P", "h=0.4", "-P", "k=2", "-P", "p=2",
                             "--sensitive", str(sensitive)],
                            input="a x\n", capture_output=True, text=True, env=env, timeout=120)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("setveil: error: parameter 'partitions': standard input: 1 transaction leaves 1 "
                             "transaction on partition 0 (--batch 100 to each of --partitions 1 in turn), fewer than "
                             "the 2 a window needs of model 'coherence': a worker would hold them for more input, "
                             "which never comes; give fewer --partitions, a smaller --batch or more transactions\n")
    assert list(scratch.iterdir()) == []
