"""Databases for the audit tests: Theorem 1's database of a graph (Mielikäinen, 2004, §3)."""

from __future__ import annotations

from setveil.core.window import Window

#: a graph on six vertices whose only automorphism is the identity
ASYMMETRIC = [(0, 4), (0, 5), (1, 4), (2, 3), (2, 5), (4, 5)]
#: the cycle on four vertices: eight automorphisms
SQUARE = [(0, 1), (1, 2), (2, 3), (0, 3)]


def graph_database(edges) -> Window:
    """Theorem 1's D_G: a transaction {A, B} per edge, and max-degree - deg(A) copies of {A}
    per vertex, so every vertex has the same frequency and every edge another."""
    vertices = sorted({v for edge in edges for v in edge})
    degree = {v: sum(v in edge for edge in edges) for v in vertices}
    top = max(degree.values())
    rows = [[f"v{a}", f"v{b}"] for a, b in edges]
    for v in vertices:
        rows += [[f"v{v}"]] * (top - degree[v])
    return Window.from_transactions(rows)


def sigma_of(window: Window) -> float:
    """A threshold that keeps every itemset of D_G held by one transaction or more."""
    return 1 / len(window)
