"""The experiments of Oliveira & Zaïane, TR 02-13, §5: effectiveness (§5.1, Figs. 6 and 11) and
CPU time (§5.2), run through the registered model exactly as ``setveil anonymize`` runs it."""

from __future__ import annotations

import resource
import time
from typing import Any

import numpy as np

from setveil.core.bench import in_child
from setveil.core.plugins import get_registry
from setveil.core.verify import release_violations
from setveil.core.window import Window

from .metrics import PatternMetrics
from .patterns import RestrictivePatterns

POLICIES = ("naive", "minfia", "maxfia", "iga")


def _configure(policy: str, patterns_path: str, psi: float, sigma: float | str):
    params = {"restrictive": patterns_path, "psi": f"{psi:.10g}", "sigma": sigma if sigma == "off" else f"{sigma:.10g}"}
    return get_registry().configure("sanitize", policy, params)


def _fresh(window: Window) -> Window:
    """The same transactions without cached views, so that each run builds its own index."""
    return Window(window.vocab, window.indptr, window.indices, window.tids)


#: the fields of an :func:`effectiveness` row, null in the row of a pattern set that could not be sampled
EFFECTIVENESS_MEASURED = ("policy", "psi", "restrictive", "hiding_failure", "misses_cost", "artifactual_patterns",
                          "dissimilarity", "size_loss", "sanitizations", "removed_items", "violations", "seconds")


def effectiveness(
    window: Window, measure: PatternMetrics, patterns_path: str, policies: tuple[str, ...], psis: list[float]
) -> list[dict[str, Any]]:
    """HF, MC, AP, dissimilarity and size loss of every policy at every ψ (Figs. 6 and 11) for
    one set of restrictive patterns; ``measure`` has mined the original at σ."""
    sigma = measure.sigma
    assert sigma is not None  # the hiding failure and misses cost need the mined patterns
    patterns = RestrictivePatterns.load(patterns_path)
    rows = []
    for policy in policies:
        for psi in psis:
            configured = _configure(policy, patterns_path, psi, sigma)
            release = configured.model.anonymize(_fresh(window), configured.policy, np.random.default_rng(0))
            problems = sum(1 for _ in release_violations(configured.model, window, release.window, configured.context))
            figures = measure.evaluate(release.window, patterns)
            rows.append(
                {
                    "policy": policy,
                    "psi": psi,
                    "restrictive": figures["restrictive_before"],
                    "hiding_failure": figures["hiding_failure"],
                    "misses_cost": figures["misses_cost"],
                    "artifactual_patterns": figures["artifactual_patterns"],
                    "dissimilarity": figures["dissimilarity"],
                    "size_loss": figures["size_loss"],
                    "sanitizations": release.stats["sanitizations"],
                    "removed_items": release.stats["removed_items"],
                    "violations": problems,
                    "seconds": release.stats["index_seconds"] + release.stats["sanitize_seconds"],
                }
            )
    return rows


#: the fields of a :func:`speed` row, null in the row of a setting that had no patterns to run
SPEED_MEASURED = ("policy", "index_seconds", "sanitize_seconds", "total_seconds", "verify_seconds", "peak_mib",
                  "run_mib", "tree_mib", "max_rss_mib", "restrictive_patterns", "sensitive_transactions",
                  "sanitizations", "removed_items", "violations")


def speed(window: Window, patterns_path: str, policy: str, psi: float, runs: int) -> dict[str, Any]:
    """Median index-build and sanitization seconds over ``runs`` runs, the check's seconds, and
    the memory of one more run, made first, in a forked process, as ``bench run`` measures it
    (:func:`setveil.core.bench.in_child`); a run whose process dies raises its RunDied."""
    configured = _configure(policy, patterns_path, psi, "off")
    model, chosen = configured.model, configured.policy
    # first, as bench run does, so that the fork does not inherit the heap the timed runs leave
    memory = in_child(_memory_run, model, chosen, window)
    index, sanitize, verify = [], [], []
    for _ in range(runs):
        release = model.anonymize(_fresh(window), chosen, np.random.default_rng(0))
        index.append(release.stats["index_seconds"])
        sanitize.append(release.stats["sanitize_seconds"])
        started = time.perf_counter()
        problems = sum(1 for _ in release_violations(model, window, release.window, configured.context))
        verify.append(time.perf_counter() - started)
    return {
        "policy": policy,
        "index_seconds": float(np.median(index)),
        "sanitize_seconds": float(np.median(sanitize)),
        "total_seconds": float(np.median(np.add(index, sanitize))),
        "verify_seconds": float(np.median(verify)),
        "peak_mib": memory["peak_mib"],
        "run_mib": memory["run_mib"],
        "tree_mib": memory["tree_mib"],
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "restrictive_patterns": release.stats["restrictive_patterns"],
        "sensitive_transactions": release.stats["sensitive_transactions"],
        "sanitizations": release.stats["sanitizations"],
        "removed_items": release.stats["removed_items"],
        "violations": problems,
    }


def _memory_run(model, policy, window: Window) -> dict[str, Any]:
    """The run :func:`in_child` measures: a timed run's anonymize, its index built afresh."""
    model.anonymize(_fresh(window), policy, np.random.default_rng(0))
    return {}
