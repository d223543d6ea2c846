"""The independent check of (h,k,p)-coherence (Xu et al. Definition 1) and of requirements R1, R2.

It shares none of the anonymizer's algorithm: frequent public itemsets come from pyfim, and each
cohort is recounted from the release (transactions grouped by their public items, so a
cohort's counts are sums over a few groups). The code both use is core's: the item classes of
the schema (``ItemSchema.classes``) and the comparison of a count against h (``Share``, below), so
a fault there would mislead both at once. ``Share`` has tests of its own (tests/core/test_share.py),
and the check is tested, over any item split, against an enumeration of Definition 1 that classes
each label by ``ItemSchema.class_of`` and compares in fractions (tests/coherence/bruteforce.py).

Completeness rests on one induction: if some public itemset β with |β| <= p occurs with
Sup(β) < k, take a smallest one; either β is empty (the window has fewer than k transactions)
or β = X ∪ {y} with X frequent, |X| < p and y in X's cohort, so counting the items of every
frequent X's cohort finds it. Breaches are checked on every frequent X (and the empty itemset),
since an itemset with Sup < k is already a mole.
Breach probabilities are compared in integers against h as typed (:class:`~setveil.core.share.Share`):
as floats, 1/3 and h = 0.3333333333333333 are one number, and that breach went unseen.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from setveil.core.arrays import row_groups
from setveil.core.deferred import DeferredModule
from setveil.core.errors import counted
from setveil.core.mining import ITEMSET_BUDGET, frequent_itemsets
from setveil.core.model import Violation
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.share import Share
from setveil.core.verify import removed_occurrences, suppression_basics
from setveil.core.window import Window

if TYPE_CHECKING:
    from scipy import sparse
else:
    sparse = DeferredModule("scipy.sparse")


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
        yield Violation("small-cohort", f"{counted(len(small), 'public item', ('has', 'have'))} support below k={k}",
                        (labels(int(item)),))
    # the budget stops a window of 2,000 shared public items before it lists 1.3 billion triples;
    # counted a few sizes at a time, long records are refused at the sizes that pass it (50 of
    # BMS-WebView-1's sessions joined, k=5, p=5: 2.0 s of CPU where counting every size took 13.1 s)
    frequent = frequent_itemsets(release, k, max_size=p, items=public, budget=ITEMSET_BUDGET, by_size=True)
    if not frequent:
        return
    reported: set[frozenset[int]] = set()
    for members, count, counts in _suspects(release, frequent, public, private, share, k, p):
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


def _suspects(
    release: Window,
    frequent: dict[frozenset[int], int],
    public: np.ndarray,
    private: np.ndarray,
    share: Share,
    k: int,
    p: int,
) -> Iterator[tuple[list[int], int, np.ndarray]]:
    """The frequent itemsets, in the miner's order, that :func:`_coherence` may report: each with
    its members ascending, its support and the counts of every item id in its cohort.

    A Python step per itemset (a group intersection and a sparse row sum) cost 2.7 s on connect
    at p=5 (21,699 itemsets), so cohorts are counted a block of itemsets at a time and screened
    with the loop's own conditions: a recount off the miner's support, a private item above h,
    and below size p a public item with a count in (0, k). An itemset meeting none of them yields
    nothing there and is skipped; the others go through the loop unchanged, in order.
    """
    groups = _Groups(release, public)
    itemsets = list(frequent)
    supports = np.fromiter(frequent.values(), dtype=np.int64, count=len(itemsets))
    # sized by the longest itemset mined, not p: a p past any transaction (a user's "no bound")
    # made blocks of one itemset: p=2**63-1 took 10.7 s to check 1,000 of mushroom that p=100 checks in 0.08 s
    step = groups.block_size(max(map(len, itemsets)))
    for start in range(0, len(itemsets), step):
        block, totals = itemsets[start : start + step], supports[start : start + step]
        sizes = np.fromiter(map(len, block), dtype=np.int64, count=len(block))
        flat = np.fromiter(chain.from_iterable(block), dtype=np.int64, count=int(sizes.sum()))
        # one rectangle of item ids: a short itemset repeats its last item, which changes
        # neither its cohort (an AND is idempotent) nor its smallest item
        ends = np.cumsum(sizes)
        items = flat[(ends - sizes)[:, None] + np.minimum(np.arange(sizes.max()), sizes[:, None] - 1)]
        table, cohort = groups.cohort_counts(items)
        suspect = table[cohort, items.min(axis=1)] != totals
        if private.any():
            suspect |= share.exceeded(table[:, private].max(axis=1)[cohort], totals)
        public_counts = table[:, public]
        weak: NDArray[np.bool] = np.any((public_counts > 0) & (public_counts < k), axis=1)
        suspect |= (sizes < p) & weak[cohort]
        for row in np.flatnonzero(suspect).tolist():
            yield sorted(block[row]), int(totals[row]), table[cohort[row]]


BLOCK_BYTES = 32 << 20  # about the most one block of itemsets holds at once (see _Groups.block_size)


class _Groups:
    """Transactions grouped by their public items: every cohort is a union of groups, so item
    counts in a cohort are sums of per-group counts (dense data has few distinct groups)."""

    def __init__(self, release: Window, public: np.ndarray):
        is_public = public[release.indices]
        public_ptr = np.concatenate(([0], np.cumsum(is_public, dtype=np.int64)))[release.indptr]
        group_of = row_groups(public_ptr, release.indices[is_public])
        n_groups = int(group_of.max(initial=-1)) + 1
        assign = sparse.csr_array(
            (np.ones(len(release), dtype=np.int64), (group_of, np.arange(len(release)))), shape=(n_groups, len(release))
        )
        self.counts = sparse.csr_array(assign @ release.matrix(np.int64))
        self._members = sparse.csc_array(self.counts[:, np.flatnonzero(public)])
        self._column = np.full(len(public), -1, dtype=np.int64)
        self._column[public] = np.arange(int(public.sum()))

    def block_size(self, p: int) -> int:
        """Itemsets per :meth:`cohort_counts` call within about BLOCK_BYTES. Per itemset: up to p
        rows of group bits and its cohort's, the cohort unpacked (a byte per group) and listed
        (an index and a product operand, 16 bytes per group), and its counts of every item as the
        sparse product, the dense row and the screen's copies (32 bytes per item)."""
        n_groups, n_items = self.counts.shape
        per_itemset = (p + 1) * ((n_groups + 7) // 8) + 17 * n_groups + 32 * n_items
        return max(1, BLOCK_BYTES // per_itemset)

    def cohort_counts(self, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Support of every item id within each distinct cohort of the itemsets ``items`` (one row
        of public item ids each, padded by repeats), and the row of that table for each itemset.

        A cohort's groups are the AND of its items' group bits; neighbours in the miner's prefix
        order often share a cohort (80,200 itemsets had one when long transactions repeat), so
        each distinct cohort of the block is counted once, by one sparse product with the group
        counts.
        """
        needed, position = np.unique(items, return_inverse=True)
        bits = self._bits(needed)
        cohorts = bits[position[:, 0]]
        for column in position.T[1:]:
            cohorts &= bits[column]
        # each row as one opaque value: np.unique(axis=0) compares rows field by field, which
        # doubled the old checker's time on a broken retail release (41,770 groups)
        distinct, which = np.unique(cohorts.view(np.dtype((np.void, cohorts.shape[1]))).ravel(), return_inverse=True)
        cohorts = distinct.view(np.uint8).reshape(len(distinct), -1)
        rows, groups = np.nonzero(np.unpackbits(cohorts, axis=1, count=self.counts.shape[0]))
        select = sparse.csr_array(
            (np.ones(len(rows), dtype=np.int64), (rows, groups)), shape=(len(cohorts), self.counts.shape[0])
        )
        return (select @ self.counts).toarray(), which

    def _bits(self, items: np.ndarray) -> np.ndarray:
        """The groups holding each of ``items`` (public ids) as packed bits, one row per item,
        set from the sparse group lists: a dense table of groups first would be 8 times larger."""
        members = self._members[:, self._column[items]]
        owner = np.repeat(np.arange(len(items)), np.diff(members.indptr))
        groups = members.indices
        bits = np.zeros((len(items), (self.counts.shape[0] + 7) // 8), dtype=np.uint8)
        np.bitwise_or.at(bits, (owner, groups >> 3), (0x80 >> (groups & 7)).astype(np.uint8))
        return bits
