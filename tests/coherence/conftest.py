import pytest

from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window

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
