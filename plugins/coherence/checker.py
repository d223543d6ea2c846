"""The independent check of (h,k,p)-coherence (Xu et al. Definition 1) and of requirements R1, R2.

It shares nothing with the anonymizer: frequent public itemsets come from pyfim, and each
cohort is recounted from the release. Completeness rests on one induction: if some public
itemset β with |β| <= p occurs with Sup(β) < k, take a smallest one; either β is empty (the
window has fewer than k transactions) or β = X ∪ {y} with X frequent, |X| < p and y in X's
cohort, so counting the items of every frequent X's cohort finds it. Breaches are checked on
every frequent X (and the empty itemset), since an itemset with Sup < k is already a mole.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from setveil.core.arrays import concat_ranges
from setveil.core.mining import frequent_itemsets
from setveil.core.model import Violation
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.window import Window


def coherence_violations(
    original: Window, release: Window, schema: ItemSchema, h: float, k: int, p: int
) -> Iterator[Violation]:
    if len(original) != len(release):
        yield Violation("shape", f"release has {len(release)} transactions, original {len(original)}")
        return
    vocab = original.vocab
    if release.vocab is not vocab:
        vocab = vocab.copy()
        original = Window(vocab, original.indptr, original.indices, original.tids)
        release = release.relabel(vocab)
    classes = schema.classes(vocab)
    yield from _transformation(original, release, classes)
    yield from _coherence(release, classes, h, k, p)


def _keys(window: Window) -> np.ndarray:
    return window.owners() * len(window.vocab) + window.indices


def _transformation(original: Window, release: Window, classes: np.ndarray) -> Iterator[Violation]:
    before, after = _keys(original), _keys(release)
    added = ~np.isin(after, before)
    if added.any():
        first = int(np.flatnonzero(added)[0])
        yield Violation(
            "added-item",
            f"{int(added.sum())} released occurrence(s) are not in the original transaction (R2)",
            (release.vocab.label(int(release.indices[first])),),
            int(release.owners()[first]),
        )
    kept_class = classes[original.indices] != ItemClass.PUBLIC
    missing = kept_class & ~np.isin(before, after)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        yield Violation(
            "non-public-removed",
            f"{int(missing.sum())} occurrence(s) of private or neutral items were removed (R1)",
            (original.vocab.label(int(original.indices[first])),),
            int(original.owners()[first]),
        )


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
    if worst >= 0 and support[worst] / n > h:
        yield Violation(
            "breach",
            f"a private item is in {support[worst]}/{n} of the transactions > h={h} (no public knowledge needed)",
            target=labels(worst),
        )
    small = np.flatnonzero(public & (support > 0) & (support < k))
    for item in small[:1]:
        yield Violation("small-cohort", f"{len(small)} public item(s) have support below k={k}", (labels(int(item)),))
    frequent = frequent_itemsets(release, k, max_size=p, items=public)
    ind, ptr = release.indices, release.indptr
    inv_ptr, inv_rows = release.inverted
    reported: set[frozenset[int]] = set()
    for itemset, count in frequent.items():
        members = sorted(itemset)
        rows = inv_rows[inv_ptr[members[0]] : inv_ptr[members[0] + 1]]
        for item in members[1:]:
            rows = np.intersect1d(rows, inv_rows[inv_ptr[item] : inv_ptr[item + 1]], assume_unique=True)
        if len(rows) != count:
            yield Violation("checker", "pyfim and the recount disagree on a support", tuple(sorted(labels(i) for i in members)))
            continue
        counts = np.bincount(ind[concat_ranges(ptr[rows], ptr[rows + 1])], minlength=len(classes))
        if private.any():
            top = int(np.argmax(np.where(private, counts, -1)))
            if counts[top] / count > h:
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

