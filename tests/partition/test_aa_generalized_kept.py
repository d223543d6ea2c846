"""AA's generalized data is found once per state of the cut: a size's last round (which fixes
nothing), the longest transaction and the next size's first round read the data as it was left,
and any generalization makes it be found again, equal to finding it afresh."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition import apriori
from setveil.plugins.partition.apriori import GlobalCut, apriori_anonymize
from setveil.plugins.partition.recoding import LeafWindow

from .balanced import rows_under_a_hierarchy


def _afresh(cut: GlobalCut) -> list[list[int]]:
    leaves = cut.leaves
    return [sorted({int(cut.image[leaf]) for leaf in leaves.nodes[leaves.indptr[t]:leaves.indptr[t + 1]]})
            for t in range(len(leaves))]


def _as_rows(indptr: np.ndarray, nodes: np.ndarray) -> list[list[int]]:
    return [nodes[indptr[t]:indptr[t + 1]].tolist() for t in range(len(indptr) - 1)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows_under_a_hierarchy(), st.lists(st.integers(0, 1000), max_size=6))
def test_the_generalized_data_follows_every_generalization(drawn, picks):
    rows, hierarchy = drawn
    cut = GlobalCut(LeafWindow.of(Window.from_transactions(rows), hierarchy), hierarchy)
    assert _as_rows(*cut.generalized()) == _afresh(cut)
    for pick in picks:
        cut.generalize(pick % len(hierarchy))
        assert _as_rows(*cut.generalized()) == _afresh(cut)
        assert _as_rows(*cut.generalized()) == _afresh(cut)


def test_aa_finds_the_generalized_data_once_per_state_of_the_cut(monkeypatch):
    # Table 2 of He & Naughton over Fig. 2's hierarchy, grown: 2^2-anonymity needs rounds at both sizes
    edges = [(f"g{g}", "ALL") for g in range(4)] + [(f"i{x}", f"g{x % 4}") for x in range(16)]
    hierarchy = Hierarchy.from_edges([(child, parent, line) for line, (child, parent) in enumerate(edges, start=1)])
    rows = [[f"i{x}", f"i{(3 * x + 1) % 16}", f"i{(5 * x + 2) % 16}"] for x in range(16)] + [["i0", "i1"]] * 3
    leaves = LeafWindow.of(Window.from_transactions(rows), hierarchy)
    found = []
    real = apriori.sorted_unique
    monkeypatch.setattr(apriori, "sorted_unique", lambda keys: found.append(1) or real(keys))
    recoding = apriori_anonymize(leaves, hierarchy, 2, 3)
    rounds = recoding.stats["aa_rounds_by_size"]
    assert sum(rounds.values()) >= 2
    # the first cut, then one per round, each of which changed it
    assert len(found) == 1 + sum(rounds.values())
