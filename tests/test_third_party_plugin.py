"""A third party's plugin, installed with pip through its own entry point, works end to end."""

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .builds import pip

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "setveil-truncate"
DOCS = (REPO / "docs" / "plugins.md").read_text()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict:
    target = tmp_path_factory.mktemp("site")
    pip(tmp_path_factory.mktemp("build"), "install", "--target", str(target), source=EXAMPLE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), env.get("PYTHONPATH")]))
    return env


def test_listed_with_its_distribution(site):
    out = subprocess.run([sys.executable, "-m", "setveil", "plugins", "--json"], env=site, capture_output=True, text=True, check=True)
    models = {row["model"]: row for row in json.loads(out.stdout)}
    assert models["truncate"]["distribution"] == "setveil-truncate"
    assert {p["policy"] for p in models["truncate"]["policies"]} == {"rarest-first", "random"}
    assert models["coherence"]["distribution"] == "setveil"


def test_runs_through_the_cli(site, tmp_path):
    data = tmp_path / "in.dat"
    data.write_text("a b c d\na b\nc\n")
    out = tmp_path / "out.dat"
    run = [sys.executable, "-m", "setveil"]
    subprocess.run(run + ["anonymize", str(data), "-o", str(out), "--model", "truncate", "-P", "m=2"], env=site, check=True)
    assert [len(line.split()) for line in out.read_text().splitlines()] == [2, 2, 1]
    subprocess.run(run + ["verify", str(data), str(out), "--model", "truncate", "-P", "m=2"], env=site, check=True)


def test_its_own_conformance_tests_pass(site):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        env=site,
        capture_output=True,
        text=True,
        cwd=EXAMPLE,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert " passed" in result.stdout


def test_the_documented_pyproject_is_the_examples():
    # Regression (QA as a plugin author): the docs showed the entry-point table alone, and a
    # one-module distribution built from it has no module to load
    documented = tomllib.loads(re.search(r"```toml\n(# pyproject\.toml.*?)```", DOCS, re.S).group(1))
    example = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())

    def within(part: dict, whole: dict, where: str) -> None:
        for key, value in part.items():
            assert key in whole, f"{where}{key}"
            if isinstance(value, dict):
                within(value, whole[key], f"{where}{key}.")
            else:
                assert value == whole[key], f"{where}{key}"

    within(documented, example, "")
    assert {"build-system", "project", "tool"} <= set(documented)
    assert documented["project"]["entry-points"]["setveil"] == {"truncate": "setveil_truncate"}
