"""docs/partition.md gives --fanout's range as the commands that take it do."""

from pathlib import Path

import click

from setveil.core.cli import _load_plugin_commands, cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "partition.md"


def test_the_fanout_is_given_with_its_range():
    # a docs audit: the settings table named --fanout N with no range; 1 is refused
    _load_plugin_commands()
    bench = cli.commands["bench"]
    for command in (cli.commands["anonymize"], cli.commands["verify"], bench.commands["windows"]):
        fanout = next(p for p in command.params if isinstance(p, click.Option) and "--fanout" in p.opts)
        assert (fanout.type.min, fanout.type.max) == (2, None)
    assert "balanced hierarchy of fan-out N (an integer, at least 2) over the data's items" in DOC.read_text()
