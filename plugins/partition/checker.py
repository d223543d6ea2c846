"""Independent checks of k-anonymity and k^m-anonymity of generalized releases
(He & Naughton VLDB'09 Definitions 2-3; Terrovitis et al. VLDB'08 Definition of k^m-anonymity).

That a release generalizes its original (Definition 3) the core checks first, for every
generalizing model (``setveil.core.generalization``). Nothing here reuses the anonymizers'
bookkeeping: equivalence classes are counted from the released rows' bytes; k^m-anonymity is checked with
pyfim (C. Borgelt's FP-growth) through an identity: for every size i <= m, the supports of the
frequent (>= k) i-itemsets sum to the number of i-subsets of all released transactions exactly
when every i-itemset that occurs is frequent. A violating itemset is then located by counting,
in the cohort of each frequent (i-1)-itemset, the other labels.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import fim
import numpy as np

from setveil.core.arrays import concat_ranges, row_groups
from setveil.core.errors import counted
from setveil.core.mining import pattern_spectrum, within_budget
from setveil.core.model import Violation
from setveil.core.window import Window

#: the largest count a double holds exactly, and so the most itemset occurrences of one size the
#: identity below can compare
EXACT_COUNTS = 2**53


def kanonymity_violations(release: Window, k: int, limit: int = 10) -> Iterator[Violation]:
    """Every released transaction is identical to at least k-1 others (Definition 2)."""
    classes = row_groups(release.indptr, release.indices)
    sizes = np.bincount(classes, minlength=1)
    small = np.flatnonzero(sizes[classes] < k).tolist()
    reported: set[int] = set()
    for position in small:
        if classes[position] in reported:
            continue
        reported.add(classes[position])
        yield Violation(
            "small-class",
            f"a class of {counted(int(sizes[classes[position]]), 'identical released transaction')} is smaller than "
            f"k={k} ({counted(len(small), 'transaction', ('is', 'are'))} in such classes)",
            transaction=position,
        )
        if len(reported) >= limit:
            return


def km_violations(release: Window, k: int, m: int) -> Iterator[Violation]:
    """Every itemset of at most m released labels that occurs is held by >= k transactions."""
    ptr, ind = release.indptr.tolist(), release.indices.tolist()
    rows = [ind[a:b] for a, b in zip(ptr, ptr[1:]) if b > a]
    if not rows:
        return
    # pyfim 6.28 leaves out the itemsets made only of items that occur in every transaction;
    # one empty transaction more changes no support and makes it report them.
    rows.append([])
    lengths = np.bincount(release.lengths)
    # no itemset is longer than the longest transaction (QA: m=2**63-1 counted sizes for hours)
    largest = min(m, len(lengths) - 1)
    # no support reaches len(rows) (one row is the empty one), so that threshold finds what k does;
    # pyfim takes the support as a C int and crashes the process on one past 2**31 - 1 (QA: k=2**31)
    threshold = min(k, len(rows))
    spectrum = pattern_spectrum(rows, threshold, largest)
    for size in range(1, largest + 1):
        subsets = sum(int(count) * math.comb(length, size) for length, count in enumerate(lengths.tolist()))
        # pyfim counts in doubles, exact only below 2**53: past it a count rounded up by a few
        # hid as many occurrences of a unique itemset (QA: a unique 23-itemset passed at k=2)
        within_budget(subsets, EXACT_COUNTS, threshold, f"{size}-itemset occurrences to count exactly")
        frequent = sum(int(supp * count) for z, supp, count in spectrum if z == size)
        if frequent != subsets:
            yield _failing_itemset(release, rows, k, size, subsets - frequent)
            return


def _failing_itemset(release: Window, rows: list[list[int]], k: int, size: int, instances: int) -> Violation:
    summary = f"{counted(instances, 'occurrence')} of {size}-itemsets with support below k={k}"
    labels = release.vocab.label
    support = release.supports
    if size == 1:
        item = int(np.flatnonzero((support > 0) & (support < k))[0])
        return Violation("small-support", f"{summary}; one has support {support[item]}", (labels(item),))
    inv_ptr, inv_rows = release.inverted
    ptr, ind = release.indptr, release.indices
    for itemset, _ in fim.fpgrowth(rows, target="s", supp=-k, zmin=size - 1, zmax=size - 1, report="a"):
        members = sorted(itemset)
        cohort = inv_rows[inv_ptr[members[0]] : inv_ptr[members[0] + 1]]
        for item in members[1:]:
            cohort = np.intersect1d(cohort, inv_rows[inv_ptr[item] : inv_ptr[item + 1]], assume_unique=True)
        counts = np.bincount(ind[concat_ranges(ptr[cohort], ptr[cohort + 1])], minlength=len(release.vocab))
        counts[members] = 0
        weak = np.flatnonzero((counts > 0) & (counts < k))
        if len(weak):
            found = sorted([*members, int(weak[0])])
            return Violation(
                "small-support",
                f"{summary}; one has support {counts[weak[0]]}",
                tuple(labels(i) for i in found),
            )
    return Violation("small-support", summary)
