"""One distribution, one namespace: every package is listed, and a wheel carries all of them."""

import tomllib
import zipfile
from pathlib import Path

from .builds import pip

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())


def test_every_package_folder_is_listed():
    mapping = CONFIG["tool"]["setuptools"]["package-dir"]
    found = set()
    for package, folder in mapping.items():
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO / folder)
            found.add(".".join([package, *relative.parts]))
    assert found == set(CONFIG["tool"]["setuptools"]["packages"])


def test_wheel_carries_every_module_and_the_entry_points(tmp_path):
    pip(tmp_path, "wheel", "-w", str(tmp_path / "wheels"))
    wheel = next((tmp_path / "wheels").glob("setveil-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    mapping = CONFIG["tool"]["setuptools"]["package-dir"]
    for package, folder in mapping.items():
        for source in (REPO / folder).rglob("*.py"):
            relative = source.relative_to(REPO / folder)
            assert "/".join([*package.split("."), *relative.parts]) in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for name, target in CONFIG["project"]["entry-points"]["setveil"].items():
        assert f"{name} = {target}" in text
    assert "setveil = setveil.__main__:main" in text
