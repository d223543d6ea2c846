"""Installing a one-module plugin distribution for a test, as pip would leave it on a path, and
running setveil where it is installed."""

import os
import subprocess
import sys
from pathlib import Path

#: a plugin model of a real one's shape: it suppresses the items of support below k and checks
#: that (a correct model and check), for the tests whose models do one thing more (subclasses)
KSUP_SOURCE = '''
import numpy as np
from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation
from setveil.core.verify import suppression_basics


class SupPolicy(Policy):
    model = "ksup"


class Plain(SupPolicy):
    name = "plain"
    summary = "the only way"


class KSup(PrivacyModel):
    name = "ksup"
    summary = "suppresses the items of support below k"
    guarantee = "every released item has support 0 or at least k"
    transformation = Transformation.GLOBAL_SUPPRESSION
    parameters = (Parameter("k", "least support", "int", low=1),)
    default_policy = "plain"
    policy_base = SupPolicy

    def anonymize(self, window, policy, rng):
        return Release(window.suppress(np.flatnonzero(window.supports < self.params["k"])))

    def violations(self, original, release):
        aligned = yield from suppression_basics(original, release)
        if aligned is None:
            return
        supports = release.supports
        for item in np.flatnonzero((supports > 0) & (supports < self.params["k"])):
            yield Violation("low-support", "an item has support below k", (release.vocab.label(int(item)),))
'''


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


def setveil(env: dict, *args: str, cwd=None) -> subprocess.CompletedProcess:
    """``setveil ARGS`` in a new Python with ``env`` (an environment :func:`install_plugin` gave),
    its standard output and error read as text."""
    return subprocess.run([sys.executable, "-m", "setveil", *args], env=env, capture_output=True, text=True, cwd=cwd)
