"""What the ``kanonymity`` and ``km-anonymity`` models ask of a policy, and the policies shipped.

Each model calls one method of its policy base: ``recode(leaves, hierarchy, ...) -> Recoding``,
the released hierarchy node of every item occurrence. A third party adds a heuristic by
subclassing :class:`KAnonymityPolicy` or :class:`KmAnonymityPolicy` and registering it; the model
checks every release independently, so a policy cannot weaken the guarantee.

- ``partition`` (He & Naughton VLDB'09 §4, Algorithm 1): top-down local recoding. Its
  ``pick_node`` subroutine is a method too, so a variant of Algorithm 1 with another
  node-choice heuristic is a subclass overriding only :meth:`Partition.pick_node`.
- ``aa`` (Terrovitis, Mamoulis, Kalnis VLDB'08): bottom-up Apriori-based global recoding.
"""

from __future__ import annotations

import abc

import numpy as np

from setveil.core.hierarchy import Hierarchy
from setveil.core.model import Policy

from .apriori import apriori_anonymize
from .partition import partition
from .recoding import LeafWindow, Recoding


class KAnonymityPolicy(Policy):
    """Base of ``kanonymity`` policies."""

    model = "kanonymity"

    @abc.abstractmethod
    def recode(self, leaves: LeafWindow, hierarchy: Hierarchy, k: int, rng: np.random.Generator) -> Recoding:
        """Generalize every occurrence so that each released transaction equals at least k-1 others.

        At least k transactions of ``leaves`` are non-empty; empty ones have no occurrence.
        """


class KmAnonymityPolicy(Policy):
    """Base of ``km-anonymity`` policies."""

    model = "km-anonymity"

    @abc.abstractmethod
    def recode(
        self, leaves: LeafWindow, hierarchy: Hierarchy, k: int, m: int, rng: np.random.Generator
    ) -> Recoding:
        """Generalize every occurrence so that every itemset of at most m released labels that
        occurs is held by at least k transactions. At least k transactions of ``leaves`` are non-empty."""


class Partition(KAnonymityPolicy):
    name = "partition"
    summary = "top-down local generalization, expanding the node of maximal information gain (He & Naughton)"

    def recode(self, leaves, hierarchy, k, rng):
        # another heuristic may leave a chain of one-child nodes half walked for a node elsewhere
        walks = type(self).pick_node is Partition.pick_node
        return partition(leaves, hierarchy, k, self.pick_node, walks_chains=walks)

    def pick_node(self, partitions: np.ndarray, nodes: np.ndarray, gains: np.ndarray) -> np.ndarray:
        """Max_Global_Info_Gain (§4.1): for each partition, the expandable node of largest total gain.

        The candidates are rows ``(partitions[i], nodes[i], gains[i])`` sorted by partition then
        node, gains in units of 1/|I| (exact integers); return one row index per partition, in
        partition order. Ties go to the node first in the hierarchy's preorder.
        """
        if not len(partitions):
            return np.zeros(0, dtype=np.int64)
        # each partition's run of rows: its largest gain, then the first row holding it (nodes
        # ascend within the run), where a lexsort of every row took 25 times as long
        change = np.ones(len(partitions), dtype=bool)
        np.not_equal(partitions[1:], partitions[:-1], out=change[1:])
        run = np.cumsum(change) - 1
        top = np.flatnonzero(gains == np.maximum.reduceat(gains, np.flatnonzero(change))[run])
        first = np.ones(len(top), dtype=bool)
        np.not_equal(run[top][1:], run[top][:-1], out=first[1:])
        return top[first]


class Apriori(KmAnonymityPolicy):
    name = "aa"
    summary = "Apriori-based bottom-up global generalization, itemset sizes 1..m (Terrovitis et al.)"

    def recode(self, leaves, hierarchy, k, m, rng):
        return apriori_anonymize(leaves, hierarchy, k, m)
