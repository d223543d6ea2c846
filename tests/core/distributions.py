"""Installing a one-module plugin distribution for a test, as pip would leave it on a path."""

import os
from pathlib import Path


def install_plugin(site: Path, dist: str, module: str, source: str, entry: str) -> dict:
    """Write ``module`` and a ``dist-info`` folder declaring it as the ``setveil`` entry point
    ``entry`` of distribution ``dist`` into ``site``; return an environment with ``site`` on
    PYTHONPATH, for a subprocess."""
    (site / f"{module}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[setveil]\n{entry} = {module}\n")
    (info / "top_level.txt").write_text(f"{module}\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env
