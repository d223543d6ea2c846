"""What deploy/kubernetes gives a worker, read as the tests that check it need it."""

import re
from pathlib import Path

KUBERNETES = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"


def configmap_toml() -> str:
    """The setveil.toml the ConfigMap mounts, as the worker reads the file."""
    embedded = re.search(r"setveil\.toml: \|\n((?:    .*\n|\n)+)", (KUBERNETES / "configmap.yaml").read_text()).group(1)
    return "\n".join(line[4:] for line in embedded.splitlines())


def deployment_env() -> dict[str, str]:
    """The SETVEIL_ variables the Deployment sets, with their values."""
    deployment = (KUBERNETES / "deployment.yaml").read_text()
    return dict(re.findall(r"^ +- name: (SETVEIL_[A-Z_]+)\n +value: (\S+)$", deployment, flags=re.MULTILINE))
