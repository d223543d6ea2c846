"""A plugin's setveil_register_commands that passes register() something other than a named click
command, or a group that is not a command's name, is refused at start-up in one line naming its
distribution and the type it passed (no test registered such a thing)."""

import pytest

from .test_broken_plugins import GOOD_MODELS, GOOD_POLICIES, install, setveil

HELLO = "\nimport click\n\n@click.command('hello')\ndef hello():\n    pass\n"


@pytest.mark.parametrize("registration, expected", [
    ("register('hello')", "register() takes a named click.Command, not a str"),
    # a command built with no name was called 'not a Command'
    ("register(click.Command(None))", "register() takes a named click.Command, not one with no name"),
    ("register(hello, group=3)", "register()'s group is a command name, not int"),
])
def test_a_registration_that_is_no_named_command_is_named_in_one_line(tmp_path, registration, expected):
    source = (GOOD_MODELS + GOOD_POLICIES + HELLO
              + f"\n@hookimpl\ndef setveil_register_commands(register):\n    {registration}\n")
    result = setveil(install(tmp_path, source), "plugins")
    assert result.returncode == 2
    assert result.stderr == f"setveil: error: setveil_register_commands of brokenplugin-dist: {expected}\n"
