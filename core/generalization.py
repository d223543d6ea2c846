"""Is a generalized release a generalization of its original? (He & Naughton VLDB'09,
Definition 3: instances of items generalized along the item hierarchy, each replaced by one of its
ancestors-or-self.)

The core asks this of every model that declares ``Transformation.GENERALIZATION``, before the
model's own checker, as it asks "nothing added" of a suppression model: a model's checker could
otherwise pass a release holding labels its data never had. Coverage is found by walking each
original item's ancestor chain and looking the nodes up among the released labels of its
transaction, without any anonymizer's bookkeeping.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .hierarchy import Hierarchy
from .model import Violation
from .window import Window


def generalization_violations(original: Window, release: Window, hierarchy: Hierarchy) -> Iterator[Violation]:
    """The release is a generalization of the original: every released label is a node that is
    an ancestor-or-self of an item of the same original transaction, and every original item is
    covered by exactly one released label of its transaction."""
    if len(original) != len(release):
        yield Violation("shape", f"release has {len(release)} transactions, original {len(original)}")
        return
    n_nodes = len(hierarchy)
    released = hierarchy.nodes(release.vocab.labels)[release.indices]
    unknown = released < 0
    if unknown.any():
        first = int(np.flatnonzero(unknown)[0])
        yield Violation(
            "unknown-label",
            f"{int(unknown.sum())} released label(s) are not nodes of the hierarchy",
            (release.vocab.label(int(release.indices[first])),),
            int(release.owners()[first]),
        )
    leaves = hierarchy.nodes(original.vocab.labels)[original.indices]
    missing = leaves < 0
    if missing.any():
        yield Violation("unknown-item", f"{int(missing.sum())} original item occurrence(s) are not in the hierarchy")
    keys = release.owners()[~unknown] * n_nodes + released[~unknown]
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    used = np.zeros(len(keys), dtype=bool)
    owners = original.owners()[~missing]
    node = leaves[~missing]
    covers = np.zeros(len(node), dtype=np.int64)
    while len(keys):
        wanted = owners * n_nodes + node
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        hit = (keys[at] == wanted) & (node >= 0)
        covers += hit
        used[at[hit]] = True
        node = np.where(node >= 0, hierarchy.parent[np.maximum(node, 0)], -1)
        if (node < 0).all():
            break
    uncovered = np.flatnonzero(covers == 0)
    if len(uncovered):
        yield Violation(
            "uncovered-item",
            f"{len(uncovered)} original item occurrence(s) have no released label covering them",
            transaction=int(owners[uncovered[0]]),
        )
    doubled = np.flatnonzero(covers > 1)
    if len(doubled):
        yield Violation(
            "overlapping-labels",
            f"{len(doubled)} original item occurrence(s) are covered by more than one released label",
            transaction=int(owners[doubled[0]]),
        )
    foreign = np.flatnonzero(~used)
    if len(foreign):
        position = np.flatnonzero(~unknown)[order[foreign[0]]]
        yield Violation(
            "foreign-label",
            f"{len(foreign)} released label(s) cover no item of their original transaction",
            (release.vocab.label(int(release.indices[position])),),
            int(release.owners()[position]),
        )
