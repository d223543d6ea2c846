"""ρ-uncertainty by partial suppression (Jia, Hu, Pan, Xie, Xu, Zhu, Lo), model ``rho``.

A release is safe when no sensitive association rule q -> e can be inferred with confidence
above ρ (§2.1): for every qid q drawn from a record with |q| <= ``qid_size`` and every
sensitive e ∉ q, sup(q ∪ {e}) <= ρ · sup(q). Every item, sensitive or not, can be part of
a qid. The empty qid counts too (an attacker who knows nothing about a person still infers
e with confidence sup(e)/|T|); that is the reading under which Table 1's global suppression
deletes the four condoms. ``qid_size=all`` bounds nothing: it is checked exactly as the
longest record minus one, where the window's sensitive records allow it (see
:mod:`.checker`), and refused up front otherwise.

The anonymizer is Algorithm 3 (divide and conquer, :mod:`.dnc`) around Algorithm 1
(:mod:`.suppressor`); the policy (``mine``, ``dist`` or the baseline ``global``) picks the
victims. ``violations`` is the independent checker of :mod:`.checker`; ``metrics`` reports the
utility measures of §2.2 and §4 (:mod:`.metrics`).
"""

from __future__ import annotations

import math
import time
from itertools import zip_longest

import numpy as np

from setveil.core.arrays import concat_ranges
from setveil.core.errors import Infeasible
from setveil.core.metrics import suppressed_share
from setveil.core.mining import MiningTooLarge
from setveil.core.model import PrivacyModel, Release, Transformation
from setveil.core.params import Parameter
from setveil.core.schema import ItemClass
from setveil.core.window import Window

from .checker import ALL_SUBSETS_BUDGET, all_qids_size, rho_violations
from .dnc import available_cpus, cost, job_for, run_jobs, split
from .metrics import rule_comparison, sensitive_loss, symmetric_kl
from .policies import RhoPolicy


class RhoUncertainty(PrivacyModel[RhoPolicy]):
    name = "rho"
    summary = "ρ-uncertainty by partial suppression (Jia et al.), with global suppression (Cao et al.) as a policy"
    guarantee = (
        "no rule q -> e, q drawn from a record with at most qid_size items (the empty one included) and "
        "e a sensitive item outside q, has confidence sup(q ∪ {e}) / sup(q) above rho"
    )
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (
        Parameter("rho", "largest confidence allowed for a sensitive rule", "float", low=0, high=1,
                  low_inclusive=False, high_inclusive=False),
        Parameter("qid_size", "most items an attacker knows about a person (a qid), or all", "int", default=4,
                  low=1, choices=("all",)),
        Parameter("b_max", "qid buffer capacity, in qid instances: larger buffers mean fewer refills (faster) "
                  "and more memory", "int", default=1_000_000, low=1, checked=False),
        Parameter("t_max", "divide and conquer: split while Cost(T) (eq. 8) exceeds it; smaller means more, "
                  "smaller parts (faster, in parallel) and a little more loss; off never splits", "float",
                  default=500.0, low=0, low_inclusive=False, choices=("off",), checked=False),
        # bounded: each process forks the window, and a mistyped 1000 would start that many
        Parameter("workers", "processes suppressing the parts of a split window (at most as many as parts); "
                  "auto = the CPUs available", "int", default="auto", low=1, high=256, choices=("auto",),
                  checked=False),
        Parameter("rule_support", "metrics: minimum support of a mined rule, as a share of the transactions",
                  "float", default=0.0005, low=0, high=1, low_inclusive=False, checked=False),
        Parameter("rule_confidence", "metrics: minimum confidence of a mined rule; rho = the model's rho",
                  "float", default="rho", low=0, high=1, low_inclusive=False, choices=("rho",), checked=False),
        Parameter("rule_max_size", "metrics: most items in a mined rule (body and head); all = any size, "
                  "which can exhaust memory on data with long repeated records", "int", default=5, low=2,
                  choices=("all",), checked=False),
        Parameter("rule_metrics", "metrics: mine rules to report their Jaccard similarity (slow on big data)",
                  "bool", default=True, checked=False),
    )
    default_policy = "mine"
    policy_base = RhoPolicy
    needs_schema = True
    loss_metric = "share of item occurrences deleted (info loss, §4)"
    peak_stats = frozenset({"workers", "qid_size", "passes", "suppress_seconds_max_part"})

    @property
    def rho(self) -> float:
        return float(self.params["rho"])

    def sensitive(self, window: Window) -> np.ndarray:
        assert self.context.schema is not None  # needs_schema: Registry.configure refuses a context without one
        return self.context.schema.classes(window.vocab) == ItemClass.PRIVATE

    def anonymize(self, window: Window, policy: RhoPolicy, rng: np.random.Generator) -> Release:
        started = time.perf_counter()
        sensitive = self.sensitive(window)
        qid_size = self._qid_size(window, sensitive)
        # global suppression is a property of the whole window, so the baseline is not split
        off = self.params["t_max"] == "off" or policy.global_suppression
        t_max = None if off else float(self.params["t_max"])
        parts = split(window, t_max, rng)
        seeds = rng.integers(0, np.iinfo(np.int64).max, size=len(parts))
        jobs, item_maps = [], []
        for positions, seed in zip(parts, seeds.tolist()):
            job, items = job_for(window, positions, sensitive, policy, self.rho, qid_size, int(self.params["b_max"]), seed)
            jobs.append(job)
            item_maps.append(items)
        workers = available_cpus() if self.params["workers"] == "auto" else int(self.params["workers"])
        results = run_jobs(jobs, workers)
        alive = np.ones(window.n_occurrences, dtype=bool)
        removed = np.zeros(len(window.vocab), dtype=bool)
        for positions, result, items in zip(parts, results, item_maps):
            alive[concat_ranges(window.indptr[positions], window.indptr[positions + 1])] = result.alive
            removed[items[result.suppressed_types]] = True
        if policy.global_suppression:
            alive &= ~removed[window.indices]
        release = window.keep_occurrences(alive)
        labels = window.vocab.label
        details = {"suppressed_types": [labels(int(i)) for i in np.flatnonzero(removed)]} if policy.global_suppression else {}
        stats = {
            "parts": len(parts),
            "workers": min(workers, len(parts)),
            "qid_size": qid_size,
            "passes": max((r.stats["passes"] for r in results), default=0),
            # Theorem 1's loop: every pass but the last deletes something
            "deletions_by_pass": [sum(p) for p in zip_longest(*(r.stats["deletions_by_pass"] for r in results), fillvalue=0)],
            "buffers": sum(r.stats["buffers"] for r in results),
            "qids_generated": sum(r.stats["qids_generated"] for r in results),
            "unsafe_qids": sum(r.stats["unsafe_qids"] for r in results),
            "sanitized_rules": sum(r.stats["sanitized_rules"] for r in results),
            "deletions": window.n_occurrences - release.n_occurrences,
            "suppress_seconds_max_part": max((r.stats["seconds"] for r in results), default=0.0),
            "anonymize_seconds": time.perf_counter() - started,
        }
        return Release(release, details, stats)

    def input_notes(self, original: Window, source: str) -> list[str]:
        notes = []
        if self.context.schema is not None and self.context.schema.public is not None:
            # a public list taken in silence reads as one that narrows what the attacker may know,
            # as it does for coherence; a qid here is any set of items (docs/rho.md)
            notes.append(f"--public changes nothing for model {self.name!r}: every item, sensitive or not, can be "
                         "part of a qid")
        return notes + self._t_max_notes(original, source)

    def _t_max_notes(self, original: Window, source: str) -> list[str]:
        if self.params["t_max"] == "off" or len(original) == 0 or original.n_occurrences == 0:
            return []
        t_max = float(self.params["t_max"])
        mean = original.n_occurrences / len(original)
        # A part's domain holds at most its occurrences, so eq. 8 gives every part of such records
        # a cost of at least 2^L / L (L their mean length): past t_max, Algorithm 3 splits down to
        # single records, where almost every sensitive occurrence must go (a QA run on mushroom:
        # 8,124 parts, 28.1% of the occurrences deleted against 9.8% unsplit).
        floor = cost(1, mean, mean)
        if floor <= t_max:
            return []
        length, bound = _eq8_floor_text(mean, t_max)
        # the model is not told the policy (global never divides) nor the command: the note says when it holds
        return [f"the transactions of {source} hold {length} items on average, so every part costs at least "
                f"2^{length}/{length} {bound} > t_max={repr(t_max).removesuffix('.0')} (eq. 8): anonymized with "
                "policy mine or dist, divide and conquer would cut them into parts of one transaction, which loses "
                "far more; -P t_max=off does not (slower)"]

    def _qid_size(self, window: Window, sensitive: np.ndarray) -> int:
        if self.params["qid_size"] != "all":
            return int(self.params["qid_size"])
        size = all_qids_size(window, sensitive)
        if size is None:
            raise Infeasible(
                f"qid_size=all needs every subset of every record holding a sensitive item, more than "
                f"{ALL_SUBSETS_BUDGET:,} in this window; give a numeric qid_size"
            )
        return size

    def violations(self, original, release):
        assert self.context.schema is not None  # needs_schema: Registry.configure refuses a context without one
        return rho_violations(original, release, self.context.schema.private, self.rho, self.params["qid_size"])

    def metrics(self, original, release):
        assert self.context.schema is not None  # needs_schema: Registry.configure refuses a context without one
        out: dict = {"info_loss": suppressed_share(original, release),
                     "sensitive_loss": sensitive_loss(original, release, self.context.schema.private),
                     "symmetric_kl": symmetric_kl(original, release)}
        if self.params["rule_metrics"]:
            confidence = self.rho if self.params["rule_confidence"] == "rho" else float(self.params["rule_confidence"])
            support = float(self.params["rule_support"])
            size = None if self.params["rule_max_size"] == "all" else int(self.params["rule_max_size"])
            out.update({"rule_min_support": support, "rule_confidence": confidence, "rule_max_size": self.params["rule_max_size"]})
            try:
                out.update(rule_comparison(original, release, support, confidence, size))
            except MiningTooLarge as exc:
                out["skipped"] = {"rules": f"{exc}: raise rule_support, lower rule_max_size or set rule_metrics=false"}
        return out


def _eq8_floor_text(mean: float, t_max: float) -> tuple[str, str]:
    """``(L, "= 2^L/L")`` as the t_max note writes them, so that its arithmetic holds as written (QA:
    ``2^3.0/3.0 = 3`` for 2.67): the bound to three figures or more, never rounded to ``t_max`` or below
    it, which the note says it exceeds; L, the mean length, with as many decimals as make 2^L/L round
    to that bound (23.0 for mushroom, 2.96 where 3.0 would give 2.67 for 2.63). Past a float's range
    the bound is a power of ten it exceeds (records of 25,001.5 items on average read ``= inf``)."""
    floor = cost(1, mean, mean)
    if math.isinf(floor):
        length = f"{mean:.1f}"
        shown = float(length)
        return length, f"> 10^{math.floor(shown * math.log10(2) - math.log10(shown))}"
    places = 0 if floor >= 100 else 1 if floor >= 10 else 2
    while places < 17 and float(f"{floor:.{places}f}") <= t_max:
        places += 1
    bound = f"{floor:,.{places}f}"
    for decimals in range(1, 17):
        length = f"{mean:.{decimals}f}"
        if f"{cost(1, float(length), float(length)):,.{places}f}" == bound:
            break
    return length, f"= {bound}"
