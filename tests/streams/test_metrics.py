"""The metrics a worker exposes are the ones docs/operations.md ("Metrics") lists."""

from __future__ import annotations

import re
from pathlib import Path

from setveil.streams.metrics import ServiceMetrics

REPO = Path(__file__).resolve().parents[2]


def _exposed() -> set[str]:
    metrics = ServiceMetrics(lambda: {0: (3, 7)})
    names = set()
    for family in metrics.registry.collect():
        names.add(f"{family.name}_total" if family.type == "counter" else family.name)
    return names


def _documented() -> set[str]:
    text = (REPO / "docs" / "operations.md").read_text()
    section = text.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(setveil_[a-z_]+)", section, flags=re.MULTILINE))


def test_every_metric_the_worker_exposes_is_documented_and_no_other():
    # Regression: a metric added to the worker must reach the operators' table.
    assert _exposed() == _documented()
