"""docs/cli.md gives the default and the range of the anonymize and verify options it describes as
their --help does."""

from pathlib import Path

import click

from setveil.core.cli import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def option(command: str, name: str) -> click.Option:
    return next(p for p in cli.commands[command].params if isinstance(p, click.Option) and name in p.opts)


def test_the_seed_and_the_cap_on_violations_are_given_with_their_defaults_and_ranges():
    # a docs audit: the page named --seed with no default or range, and --max-violations with no range
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    seed = option("anonymize", "--seed")
    assert (seed.default, seed.type.min, seed.type.max) == (0, 0, 2**32 - 1)
    assert "draws its random choices from `--seed` (default 0, an integer from 0 to 2^32 − 1)" in text
    cap = option("verify", "--max-violations")
    assert (cap.default, cap.type.min, cap.type.max) == (10, 1, None)
    assert "at most N violations (`--max-violations`, default 10, at least 1)" in text
