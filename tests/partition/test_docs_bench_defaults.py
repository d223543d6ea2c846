"""docs/partition.md's grid is bench partition's defaults, and it says so, with --runs' default."""

from pathlib import Path

from setveil.core.cli import _load_plugin_commands, cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "partition.md"


def test_the_grid_is_the_defaults_and_runs_default_to_one():
    # a docs audit: the page gave the grid's k, m, seed and fan-outs and 3 runs with no word that the
    # first are the defaults and that --runs defaults to 1
    _load_plugin_commands()
    options = {p.opts[0]: p for p in cli.commands["bench"].commands["partition"].params}
    assert (options["-k"].default, options["-m"].default, options["--fanout"].default) == (
        "2,5,10,25,50,100", "2,3,4", "4,5,6")
    assert (options["--seed"].default, options["--runs"].default) == (0, 1)
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert ("- Grid: k ∈ {2, 5, 10, 25, 50, 100}; Partition, and AA at m ∈ {2, 3, 4}; seed 0 (both algorithms are "
            "deterministic; these and the fan-outs above are the defaults of `-k`, `-m`, `--seed` and `--fanout`); "
            "3 timed runs per setting (`--runs 3`; the default is 1)") in text
    assert "balanced, fan-out f ∈ {4, 5, 6}" in text
