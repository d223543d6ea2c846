import pytest

from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence.moles import MoleSearch, find_minimal_moles

# Figure 1 of Xu et al.: activities are public, the medical history private.
FIGURE_1 = [
    ["a", "c", "d", "f", "g", "Diabetes"],
    ["a", "b", "c", "f", "Hepatitis"],
    ["b", "d", "f", "x", "Hepatitis"],
    ["b", "c", "g", "y", "z", "HIV"],
    ["a", "c", "f", "g", "HIV"],
]
PRIVATE = frozenset({"Diabetes", "Hepatitis", "HIV"})


@pytest.fixture
def figure1() -> Window:
    return Window.from_transactions(FIGURE_1)


@pytest.fixture
def schema() -> ItemSchema:
    return ItemSchema(private=PRIVATE)


def coherence(policy=None, h="0.8", k="2", p="2", il="support", schema=None):
    schema = schema or ItemSchema(private=PRIVATE)
    return get_registry().configure("coherence", policy, {"h": h, "k": k, "p": p, "il": il}, Context(schema=schema))


def searched(rows, schema: ItemSchema, h: float, k: int, p: int) -> tuple[set[frozenset[str]], MoleSearch]:
    """The minimal moles of ``rows`` that the search finds (size 1 too), as sets of labels, and the search."""
    window = Window.from_transactions(rows)
    classes = schema.classes(window.vocab)
    search = find_minimal_moles(window, classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE, h, k, p)
    label = window.vocab.label
    found = {frozenset([label(int(i))]) for i in search.size1}
    for level in search.moles:
        found |= {frozenset(label(int(i)) for i in row) for row in level}
    return found, search
