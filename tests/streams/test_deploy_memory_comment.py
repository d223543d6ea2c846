"""The Deployment's memory figures were measured under the ConfigMap's own window and limits, with
the command its comment gives, so that an operator can measure them again on their stream."""

import re
import shlex
import tomllib

from setveil.core.cli import _load_plugin_commands, cli
from setveil.core.plugins import get_registry

from .deployfiles import KUBERNETES, configmap_toml


def _comment_text(yaml: str) -> str:
    lines = (line.strip() for line in yaml.splitlines())
    return " ".join(line.removeprefix("#").strip() for line in lines if line.startswith("#"))


def test_the_memory_comment_measures_the_configmaps_window_and_limits(tmp_path):
    # Regression (loose ends 74): "about 170 MiB at 5,000 and 330 MiB at 20,000" named no command
    # and mixed the worker's own memory with that of its process tree
    config = tomllib.loads(configmap_toml())
    command = re.search(r"`(setveil bench stream [^`]+)`", _comment_text((KUBERNETES / "deployment.yaml").read_text()))
    assert command is not None
    argv = shlex.split(command.group(1))[3:]
    (tmp_path / "retail.dat").touch()
    _load_plugin_commands()
    stream = cli.commands["bench"].commands["stream"]
    with stream.make_context("setveil bench stream", [str(tmp_path / a) if a.endswith(".dat") else a for a in argv]) \
            as ctx:
        params = ctx.params
    assert config["window"]["max_transactions"] in params["windows"]
    assert (params["time_limit"], params["memory_limit"]) == (config["model"]["time_limit"],
                                                             config["model"]["memory_limit"])
    model = params["model"] or "coherence"  # bench stream's default model
    policy = params["policy"] or get_registry().model_class(model).default_policy
    assert (model, policy) == (config["model"]["name"], config["model"]["policy"])
    assert [f"h={params['h']:g}", f"k={params['k']}", f"p={params['p']}"] == [
        f"{name}={value:g}" for name, value in config["model"]["params"].items()]
