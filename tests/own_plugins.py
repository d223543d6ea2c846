"""setveil's own plugins and commands, without those of any other installed distribution: what the
docs and the help's style checks are about.

A user who installed a third party's plugin, as docs/plugins.md tells plugin authors to, runs the
suite with its models and commands loaded too: the checks of setveil's own docs failed on a
command no doc of setveil's covers, and on the docs' example model installed under its own name,
`truncate`. They look at setveil's own alone, so that they also fail on a doc that shows a third
party's command, wherever one is installed."""

import importlib.metadata

import click
import pluggy

from setveil.core import builtin, hookspecs
from setveil.core.cli import _load_plugin_commands
from setveil.core.plugins import ENTRY_POINT_GROUP, distribution_of, get_plugin_manager


def own_plugins() -> list[tuple[str, object]]:
    """(name, plugin) of the core's built-in implementations and of each plugin setveil's own
    entry points name, as the process's plugin manager loaded them."""
    own = {ep.name for ep in importlib.metadata.distribution("setveil").entry_points.select(group=ENTRY_POINT_GROUP)}
    return [(name, plugin) for name, plugin in get_plugin_manager().list_name_plugin()
            if plugin is builtin or name in own]


def own_plugin_manager() -> pluggy.PluginManager:
    """A plugin manager of its own holding :func:`own_plugins`, for a test to register more in."""
    manager = pluggy.PluginManager("setveil")
    manager.add_hookspecs(hookspecs)
    for name, plugin in own_plugins():
        manager.register(plugin, name=name)
    return manager


def is_own(command: click.Command) -> bool:
    """Whether setveil installed ``command``: the function it runs is setveil's, as a registration
    hook's distribution is that of its function (``call_each``)."""
    return distribution_of(command.callback or type(command)) == "setveil"


def own_subcommands(group: click.Group) -> dict[str, click.Command]:
    """The commands of ``group`` that setveil installed, by name, once every plugin's are added."""
    _load_plugin_commands()
    return {name: command for name, command in group.commands.items() if is_own(command)}
