"""The ``kanonymity`` (He & Naughton VLDB'09 §3) and ``km-anonymity`` (Terrovitis et al. VLDB'08)
privacy models: generalization of items over a hierarchy, information loss by NCP (§3.2).

Windows the models refuse (:class:`Infeasible`), since no generalization can help:

- fewer than k non-empty transactions (even the root cut {ALL} is shared by fewer than k);
- for ``kanonymity`` only, 1..k-1 empty transactions: an empty transaction releases as empty, so
  it is identical only to the other empty ones (Definition 2 counts every transaction);
- items that are not leaves of the hierarchy file: there is nothing to generalize them to. The
  command line finds them in the whole input before anonymizing (an ``InputError``); a stream's
  window is the first to see them.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from setveil.core.errors import Infeasible, InputError, counted
from setveil.core.hierarchy import Hierarchy
from setveil.core.model import PolicyT, PrivacyModel, Release, Transformation, Violation
from setveil.core.ncp import covering_nodes, generalized_share, ncp
from setveil.core.params import Parameter
from setveil.core.window import Window

from .checker import kanonymity_violations, km_violations
from .policies import KAnonymityPolicy, KmAnonymityPolicy
from .recoding import LeafWindow, Recoding

LOSS_METRIC = "NCP: normalized certainty penalty over item occurrences (He & Naughton §3.2)"
K = Parameter("k", "smallest number of transactions an attacker's knowledge may narrow a person down to", "int", low=1)


class _Generalization(PrivacyModel[PolicyT]):
    """What both models share: the hierarchy, feasibility, the release and NCP."""

    transformation = Transformation.GENERALIZATION
    needs_hierarchy = True
    union_safe = True
    loss_metric = LOSS_METRIC
    peak_stats = frozenset({"hierarchy_nodes", "hierarchy_height"})
    refuse_few_empty = False

    def smallest_window(self) -> int:
        # fewer than k transactions cannot hold k alike, however far they are generalized
        return self.params["k"]

    def anonymize(self, window: Window, policy: PolicyT, rng: np.random.Generator) -> Release:
        started = time.perf_counter()
        k = self.params["k"]
        empty = int((window.lengths == 0).sum())
        nonempty = len(window) - empty
        if 0 < nonempty < k:
            raise Infeasible(
                f"the window has {counted(nonempty, 'non-empty transaction')}, fewer than k={k}: even generalizing "
                "every item to the root leaves fewer than k alike; use windows holding at least k non-empty "
                "transactions"
            )
        if self.refuse_few_empty and 0 < empty < k:
            raise Infeasible(
                f"the window has {counted(empty, 'empty transaction')}, fewer than k={k}: an empty transaction can only "
                "be identical to other empty ones"
            )
        if nonempty == 0:
            return Release(window, {}, {"generalized_occurrences": 0})
        hierarchy = self.context.hierarchy_for(window)
        try:
            leaves = LeafWindow.of(window, hierarchy)
        except InputError as exc:  # a count of items, no labels
            raise Infeasible(exc.problem + (f" ({exc.path})" if exc.path is not None else "")) from None
        recoding = self.recode(policy, leaves, hierarchy, rng)
        release = recoding.release(window, hierarchy)
        stats = dict(recoding.stats)
        stats["hierarchy_nodes"] = len(hierarchy)
        stats["hierarchy_height"] = hierarchy.height
        stats["generalized_occurrences"] = int((hierarchy.leaf_counts[recoding.nodes] > 1).sum())
        stats["model_seconds"] = time.perf_counter() - started
        return Release(release, {}, stats)

    @abc.abstractmethod
    def recode(self, policy: PolicyT, leaves: LeafWindow, hierarchy: Hierarchy, rng: np.random.Generator) -> Recoding:
        """Ask ``policy`` (an instance of the model's policy base) for the recoding."""

    def violations(self, original: Window, release: Window):
        # that the release generalizes the original, the core has checked before asking
        return self.model_violations(release)

    @abc.abstractmethod
    def model_violations(self, release: Window) -> Iterator[Violation]:
        """Every way ``release`` fails the model itself."""

    def information_loss(self, original: Window, release: Window) -> float:
        if original.n_occurrences == 0:
            return 0.0
        return ncp(original, release, self.context.hierarchy_for(original))

    def metrics(self, original: Window, release: Window) -> dict[str, Any]:
        if original.n_occurrences == 0:
            return {"ncp": 0.0, "generalized_share": 0.0, "released_labels": 0}
        hierarchy = self.context.hierarchy_for(original)
        # both measures charge each occurrence by the released label covering it: find it once
        cover = covering_nodes(original, release, hierarchy)
        return {
            "ncp": ncp(original, release, hierarchy, cover),
            "generalized_share": generalized_share(original, release, hierarchy, cover),
            "released_labels": int(np.count_nonzero(release.supports)),
        }


class KAnonymity(_Generalization[KAnonymityPolicy]):
    name = "kanonymity"
    summary = "k-anonymity of set-valued data by generalizing items over a hierarchy (He & Naughton, VLDB'09)"
    guarantee = "every released transaction is identical to at least k-1 others"
    parameters = (K,)
    default_policy = "partition"
    policy_base = KAnonymityPolicy
    refuse_few_empty = True

    def recode(self, policy: KAnonymityPolicy, leaves: LeafWindow, hierarchy: Hierarchy,
               rng: np.random.Generator) -> Recoding:
        return policy.recode(leaves, hierarchy, self.params["k"], rng)

    def model_violations(self, release):
        return kanonymity_violations(release, self.params["k"])


class KmAnonymity(_Generalization[KmAnonymityPolicy]):
    name = "km-anonymity"
    summary = "k^m-anonymity by global generalization of items over a hierarchy (Terrovitis et al., VLDB'08)"
    guarantee = "every itemset of at most m released labels that occurs is held by at least k transactions"
    parameters = (K, Parameter("m", "most items an attacker knows about one person", "int", low=1))
    default_policy = "aa"
    policy_base = KmAnonymityPolicy

    def recode(self, policy: KmAnonymityPolicy, leaves: LeafWindow, hierarchy: Hierarchy,
               rng: np.random.Generator) -> Recoding:
        return policy.recode(leaves, hierarchy, self.params["k"], self.params["m"], rng)

    def model_violations(self, release):
        return km_violations(release, self.params["k"], self.params["m"])
