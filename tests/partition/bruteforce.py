"""Slow, obviously correct oracles for the property tests: leaf sets by walking the edges,
equivalence classes with frozensets, k^m supports by enumerating every subset."""

from collections import Counter, defaultdict
from itertools import combinations

from hypothesis import strategies as st

from setveil.core.hierarchy import Hierarchy


def leaf_sets(h: Hierarchy) -> dict[str, frozenset[str]]:
    children = defaultdict(list)
    for child, parent in h.edges():
        children[parent].append(child)
    out: dict[str, frozenset[str]] = {}
    stack = [(h.labels[0], False)]
    while stack:
        node, expanded = stack.pop()
        if not children[node]:
            out[node] = frozenset([node])
        elif expanded:
            out[node] = frozenset().union(*(out[c] for c in children[node]))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children[node])
    return out


def is_generalization(original, released, leaves: dict[str, frozenset[str]]) -> bool:
    """Every released label covers an item of its transaction; every item is covered exactly once."""
    for before, after in zip(original, released, strict=True):
        if any(label not in leaves or not leaves[label] & set(before) for label in after):
            return False
        if any(sum(item in leaves[label] for label in after) != 1 for item in before):
            return False
    return True


def is_k_anonymous(released, k: int) -> bool:
    counts = Counter(frozenset(row) for row in released)
    return all(count >= k for count in counts.values())


def is_km_anonymous(released, k: int, m: int) -> bool:
    support: Counter = Counter()
    for row in released:
        for size in range(1, m + 1):
            support.update(frozenset(c) for c in combinations(sorted(row), size))
    return all(count >= k for count in support.values())


def fewest_consistent(original, released, leaves: dict[str, frozenset[str]], m: int) -> int | None:
    """Terrovitis et al.'s attacker over leaves, not labels: for every set K of at most m items of
    an original transaction, the released transactions K is consistent with (each item of K
    covered by one of their labels), fewest first; None when no transaction has items."""
    covered = [frozenset().union(*(leaves[label] for label in row)) for row in released]
    return min((sum(1 for cover in covered if cover.issuperset(known))
                for row in original for size in range(1, min(m, len(row)) + 1)
                for known in combinations(sorted(row), size)), default=None)


ALPHABET = [str(i) for i in range(12)]


@st.composite
def hierarchies(draw, labels=tuple(ALPHABET)):
    """A random tree over ``labels``: random sibling order, runs of 1-4 nodes under new parents
    level by level; a run of one sometimes gets a one-child parent (a chain, as files may have)."""
    level = list(draw(st.permutations(list(labels))))
    edges = []
    fresh = 0
    while len(level) > 1:
        upper = []
        position = 0
        while position < len(level):
            run = level[position : position + draw(st.integers(1, 4))]
            position += len(run)
            if len(run) == 1 and not draw(st.booleans()):
                upper.append(run[0])
                continue
            parent = f"g{fresh}"
            fresh += 1
            edges.extend((child, parent, 0) for child in run)
            upper.append(parent)
        if len(upper) == len(level):  # every run stayed alone: force progress
            parent = f"g{fresh}"
            fresh += 1
            edges.extend((child, parent, 0) for child in upper)
            upper = [parent]
        level = upper
    return Hierarchy.from_edges(edges)


def transactions(max_transactions: int = 30, max_length: int = 6):
    return st.lists(st.lists(st.sampled_from(ALPHABET), max_size=max_length, unique=True), max_size=max_transactions)
