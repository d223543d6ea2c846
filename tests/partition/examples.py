"""The running examples of He & Naughton VLDB'09: Table 1 with the hierarchy of Fig. 1, and
Table 2 with the hierarchy of Fig. 2."""

from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window

# Fig. 1 as far as Table 1 uses it: |I| = 4 (NCP(Alcohol) = 2/4 in §3.2).
FIGURE_1 = [("Alcohol", "ALL"), ("Health Care", "ALL"), ("Beer", "Alcohol"), ("Wine", "Alcohol"),
            ("Diapers", "Health Care"), ("Pregnancy Test", "Health Care")]
TABLE_1A = [["Beer", "Diapers"], ["Wine", "Diapers", "Pregnancy Test"], ["Beer", "Wine", "Pregnancy Test"],
            ["Beer", "Wine", "Diapers", "Pregnancy Test"]]
TABLE_1B = [["Alcohol", "Health Care"], ["Alcohol", "Health Care"], ["Beer", "Wine", "Health Care"],
            ["Beer", "Wine", "Health Care"]]

FIGURE_2 = [("A", "ALL"), ("B", "ALL"), ("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")]
TABLE_2 = {  # TID: (original, local re-coding 2-anonymity, global re-coding 2^2-anonymity)
    "T1": (["a1"], ["A"], ["a1"]),
    "T2": (["a1", "a2"], ["A"], ["a1", "a2"]),
    "T3": (["b1", "b2"], ["b1", "b2"], ["B"]),
    "T4": (["b1", "b2"], ["b1", "b2"], ["B"]),
    "T5": (["a1", "a2", "b2"], ["a1", "a2", "B"], ["a1", "a2", "B"]),
    "T6": (["a1", "a2", "b2"], ["a1", "a2", "B"], ["a1", "a2", "B"]),
    "T7": (["a1", "a2", "b1", "b2"], ["a1", "a2", "B"], ["a1", "a2", "B"]),
}


def hierarchy(edges) -> Hierarchy:
    return Hierarchy.from_edges([(child, parent, line) for line, (child, parent) in enumerate(edges, start=1)])


def window(rows) -> Window:
    return Window.from_transactions(rows)


def as_sets(release: Window) -> list[frozenset[str]]:
    return [frozenset(row) for row in release]
