"""Windows over hierarchy leaves and the release a recoding makes of them (He & Naughton §3.1).

A policy sees a :class:`LeafWindow` (each item occurrence as its leaf node) and answers with a
:class:`Recoding`: one hierarchy node per occurrence, an ancestor-or-self of its leaf. The released
transaction is the set of those nodes, so items generalized to the same node merge (Table 1:
Wine, Diapers, Pregnancy Test -> {Alcohol, Health Care}). Local recoding (Partition) may map one
item to different nodes in different transactions; global recoding (AA) maps it to one node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from setveil.core.arrays import as_ids, sorted_unique
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window


@dataclass(frozen=True)
class LeafWindow:
    """Transaction i holds the leaf nodes ``nodes[indptr[i]:indptr[i+1]]`` (CSR, as a Window),
    node ids in the hierarchy's ``id_dtype``."""

    indptr: np.ndarray
    nodes: np.ndarray

    @classmethod
    def of(cls, window: Window, hierarchy: Hierarchy) -> LeafWindow:
        """Map a window's items to their leaves (InputError if an item is not a leaf)."""
        # in the ids' own dtype, which Partition keeps as it is: an int64 copy beside Partition's
        # int32 one was the peak of its first round at a million transactions
        leaf = as_ids(hierarchy.leaf_nodes(window), len(hierarchy))
        return cls(window.indptr, leaf[window.indices])

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def owners(self) -> np.ndarray:
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)


@dataclass
class Recoding:
    """A policy's answer: the released node of every occurrence, and counters for the report."""

    nodes: np.ndarray
    stats: dict[str, Any] = field(default_factory=dict)

    def release(self, window: Window, hierarchy: Hierarchy) -> Window:
        """The released window: transaction i holds the distinct labels of its occurrences' nodes.

        Labels of inner nodes are added to a copy of the window's vocabulary.
        """
        n_nodes = len(hierarchy)
        keys = sorted_unique(window.owners() * n_nodes + self.nodes)
        owners, nodes = keys // n_nodes, keys % n_nodes
        vocab = window.vocab.copy()
        used = np.flatnonzero(np.bincount(nodes, minlength=n_nodes))
        lookup = np.full(n_nodes, -1, dtype=np.int64)
        labels = hierarchy.labels
        lookup[used] = [vocab.intern(labels[node]) for node in used.tolist()]
        lengths = np.bincount(owners, minlength=len(window))
        return Window.from_flat(vocab, lengths, lookup[nodes], window.tids)
