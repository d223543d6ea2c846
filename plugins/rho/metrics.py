"""Utility of a release (Jia et al. §2.2 and §4): info loss, symmetric K-L divergence of the
item distributions, and the Jaccard similarity of the association rules minable before and
after.

- info loss (§4): (Items(T) - Items(T')) / Items(T).
- symmetric K-L divergence (§4.1): S(H1||H2) = ½ KL(H1||M) + ½ KL(H2||M) with H the item
  distribution (support over all occurrences) and M = (H1 + H2)/2, natural logarithm. The
  paper calls M "the union of distributions"; the mean is what keeps every ratio finite when
  an item vanishes from T'.
- rules (eq. 4-5): R(T) holds the rules X -> y with X non-empty, support of X ∪ {y} at least
  ``min_support`` of the transactions and confidence at least ``confidence`` (the paper uses
  ρ), mined by pyfim (C. Borgelt's C implementation). J = |R(T) ∩ R(T')| / |R(T) ∪ R(T')|,
  taken as 1 when both sets are empty; a lost rule is in R(T) only, a spurious one in R(T')
  only.
"""

from __future__ import annotations

import fim
import numpy as np

from setveil.core.window import Window


def info_loss(original: Window, release: Window) -> float:
    before = original.n_occurrences
    return 0.0 if before == 0 else (before - release.n_occurrences) / before


def symmetric_kl(original: Window, release: Window) -> float:
    """S(H1||H2) of §4.1 between the item distributions of ``original`` and ``release``
    (which share a vocabulary)."""
    width = max(len(original.vocab), len(release.vocab))
    p = np.bincount(original.indices, minlength=width).astype(np.float64)
    q = np.bincount(release.indices, minlength=width).astype(np.float64)
    if p.sum() == 0 or q.sum() == 0:
        return 0.0 if p.sum() == q.sum() else float(np.log(2))
    p /= p.sum()
    q /= q.sum()
    mean = (p + q) / 2
    return 0.5 * _kl(p, mean) + 0.5 * _kl(q, mean)


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    held = p > 0
    return float(np.sum(p[held] * np.log(p[held] / q[held])))


def association_rules(window: Window, min_support: float, confidence: float) -> set[tuple[frozenset[int], int]]:
    """R(T): rules (body item ids, head item id) with support >= ``min_support`` (a share of
    the transactions, support of body ∪ head) and confidence >= ``confidence``."""
    if len(window) == 0:
        return set()
    ind, ptr = window.indices.tolist(), window.indptr.tolist()
    rows = [ind[a:b] for a, b in zip(ptr, ptr[1:])]
    found = fim.arules(rows, supp=100.0 * min_support, conf=100.0 * confidence, zmin=2, report="", mode="o")
    return {(frozenset(body), head) for head, body, *_ in found}


def rule_comparison(original: Window, release: Window, min_support: float, confidence: float) -> dict[str, float | int]:
    before = association_rules(original, min_support, confidence)
    after = association_rules(release, min_support, confidence)
    common = len(before & after)
    union = len(before | after)
    return {
        "rules_original": len(before),
        "rules_release": len(after),
        "rules_common": common,
        "rules_lost": len(before - after),
        "rules_spurious": len(after - before),
        "rules_jaccard": 1.0 if union == 0 else common / union,
    }
