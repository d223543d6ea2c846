"""Definition 1 of Xu et al. evaluated by enumeration, for cross-checking on small data."""

from fractions import Fraction
from itertools import combinations

from setveil.core.schema import ItemClass


def cohorts(rows, public, p):
    """Every public itemset of size 0..p with support > 0, mapped to its cohort (row indices)."""
    out = {frozenset(): list(range(len(rows)))} if rows else {}
    for index, row in enumerate(rows):
        items = sorted(i for i in row if i in public)
        for size in range(1, min(p, len(items)) + 1):
            for beta in combinations(items, size):
                out.setdefault(frozenset(beta), []).append(index)
    return out


def is_mole(rows, cohort, private, h, k):
    sup = len(cohort)
    if sup == 0:
        return False
    if sup < k:
        return True
    counts = {}
    for index in cohort:
        for item in rows[index]:
            if item in private:
                counts[item] = counts.get(item, 0) + 1
    typed = Fraction(repr(float(h)))  # h as the user typed it, compared exactly
    return any(Fraction(c, sup) > typed for c in counts.values())


def moles(rows, schema, h, k, p):
    labels = {i for r in rows for i in r}
    public = {i for i in labels if schema.class_of(i) == ItemClass.PUBLIC}
    private = {i for i in labels if schema.class_of(i) == ItemClass.PRIVATE}
    return {beta for beta, cohort in cohorts(rows, public, p).items() if is_mole(rows, cohort, private, h, k)}


def minimal_moles(rows, schema, h, k, p):
    found = moles(rows, schema, h, k, p)
    return {m for m in found if not any(other < m for other in found)}


def is_coherent(rows, schema, h, k, p):
    return not moles(rows, schema, h, k, p)
