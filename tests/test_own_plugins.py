"""The docs checks' views of setveil (its commands, the models and policies the docs' command lines
are checked against, the classes whose docstrings are checked) are setveil's own whatever else is
installed: with docs/plugins.md's example installed as the page gives it, and a plugin that adds a
command, they are unchanged."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from setveil.core.cli import cli

from .core.distributions import install_plugin
from .core.test_api_docs import CLASSES
from .own_plugins import own_subcommands
from .test_docs_commands import docs_registry
from .test_docs_options import COMMANDS

REPO = Path(__file__).resolve().parents[1]
DOCUMENTED = re.search(r"```python\n(# setveil_truncate\.py\n.*?)```", (REPO / "docs" / "plugins.md").read_text(),
                       re.S).group(1)
GREETING = '''
import click
from setveil import hookimpl


@click.command()
@click.option("--loud", is_flag=True)
def greet(loud):
    """Greet."""


@hookimpl
def setveil_register_commands(register):
    register(greet)
    register(greet, group="bench")
'''
#: the views, each with what the process loaded beside them, as JSON
VIEWS = '''
import json
from setveil.core.cli import cli
from setveil.core.plugins import get_registry
from tests.core.test_api_docs import CLASSES
from tests.own_plugins import own_subcommands
from tests.test_docs_commands import docs_registry
from tests.test_docs_options import COMMANDS

registry = docs_registry()
print(json.dumps({"commands": sorted(COMMANDS), "top": sorted(own_subcommands(cli)), "api": sorted(CLASSES),
                  "models": {name: sorted(policies) for name, policies in registry.policies.items()},
                  "loaded": sorted(cli.commands) + sorted(cli.commands["bench"].commands),
                  "installed": {name: entry.distribution for name, entry in get_registry().models.items()}}))
'''


def views() -> dict:
    registry = docs_registry()
    return {"commands": sorted(COMMANDS), "top": sorted(own_subcommands(cli)), "api": sorted(CLASSES),
            "models": {name: sorted(policies) for name, policies in registry.policies.items()}}


@pytest.mark.slow  # a Python of its own that loads every plugin: about 2 s of CPU
def test_the_docs_checks_see_setveils_own_with_a_third_partys_plugin_installed(tmp_path):
    env = install_plugin(tmp_path, "setveil-truncate", "setveil_truncate", DOCUMENTED, "truncate")
    install_plugin(tmp_path, "setveil-greeting", "setveil_greeting", GREETING, "greeting")
    result = subprocess.run([sys.executable, "-c", VIEWS], env=env, cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = json.loads(result.stdout)
    # both plugins loaded there, or the views' being unchanged would show nothing
    assert seen.pop("installed")["truncate"] == "setveil-truncate"
    assert seen.pop("loaded").count("greet") == 2
    assert seen == views()
    assert seen["models"]["truncate"] == ["random", "rarest-first"]  # the example's, which the docs check
