"""bench stream refuses, before any broker or worker starts, an item split that makes no item
sensitive, naming --public-share as items split does, where it started a broker and a worker that
refused the empty list it was given, and ended after its header naming the worker's log."""

import os
import subprocess
import sys

import pytest

from setveil.core.errors import ParameterError
from setveil.core.formats import read_window
from setveil.streams.bench import BenchConfig, item_args
from setveil.streams.replay import pack_unkeyed

COHERENCE = ["--model", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3"]
REFUSAL = ("the split of {} makes no item sensitive, and every worker would refuse its list: change --public-share "
           "(or --h), or give --sensitive")


def config(dataset, item_files=(None, None)) -> BenchConfig:
    window = read_window(dataset)
    return BenchConfig(dataset, window, COHERENCE, "h=0.4 k=5 p=3", 0.4, 5, 0.2, 1, item_files, True, 10,
                       pack_unkeyed(window, 10, 1 << 20, 1 << 24), 2, [5], [1], 1)


def test_a_split_with_no_sensitive_item_is_refused_naming_the_option(tmp_path):
    # every item of these five is in more than h=0.4 of them, so the split makes each public
    dataset = tmp_path / "in.dat"
    dataset.write_text("a b c\na b\na c\nb c\na b c\n")
    with pytest.raises(ParameterError) as refused:
        config(dataset)
    assert refused.value.name == "public-share" and refused.value.problem == REFUSAL.format(dataset)
    sensitive = tmp_path / "sensitive.txt"
    sensitive.write_text("a\n")
    assert config(dataset, (str(sensitive), None)).split is None  # the workers get the files given


def test_the_workers_get_the_split_the_config_made(tmp_path):
    dataset = tmp_path / "tiny.dat"
    dataset.write_text("".join(f"{i % 7} {i % 5 + 10} {i % 3 + 20}\n" for i in range(40)))
    made = config(dataset)
    assert made.split.private
    args = item_args(made, tmp_path)
    assert args == ["--sensitive", str(tmp_path / "sensitive.txt"), "--public", str(tmp_path / "public.txt")]
    assert set((tmp_path / "sensitive.txt").read_text().split()) == set(made.split.private)
    assert set((tmp_path / "public.txt").read_text().split()) == set(made.split.public)


def test_the_command_refuses_it_before_any_broker_starts(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")}
    env["TMPDIR"] = str(scratch)
    result = subprocess.run([sys.executable, "-m", "setveil", "bench", "stream", "-", "--window", "5"],
                            input="a b c\na b\na c\nb c\na b c\n", capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"setveil: error: parameter 'public-share': {REFUSAL.format('standard input')}\n"
    assert list(scratch.iterdir()) == []


def test_a_model_that_classifies_no_item_is_given_no_split_and_so_no_refusal(tmp_path):
    # k-anonymity protects every item alike: the split that makes no item sensitive is never made
    dataset = tmp_path / "in.dat"
    dataset.write_text("a b c\na b\na c\nb c\na b c\n")
    window = read_window(dataset)
    made = BenchConfig(dataset, window, ["--model", "kanonymity", "-P", "k=2"], "k=2", 0.4, 2, 0.2, 1, (None, None),
                       False, 10, pack_unkeyed(window, 10, 1 << 20, 1 << 24), 2, [5], [1], 1)
    assert made.split is None
    assert item_args(made, tmp_path) == [] and list(tmp_path.iterdir()) == [dataset]
