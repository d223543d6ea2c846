"""(h,k,p)-coherence by global suppression of public items (Xu, Wang, Fu, Yu, KDD'08, §2-3).

The algorithm of Fig. 6: refuse when no cohesion exists (Theorem 1), suppress size-1 moles
(Observation 2), find the minimal moles of sizes 2..p (Fig. 4), build the MOLE-tree and Score
table (Definition 5), and greedily suppress the item the policy scores highest until no
minimal mole is left. Private items are never touched (R1), nothing is added (R2), and an
item is suppressed from every transaction of the window or from none (R3).

Theorem 1 is taken literally for the empty itemset: it is a mole when a private item is in
more than h of the window's transactions, and also when the window has fewer than k
transactions (Sup(∅) = n < k). Both windows are refused.
"""

from __future__ import annotations

import time

import numpy as np

from setveil.core.errors import Infeasible, counted
from setveil.core.metrics import partially_suppressed
from setveil.core.model import PrivacyModel, Release, Transformation
from setveil.core.params import Parameter
from setveil.core.schema import ItemClass
from setveil.core.share import Share
from setveil.core.window import Window

from .checker import coherence_violations
from .moles import find_minimal_moles
from .moletree import MoleTree, eliminate
from .policies import BrokenScore, CoherencePolicy


class Coherence(PrivacyModel[CoherencePolicy]):
    name = "coherence"
    summary = "(h,k,p)-coherence by global suppression of public items (Xu et al., KDD'08)"
    guarantee = (
        "every public itemset of at most p items that occurs is held by at least k transactions, "
        "and at most a share h of those hold any one private item"
    )
    transformation = Transformation.GLOBAL_SUPPRESSION
    parameters = (
        Parameter("h", "largest breach probability P(β -> e) allowed", "float", low=0, high=1, low_inclusive=False),
        Parameter("k", "smallest cohort an attacker's knowledge may single out", "int", low=1),
        Parameter("p", "most public items an attacker knows about one person", "int", low=1),
        Parameter(
            "il",
            "information loss of suppressing item e: support (IL(e)=Sup(e)) or unit (IL(e)=1)",
            "choice",
            default="support",
            choices=("support", "unit"),
            checked=False,
        ),
    )
    default_policy = "mm-il"
    policy_base = CoherencePolicy
    needs_schema = True

    def anonymize(self, window: Window, policy: CoherencePolicy, rng: np.random.Generator) -> Release:
        h, k, p = self.params["h"], self.params["k"], self.params["p"]
        if len(window) == 0:
            # nothing to search (and Sup(∅) = 0 makes no mole), but the same fields as any window's
            return Release(window, {"size1_moles": [], "suppressed": []},
                           {"find_moles_seconds": 0.0, "eliminate_seconds": 0.0, "size1_moles": 0, "minimal_moles": 0,
                            "minimal_moles_by_size": {}, "extendible_by_size": {}, "suppressed_items": 0})
        assert self.context.schema is not None  # needs_schema: Registry.configure refuses a context without one
        classes = self.context.schema.classes(window.vocab)
        self._check_feasible(window, classes)
        public = classes == ItemClass.PUBLIC
        private = classes == ItemClass.PRIVATE
        search = find_minimal_moles(window, public, private, h, k, p)
        started = time.perf_counter()
        support = window.supports
        il = support.astype(np.float64) if self.params["il"] == "support" else np.ones(len(support))
        tree = MoleTree(search.moles, il, _label_rank(window))
        greedy = eliminate(tree, lambda mm, il: _checked_scores(policy, mm, il))
        eliminated = time.perf_counter()
        suppressed = np.concatenate([search.size1, np.array(greedy, dtype=np.int64)])
        release = window.suppress(suppressed)
        labels = window.vocab.label
        details = {
            "size1_moles": [labels(int(i)) for i in search.size1],
            "suppressed": [labels(int(i)) for i in greedy],
        }
        stats = {
            "find_moles_seconds": search.seconds,
            "eliminate_seconds": eliminated - started,
            "size1_moles": len(search.size1),
            "minimal_moles": search.count,
            "minimal_moles_by_size": {str(j + 2): len(m) for j, m in enumerate(search.moles)},
            "extendible_by_size": {str(j + 1): n for j, n in enumerate(search.extendible)},
            "suppressed_items": len(suppressed),
        }
        return Release(release, details, stats)

    def _check_feasible(self, window: Window, classes: np.ndarray) -> None:
        h, k = self.params["h"], self.params["k"]
        n = len(window)
        if n < k:
            raise Infeasible(
                f"the window has {counted(n, 'transaction')}, fewer than k={k}: the empty itemset is a mole and "
                "no suppression removes it (Theorem 1); use windows of at least k transactions"
            )
        private_support = np.where(classes == ItemClass.PRIVATE, window.supports, 0)
        top = int(private_support.max()) if len(private_support) else 0
        if Share.of(h).exceeded(top, n):
            # the least h the window allows, as counts: a decimal of 1/3 typed short of it is still refused
            raise Infeasible(
                f"a private item is in {top} of the window's {n} transactions, more than h={h}: the empty "
                f"itemset is a mole and no (h,k,p)-cohesion exists (Theorem 1); this window allows h in "
                f"[{top}/{n}, 1], or that item public"
            )

    def input_notes(self, original: Window, source: str) -> list[str]:
        schema = self.context.schema
        if schema is None or schema.public is None or schema.public:
            return []
        # an empty public list read as "the default" would leave a user believing the release protected
        return ["with no public item no itemset is an attacker's knowledge (Definition 1), so coherence suppresses "
                "nothing: each window is released as it is, or refused when a private item is in more than h of its "
                "transactions (Theorem 1)"]

    def smallest_window(self) -> int:
        # fewer than k transactions make the empty itemset a mole (Theorem 1)
        return self.params["k"]

    def violations(self, original, release):
        p = self.params
        assert self.context.schema is not None  # needs_schema: Registry.configure refuses a context without one
        return coherence_violations(original, release, self.context.schema, p["h"], p["k"], p["p"])

    def metrics(self, original, release):
        return {"partially_suppressed_items": partially_suppressed(original, release)}


def _checked_scores(policy: CoherencePolicy, mm: np.ndarray, il: np.ndarray) -> np.ndarray:
    """``policy.score(mm, il)`` held to its contract: the greedy step's argmax would take the first
    entry of a short array, or a NaN, as the best candidate in silence (QA: np.zeros(1) ran)."""
    returned = policy.score(mm, il)
    who = f"policy {policy.name!r} of model 'coherence': score"
    try:
        # float64 straight away would read strings ('1') and booleans as numbers, and drop the
        # imaginary parts of complex ones with a warning on stderr
        scores = np.asarray(returned)
        if scores.dtype.kind not in "iuf":
            raise BrokenScore(f"{who} returned {scores.dtype.name} values ({type(returned).__name__}), not real "
                              "numbers")
        scores = scores.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise BrokenScore(f"{who} returned {type(returned).__name__}, not real numbers") from None
    if scores.shape != mm.shape:
        raise BrokenScore(f"{who} returned shape {scores.shape} ({type(returned).__name__}) for {len(mm)} "
                          "candidates; it must return one number per candidate")
    bad = int(np.count_nonzero(~np.isfinite(scores)))
    if bad:
        raise BrokenScore(f"{who} returned {counted(bad, 'score')} that {'is' if bad == 1 else 'are'} NaN or "
                          f"infinite for {len(mm)} candidates")
    return scores


def _label_rank(window: Window) -> np.ndarray:
    labels = window.vocab.labels
    order = sorted(range(len(labels)), key=lambda i: labels[i])
    rank = np.empty(len(labels), dtype=np.int64)
    rank[order] = np.arange(len(labels))
    return rank
