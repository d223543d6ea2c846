"""The independent check of (h,k,p)-coherence (Xu et al. Definition 1) and of requirements R1, R2.

It shares nothing with the anonymizer: frequent public itemsets come from pyfim, and each
cohort is recounted from the release (transactions grouped by their public items, so a
cohort's counts are sums over a few groups). Completeness rests on one induction: if some public
itemset β with |β| <= p occurs with Sup(β) < k, take a smallest one; either β is empty (the
window has fewer than k transactions) or β = X ∪ {y} with X frequent, |X| < p and y in X's
cohort, so counting the items of every frequent X's cohort finds it. Breaches are checked on
every frequent X (and the empty itemset), since an itemset with Sup < k is already a mole.
Breach probabilities are compared in integers against h as typed (:class:`~setveil.core.share.Share`):
as floats, 1/3 and h = 0.3333333333333333 are one number, and that breach went unseen.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import sparse

from setveil.core.mining import frequent_itemsets
from setveil.core.model import Violation
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.share import Share
from setveil.core.verify import removed_occurrences, suppression_basics
from setveil.core.window import Window


def coherence_violations(
    original: Window, release: Window, schema: ItemSchema, h: float, k: int, p: int
) -> Iterator[Violation]:
    aligned = yield from suppression_basics(original, release)
    if aligned is None:
        return
    original, release = aligned
    classes = schema.classes(original.vocab)
    yield from removed_occurrences(
        original, release, classes != ItemClass.PUBLIC, "non-public-removed", "private or neutral items (R1)"
    )
    yield from _coherence(release, classes, h, k, p)


def _coherence(release: Window, classes: np.ndarray, h: float, k: int, p: int) -> Iterator[Violation]:
    n = len(release)
    if n == 0:
        return
    labels = release.vocab.label
    if n < k:
        yield Violation("small-cohort", f"the empty itemset has support {n} < k={k}: the window itself is too small")
        return
    public = classes == ItemClass.PUBLIC
    private = classes == ItemClass.PRIVATE
    support = release.supports
    worst = int(np.argmax(np.where(private, support, -1))) if private.any() else -1
    share = Share.of(h)
    if worst >= 0 and share.exceeded(int(support[worst]), n):
        yield Violation(
            "breach",
            f"a private item is in {support[worst]}/{n} of the transactions > h={h} (no public knowledge needed)",
            target=labels(worst),
        )
    small = np.flatnonzero(public & (support > 0) & (support < k))
    for item in small[:1]:
        yield Violation("small-cohort", f"{len(small)} public item(s) have support below k={k}", (labels(int(item)),))
    frequent = frequent_itemsets(release, k, max_size=p, items=public)
    if not frequent:
        return
    groups = _Groups(release, public)
    reported: set[frozenset[int]] = set()
    for itemset, count in frequent.items():
        members = sorted(itemset)
        counts = groups.cohort_counts(members)
        if counts[members[0]] != count:
            yield Violation("checker", "pyfim and the recount disagree on a support", tuple(sorted(labels(i) for i in members)))
            continue
        if private.any():
            top = int(np.argmax(np.where(private, counts, -1)))
            if share.exceeded(int(counts[top]), count):
                yield Violation(
                    "breach",
                    f"a public itemset of size {len(members)} has breach probability {counts[top]}/{count} > h={h}",
                    tuple(sorted(labels(i) for i in members)),
                    target=labels(top),
                )
        if len(members) < p:
            weak = np.flatnonzero(public & (counts > 0) & (counts < k))
            for item in weak.tolist():
                mole = frozenset(members + [item])
                if mole in reported:
                    continue
                reported.add(mole)
                yield Violation(
                    "small-cohort",
                    f"a public itemset of size {len(mole)} has support {counts[item]} < k={k}",
                    tuple(sorted(labels(i) for i in mole)),
                )
                break


RECENT_COHORTS = 64


class _Groups:
    """Transactions grouped by their public items: every cohort is a union of groups, so item
    counts in a cohort are sums of per-group counts (dense data has few distinct groups)."""

    def __init__(self, release: Window, public: np.ndarray):
        keys: dict[bytes, int] = {}
        ind, ptr = release.indices, release.indptr.tolist()
        is_public = public[ind]
        group_of = np.empty(len(release), dtype=np.int64)
        for position, (start, stop) in enumerate(zip(ptr, ptr[1:])):
            row = ind[start:stop]
            key = row[is_public[start:stop]].tobytes()
            group_of[position] = keys.setdefault(key, len(keys))
        n_groups = len(keys)
        assign = sparse.csr_array(
            (np.ones(len(release), dtype=np.int64), (group_of, np.arange(len(release)))), shape=(n_groups, len(release))
        )
        self.counts = sparse.csr_array(assign @ release.matrix(np.int64))
        members = sparse.csc_array(self.counts[:, np.flatnonzero(public)])
        self._public = np.flatnonzero(public)
        self._column = np.full(len(public), -1, dtype=np.int64)
        self._column[self._public] = np.arange(len(self._public))
        self._ptr, self._groups = members.indptr, members.indices
        self._recent: dict[bytes, np.ndarray] = {}

    def cohort_counts(self, items: list[int]) -> np.ndarray:
        """Support within the cohort of ``items`` of every item id."""
        column = self._column[items[0]]
        groups = self._groups[self._ptr[column] : self._ptr[column + 1]]
        for item in items[1:]:
            column = self._column[item]
            groups = np.intersect1d(groups, self._groups[self._ptr[column] : self._ptr[column + 1]], assume_unique=True)
        # Itemsets come in the miner's prefix order, and neighbours often have the same cohort
        # (all of them when long transactions repeat: 80,200 itemsets, one cohort, 19 s before);
        # the counts of the last few cohorts are kept, a bounded number of dense rows.
        key = groups.tobytes()
        counts = self._recent.get(key)
        if counts is None:
            counts = np.asarray(self.counts[groups].sum(axis=0)).ravel()
            if len(self._recent) >= RECENT_COHORTS:
                del self._recent[next(iter(self._recent))]
            self._recent[key] = counts
        return counts
