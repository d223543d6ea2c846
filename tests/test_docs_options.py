"""Every option of a command is named in the doc that covers the command, so that a reader of
docs/audit.md, say, learns of each option audit's commands take, not only of those the doc's
examples happen to use.

The check is by name alone (`--seed` anywhere in the doc): what the doc says of the option is for
the reader to judge. tests/test_docs_commands.py checks the other way, that every option a doc
names with its command exists."""

import re
from pathlib import Path

import click
import pytest

from setveil.core.cli import cli

from .own_plugins import own_subcommands

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: each command, or group of commands, and the doc that covers it (the longest prefix wins)
COVERED_BY = {
    "anonymize": "cli.md",
    "verify": "cli.md",
    "plugins": "cli.md",
    "audit": "audit.md",
    "bench audit": "audit.md",
    "bench coherence": "coherence.md",
    "bench partition": "partition.md",
    "bench rho": "rho.md",
    "bench sanitize": "sanitize.md",
    "bench run": "operations.md",
    "bench stream": "operations.md",
    "bench windows": "operations.md",
    "serve": "operations.md",
    "replay": "operations.md",
    "tail": "operations.md",
    "demo": "operations.md",
    "dev-broker": "operations.md",
}
#: the commands that make a model's inputs, shown in README's command table and in the models'
#: examples, whose options no doc lists in full: --help is their reference
HELP_ONLY = {"hierarchy build", "items split", "patterns sample"}


def commands() -> dict[str, click.Command]:
    """setveil's own commands by their path, a third party's installed plugin's left out."""
    found = {}

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(command, click.Group):
            for name, sub in sorted(own_subcommands(command).items()):
                walk(sub, (*path, name))
        else:
            found[" ".join(path)] = command

    walk(cli, ())
    return found


COMMANDS = commands()


def covering_doc(name: str) -> str | None:
    prefixes = [prefix for prefix in COVERED_BY if name == prefix or name.startswith(prefix + " ")]
    return COVERED_BY[max(prefixes, key=len)] if prefixes else None


def test_every_command_has_a_doc_or_is_left_to_its_help():
    assert sorted(name for name in COMMANDS if covering_doc(name) is None and name not in HELP_ONLY) == []
    assert HELP_ONLY <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(name for name in COMMANDS if covering_doc(name)))
def test_every_option_is_named_in_the_commands_doc(name):
    doc = covering_doc(name)
    text = (DOCS / doc).read_text()
    options = [parameter.opts for parameter in COMMANDS[name].params if isinstance(parameter, click.Option)]
    unnamed = [opts[-1] for opts in options
               if not any(re.search(re.escape(opt) + r"(?![\w-])", text) for opt in opts)]
    assert unnamed == [], f"docs/{doc} never names these options of setveil {name}"
