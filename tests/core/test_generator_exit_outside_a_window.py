"""A GeneratorExit that plugin code raises outside any window (a model's __init__, a plugin's own
command) ends the command in one line, exit 1, its message left out since it may quote the data;
inside a window it fails the window (test_hostile_plugins.py). No test raised one outside a window,
where only main's last handler stands between it and a traceback."""

import pytest

from .test_broken_plugins import GOOD_MODELS, GOOD_POLICIES, install, setveil

RAISING_INIT = GOOD_MODELS.replace(
    "register(Cap)", "def _init(self, params, context):\n        raise GeneratorExit('secret HIV')\n\n"
    "    Cap.__init__ = _init\n    register(Cap)") + GOOD_POLICIES
RAISING_COMMAND = GOOD_MODELS + GOOD_POLICIES + """
import click


@click.command("leak")
def leak():
    raise GeneratorExit("secret HIV")


@hookimpl
def setveil_register_commands(register):
    register(leak)
"""


@pytest.mark.parametrize("source, args", [
    (RAISING_INIT, ["anonymize", "{data}", "-o", "{out}", "--model", "cap", "-P", "m=1"]),
    (RAISING_COMMAND, ["leak"]),
], ids=["model-init", "plugin-command"])
def test_a_generator_exit_outside_a_window_ends_in_one_line_without_its_message(tmp_path, source, args):
    data, out = tmp_path / "in.dat", tmp_path / "out.dat"
    data.write_text("a b\n")
    result = setveil(install(tmp_path, source), *(arg.format(data=data, out=out) for arg in args))
    assert (result.returncode, result.stderr) == (1, "setveil: error: plugin code raised GeneratorExit\n")
    assert result.stdout == "" and not out.exists()
