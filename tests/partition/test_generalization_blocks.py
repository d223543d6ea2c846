"""core/generalization.py searches the items' and the released labels' keys a block at a time (two
int64 searches over every occurrence of a million transactions set the peak of verifying them): at
every block size, and across blocks that cut a transaction, each violation is counted and placed
as when one block holds everything, and as walking each item up Fig. 2 finds."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core import generalization as generalization_module
from setveil.core.generalization import generalization_violations
from setveil.core.window import Window

from .examples import FIGURE_2, hierarchy

ITEMS = ["a1", "a2", "b1", "b2", "A", "ALL", "zz"]
LABELS = ["a1", "a2", "b1", "b2", "A", "B", "ALL", "yy"]


@st.composite
def releases(draw):
    """Rows of Fig. 2's nodes (and an item no node has), and a release of any labels per
    transaction: valid generalizations, labels that cover nothing of theirs, labels covering an
    item twice, items left uncovered and labels no node has."""
    rows = draw(st.lists(st.lists(st.sampled_from(ITEMS), max_size=5, unique=True), min_size=1, max_size=12))
    released = [draw(st.lists(st.sampled_from(LABELS), max_size=4, unique=True)) for _ in rows]
    original = Window.from_transactions(rows)
    return original, Window.from_transactions(released, vocab=original.vocab.copy())


def walked_up(original: Window, release: Window, h) -> list[tuple]:
    """Each rule's count and first transaction (and label), from every item's ancestors."""
    def above(label):
        node = h.index[label]
        nodes = {node}
        while h.parent[node] >= 0:
            node = int(h.parent[node])
            nodes.add(node)
        return nodes

    rows, released = [list(row) for row in original], [list(row) for row in release]
    unknown = [(t, label) for t, labels in enumerate(released) for label in labels if label not in h.index]
    missing = [item for row in rows for item in row if item not in h.index]
    covers = [(t, sum(h.index[label] in above(item) for label in released[t] if label in h.index))
              for t, row in enumerate(rows) for item in row if item in h.index]
    foreign = sorted((t, h.index[label], label) for t, labels in enumerate(released) for label in labels
                     if label in h.index and not any(h.index[label] in above(item) for item in rows[t]
                                                     if item in h.index))
    found = []
    if unknown:
        found.append(("unknown-label", len(unknown), unknown[0][0], (unknown[0][1],)))
    if missing:
        found.append(("unknown-item", len(missing), None, ()))
    for rule, where in (("uncovered-item", [t for t, c in covers if c == 0]),
                        ("overlapping-labels", [t for t, c in covers if c > 1])):
        if where:
            found.append((rule, len(where), min(where), ()))
    if foreign:
        found.append(("foreign-label", len(foreign), foreign[0][0], (foreign[0][2],)))
    return found


def checked(original: Window, release: Window, h) -> list[tuple]:
    return [(v.rule, int(v.summary.split()[0]), v.transaction, v.itemset)
            for v in generalization_violations(original, release, h)]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(releases(), st.integers(1, 7))
def test_violations_found_in_blocks_are_those_of_one_block(monkeypatch, pair, block):
    original, release = pair
    h = hierarchy(FIGURE_2)
    monkeypatch.setattr(generalization_module, "SEARCH_BLOCK", block)
    blocked = list(generalization_violations(original, release, h))
    monkeypatch.setattr(generalization_module, "SEARCH_BLOCK", 1 << 20)
    assert blocked == list(generalization_violations(original, release, h))
    monkeypatch.setattr(generalization_module, "SEARCH_BLOCK", block)
    assert checked(original, release, h) == walked_up(original, release, h)


def test_the_first_uncovered_item_is_named_when_an_earlier_block_holds_only_covered_ones(monkeypatch):
    # blocks of 2 items: the first holds T0's two covered items, the second T1's uncovered b1 and
    # T2's, so the transaction named comes from the second block's first find
    monkeypatch.setattr(generalization_module, "SEARCH_BLOCK", 2)
    original = Window.from_transactions([["a1", "a2"], ["b1"], ["b2"]])
    release = Window.from_transactions([["A"], [], []], vocab=original.vocab.copy())
    [violation] = generalization_violations(original, release, hierarchy(FIGURE_2))
    assert (violation.rule, violation.summary.split()[0], violation.transaction) == ("uncovered-item", "2", 1)
