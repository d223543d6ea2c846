"""setveil ships ``py.typed``: the installed package type-checks under its own mypy settings, and a
plugin author's checker, given setveil as an installed package, sees the API's types: the example
plugin, its conformance tests and the example of docs/plugins.md pass ``mypy --strict``, and a
misuse is an error, not ``Any``."""

import os
import re
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
from pathlib import Path

import pytest

import setveil

from .builds import pip

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())
EXAMPLE = REPO / "examples" / "setveil-truncate"
DOCS = (REPO / "docs" / "plugins.md").read_text()

MISUSE = textwrap.dedent(
    """\
    from setveil import Parameter, Transformation

    BAD_KIND = Parameter("m", "most items released per transaction", "integer", low=1)
    BAD_MEMBER = Transformation.DELETION
    """
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """setveil as pip installs it, in a folder of its own."""
    folder = tmp_path_factory.mktemp("installed")
    pip(folder, "install", "--target", str(folder / "site"))
    assert (folder / "site" / "setveil" / "py.typed").is_file()
    return folder / "site"


def _mypy(*args: str, cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", *args],
                          cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if ": error:" in line or ": note:" in line]


def test_every_module_of_the_api_is_annotated_throughout():
    strict = next(o for o in CONFIG["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs"))
    pointed = {f"setveil.core.{name}" for name in re.findall(r"setveil\.core\.(\w+)", DOCS)}
    assert {"setveil", "setveil.testing.*", *setveil._HOME.values(), *pointed} <= set(strict["module"])


def test_the_installed_package_type_checks(site, tmp_path):
    found = _mypy("--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"), "setveil",
                  cwd=site, env={"MYPYPATH": str(site)})
    assert found == []


def test_a_plugin_gets_the_types_of_the_installed_package(site, tmp_path):
    # an interpreter whose site-packages hold setveil as installed (first) and its dependencies:
    # mypy reads a package found there only when it is marked py.typed
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    purelib = sysconfig.get_paths(vars={"base": str(tmp_path / "venv"), "platbase": str(tmp_path / "venv")})["purelib"]
    Path(purelib, "setveil-test.pth").write_text(f"{site}\n{sysconfig.get_paths()['purelib']}\n")
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    # the example of docs/plugins.md, which authors copy, as a module of its own
    documented = tmp_path / "documented" / "setveil_truncate.py"
    documented.parent.mkdir()
    documented.write_text(re.search(r"```python\n(# setveil_truncate\.py\n.*?)```", DOCS, re.S).group(1))
    (tmp_path / "setup.cfg").write_text("")  # no configuration of setveil's own: an author's defaults
    found = _mypy("--strict", "--python-executable", str(tmp_path / "venv" / "bin" / "python"),
                  "--cache-dir", str(tmp_path / "cache"), str(EXAMPLE / "setveil_truncate.py"),
                  str(EXAMPLE / "tests" / "test_truncate.py"), str(misuse), cwd=tmp_path)
    found += _mypy("--strict", "--python-executable", str(tmp_path / "venv" / "bin" / "python"),
                   "--cache-dir", str(tmp_path / "cache"), str(documented), cwd=tmp_path)
    assert [re.sub(r"^.*?(misuse\.py:\d+): error: .*", r"\1", line) for line in found] == ["misuse.py:3", "misuse.py:4"], found
    assert "Literal['integer']" in found[0] and "DELETION" in found[1]
