"""deploy/kubernetes's manifests name each other, the image and the files a worker reads: each name
is checked against what it names, since `kubectl apply -k` takes a dangling one in silence (a
selector that selects no pod, a ConfigMap key no path reads) and the worker meets it at its start."""

import re
import tomllib

from .streams.deployfiles import KUBERNETES, configmap_toml

REPO = KUBERNETES.parents[1]
KUSTOMIZATION = (KUBERNETES / "kustomization.yaml").read_text()
DEPLOYMENT = (KUBERNETES / "deployment.yaml").read_text()


def _labels(text: str, key: str) -> list[dict[str, str]]:
    """Every ``key: {a: b, ...}`` flow mapping of labels in ``text``."""
    return [dict(pair.split(": ") for pair in found.split(", "))
            for found in re.findall(rf"^ *{key}: \{{(.*)\}}$", text, re.MULTILINE)]


def _name(text: str) -> str:
    return re.search(r"^metadata:\n(?: .*\n)*?  name: (\S+)$", text, re.MULTILINE).group(1)


def test_the_kustomization_applies_every_manifest_of_the_folder():
    resources = re.findall(r"^  - (\S+\.yaml)$", KUSTOMIZATION, re.MULTILINE)
    manifests = {path.name for path in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}
    assert sorted(resources) == sorted(manifests)


def test_the_kustomization_renames_the_image_the_deployment_runs():
    (image,) = re.findall(r"^ +image: (\S+)$", DEPLOYMENT, re.MULTILINE)
    assert re.search(rf"^images:\n  - name: {image}\n    newName: \S+", KUSTOMIZATION, re.MULTILINE)


def test_every_selector_selects_the_workers_pods():
    (labels,) = _labels(re.search(r"^  template:\n    metadata:\n(.*\n)*?    spec:", DEPLOYMENT, re.MULTILINE).group(0),
                        "labels")
    (match,) = _labels(DEPLOYMENT, "matchLabels")
    assert match == labels
    for manifest, key in (("service.yaml", "selector"), ("poddisruptionbudget.yaml", "matchLabels")):
        (selector,) = _labels((KUBERNETES / manifest).read_text(), key)
        assert selector.items() <= labels.items(), manifest


def test_the_workers_read_their_settings_and_item_lists_where_the_config_maps_are_mounted():
    mounts = dict(re.findall(r"- \{name: (\S+), mountPath: (\S+)(?:, readOnly: true)?\}", DEPLOYMENT))
    config_maps = dict(re.findall(r"- name: (\S+)\n +configMap: \{name: (\S+)\}", DEPLOYMENT))
    # the settings: the ConfigMap's only key, where the worker's --config reads it
    assert config_maps["config"] == _name((KUBERNETES / "configmap.yaml").read_text())
    (config,) = re.findall(r'^ +args: \["serve", "--config", "(\S+)"\]$', DEPLOYMENT, re.MULTILINE)
    assert config == f"{mounts['config']}/setveil.toml"
    # the item lists: the keys the kustomization's comment creates setveil-items with, at the paths
    # the settings name
    created = re.search(r"create configmap (\S+) \\\n#\s+(.*)$", KUSTOMIZATION, re.MULTILINE)
    assert config_maps["items"] == created.group(1)
    keys = re.findall(r"--from-file=([^=]+)=", created.group(2))
    model = tomllib.loads(configmap_toml())["model"]
    assert [f"{mounts['items']}/{key}" for key in keys] == [model["sensitive"], model["public"]]


def test_the_rollout_restart_names_the_deployment_in_the_kustomizations_namespace():
    namespace = re.search(r"^namespace: (\S+)$", KUSTOMIZATION, re.MULTILINE).group(1)
    restart = f"kubectl -n {namespace} rollout restart deployment/{_name(DEPLOYMENT)}"
    assert restart in KUSTOMIZATION
    assert restart in (REPO / "docs" / "operations.md").read_text()
    assert f"kubectl create namespace {namespace}" in KUSTOMIZATION
    assert f"kubectl -n {namespace} create configmap" in KUSTOMIZATION
