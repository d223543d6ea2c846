"""core/ncp.py covering_nodes searches the covers of a block of occurrences at a time (a window of
a million transactions held its temporaries at 8 bytes an occurrence each): at every block size,
and across blocks that cut a transaction, each occurrence's cover is the released node of its
transaction of largest preorder id not after its leaf when that node holds the leaf, else -1."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core import ncp as ncp_module
from setveil.core.ncp import covering_nodes
from setveil.core.window import Window

from .examples import FIGURE_2, hierarchy

LABELS = ["a1", "a2", "b1", "b2", "A", "B", "ALL", "zz"]


@st.composite
def releases(draw):
    """A window over Fig. 2's leaves (and a label no node has) and a release of any labels per
    transaction: valid generalizations, labels that cover nothing of theirs, and unknown ones."""
    rows = draw(st.lists(st.lists(st.sampled_from(["a1", "a2", "b1", "b2", "zz"]), min_size=0, max_size=5,
                                  unique=True), min_size=1, max_size=12))
    released = [draw(st.lists(st.sampled_from(LABELS), max_size=4, unique=True)) for _ in rows]
    return Window.from_transactions(rows), Window.from_transactions(released)


def brute_force(original: Window, release: Window, h) -> list[int]:
    covers = []
    for items, labels in zip(original, release):
        nodes = [h.index[label] for label in labels if label in h.index]
        for item in items:
            leaf = h.index.get(item, -1)
            before = [node for node in nodes if node <= leaf]
            node = max(before, default=-1)
            covers.append(node if leaf >= 0 and node >= 0 and bool(h.is_ancestor_or_self(node, leaf)) else -1)
    return covers


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(releases(), st.integers(1, 7))
def test_covers_in_blocks_are_each_occurrences_own(monkeypatch, pair, block):
    original, release = pair
    h = hierarchy(FIGURE_2)
    monkeypatch.setattr(ncp_module, "COVER_BLOCK", block)
    blocked = covering_nodes(original, release, h).tolist()
    monkeypatch.setattr(ncp_module, "COVER_BLOCK", 1 << 20)
    assert blocked == covering_nodes(original, release, h).tolist() == brute_force(original, release, h)
