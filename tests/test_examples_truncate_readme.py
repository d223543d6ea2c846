"""examples/setveil-truncate/README.md as a plugin author follows it: its commands run as written
in a copy of the folder, the plugin installed as its pip line installs it."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .builds import pip

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "setveil-truncate"
README = (EXAMPLE / "README.md").read_text()
INSTALL = "pip install -e '.[test]'"


def _commands() -> list[str]:
    (block,) = re.findall(r"```sh\n(.*?)```", README, re.S)
    return [line.split("  #")[0].strip() for line in block.splitlines()]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> tuple[Path, dict]:
    """A copy of the example, where the README's commands run, and their environment: the plugin
    installed (as the pip line would, without asking an index) and setveil's commands on the PATH."""
    target = tmp_path_factory.mktemp("site")
    pip(tmp_path_factory.mktemp("build"), "install", "--target", str(target), source=EXAMPLE)
    copy = shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("author") / EXAMPLE.name, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", ".hypothesis", "__pycache__", ".pytest_cache"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    return copy, env


def test_the_pip_line_installs_the_folder_with_the_kit():
    example = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    assert _commands()[0] == INSTALL
    assert example["project"]["optional-dependencies"]["test"] == ["setveil[testing]"]


def test_the_commands_run_as_written_and_say_what_the_readme_says(folder):
    copy, env = folder
    outputs = []
    for command in _commands()[1:]:
        run = subprocess.run(["bash", "-c", command], cwd=copy, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"{command}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        outputs.append(run.stdout)
    tests, plugins, _, _, verify = outputs
    assert re.fullmatch(r"=+ \d+ passed in [\d.]+s =+", tests.splitlines()[-1]), tests
    assert re.search(r"^truncate .* from setveil-truncate$", plugins, re.M), plugins
    assert "`verify` prints `out.dat: satisfies truncate (m=2)`" in README
    assert verify == "out.dat: satisfies truncate (m=2)\n"
    assert [len(line.split()) for line in (copy / "out.dat").read_text().splitlines()] == [2, 2, 1]
    raw = subprocess.run(["setveil", "verify", "data.dat", "data.dat", "--model", "truncate", "-P", "m=2"], cwd=copy,
                         env=env, capture_output=True, text=True, timeout=600)
    assert raw.returncode == 1 and "and exits with status 1" in README
    assert "violation: too-long: 1 transaction(s) hold more than m=2 items; transaction 0" in raw.stdout + raw.stderr


def test_the_service_takes_the_model_as_the_readme_says(folder):
    copy, env = folder
    env = {name: value for name, value in env.items() if not name.startswith("SETVEIL_")}
    assert "`setveil serve --model truncate -P m=2`" in README
    check = subprocess.run(["setveil", "serve", "--model", "truncate", "-P", "m=2", "--check"], cwd=copy, env=env,
                           capture_output=True, text=True, timeout=600)
    assert check.returncode == 0, check.stderr
    assert re.search(r'^name = "truncate"  # from the command line\n(.*\n)*\[model\.params\]\nm = "2"  # from the '
                     r'command line$', check.stdout, re.M), check.stdout
