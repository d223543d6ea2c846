"""setveil (or the example plugin) built as pip builds it, from a copy of the source: setuptools builds in the source
folder (build/, *.egg-info), which the test processes share, and two builds at once broke one."""

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def source_copy(folder: Path, source: Path = REPO) -> Path:
    """The source tree as it is in the work tree (uncommitted changes too), without what a build,
    a checkout or a run left in it."""
    return shutil.copytree(source, folder / f"{source.name}-source", ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", ".hypothesis", "__pycache__", ".mypy_cache", ".pytest_cache"))


def pip(folder: Path, *args: str, source: Path = REPO) -> None:
    """``pip <args> <a copy of source>`` (setveil's, by default), in ``folder``."""
    copy = source_copy(folder, source)
    subprocess.run([sys.executable, "-m", "pip", *args, "--quiet", "--no-deps", "--no-build-isolation", str(copy)],
                   check=True, capture_output=True, cwd=folder)
