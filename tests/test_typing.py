"""setveil ships ``py.typed``: the installed package type-checks under its own mypy settings, and a
plugin author's checker sees the API's types (a misuse is an error, not ``Any``)."""

import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import setveil

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())

MISUSE = textwrap.dedent(
    """\
    from setveil import Parameter, Transformation

    BAD_KIND = Parameter("m", "most items released per transaction", "integer", low=1)
    BAD_MEMBER = Transformation.DELETION
    """
)


def test_every_module_of_the_api_is_annotated_throughout():
    strict = next(o for o in CONFIG["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs"))
    assert {"setveil", "setveil.testing.*", *set(setveil._HOME.values())} <= set(strict["module"])


def test_the_installed_package_and_a_plugin_type_check(tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(site), str(REPO)],
        check=True,
        capture_output=True,
    )
    assert (site / "setveil" / "py.typed").is_file()
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    example = REPO / "examples" / "setveil-truncate" / "setveil_truncate.py"
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary", "--hide-error-context", "setveil", str(example), str(misuse)],
        cwd=site,
        env={**os.environ, "MYPYPATH": str(site)},
        capture_output=True,
        text=True,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [re.sub(r"^.*?(misuse\.py:\d+): error: .*", r"\1", line) for line in errors] == ["misuse.py:3", "misuse.py:4"], done.stdout
    assert "Literal['integer']" in errors[0] and "DELETION" in errors[1]
