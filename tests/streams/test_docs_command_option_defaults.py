"""docs/operations.md gives the defaults and ranges of replay's and demo's --batch and of
dev-broker's --host and --port as their --help does."""

from pathlib import Path

import click

from setveil.core.cli import _load_plugin_commands, cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def option(command: str, name: str) -> click.Option:
    _load_plugin_commands()
    return next(p for p in cli.commands[command].params if isinstance(p, click.Option) and name in p.opts)


def test_the_batch_host_and_port_are_given_with_their_defaults():
    # a docs audit: the page named replay's and demo's --batch and dev-broker's --host and --port with no
    # default, and replay's default of one record per message sends no array
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    replay, demo = option("replay", "--batch"), option("demo", "--batch")
    assert (replay.default, replay.type.min, demo.default, demo.type.min) == (1, 1, 20, 1)
    assert option("demo", "--rate").default == 4000
    assert ("`demo` at its default 4,000); `--batch` is the records per message, at least 1: `replay`'s default 1 "
            "sends each record as a map of its own, more send msgpack arrays, and `demo`'s default is 20;") in text
    host, port = option("dev-broker", "--host"), option("dev-broker", "--port")
    assert (host.default, port.default, port.type.min, port.type.max) == ("127.0.0.1", 9092, 1, 65535)
    assert "`dev-broker` takes `--host` (default 127.0.0.1) and `--port` (default 9092, 1-65535)." in text


def test_the_offline_benchmarks_sizes_seed_and_runs_are_given_with_their_defaults():
    # a docs audit: bench windows' --sizes and --seed and bench run's --runs were named with no default
    _load_plugin_commands()
    bench = cli.commands["bench"]
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    windows = bench.commands["windows"].params
    sizes, seed = (next(p for p in windows if name in p.opts) for name in ("--sizes", "--seed"))
    runs = next(p for p in bench.commands["run"].params if "--runs" in p.opts)
    assert (sizes.default, seed.default, seed.type.max, runs.default, runs.type.min) == (
        "1000,5000,20000", 0, 2**32 - 1, 3, 1)
    assert "windows of each size (`--sizes`, default 1000,5000,20000) as `anonymize --window` does" in text
    assert "Its `--seed` (default 0, 0 to 2^32 − 1) seeds the model's" in text
    assert "the whole file as one window `--runs` times (default 3, at least 1)" in text


def test_the_demos_window_is_given_with_its_default_and_range():
    # a docs audit: the demo's --window was named with no default or range
    window = option("demo", "--window")
    assert (window.default, window.type.min) == (1000, 5)
    assert "`--window` (the largest window, default 1,000, at least 5)." in " ".join(DOC.read_text().split())
