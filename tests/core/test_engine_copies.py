"""The engine's copies of a release's details and stats: deep, as copy.deepcopy makes them."""

import copy
import enum
import sys
from collections import OrderedDict, defaultdict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.engine import independent_copies

#: what a model's details and stats hold: JSON's types, and the other containers pickle writes itself
plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda inner: (st.lists(inner) | st.dictionaries(st.text() | st.integers(), inner)
                   | st.lists(inner).map(tuple) | st.binary().map(bytearray)
                   | st.frozensets(st.integers() | st.text()) | st.sets(st.integers() | st.text())),
    max_leaves=30,
)


def _shape(value):
    """``value`` with each object's exact type beside it, so that equal shapes mean equal types too."""
    if isinstance(value, dict):
        return type(value), [(_shape(key), _shape(item)) for key, item in value.items()]
    if isinstance(value, (list, tuple)):
        return type(value), [_shape(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return type(value), sorted(map(repr, value))
    return type(value), value


def _mutables(value):
    """The ids of the mutable objects reachable from ``value``."""
    found, todo = set(), [value]
    while todo:
        item = todo.pop()
        if isinstance(item, (dict, list, set, bytearray, np.ndarray)):
            if id(item) in found:
                continue
            found.add(id(item))
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
    return found


@settings(max_examples=200, deadline=None)
@given(plain)
def test_copies_of_plain_data_are_deepcopys_and_share_nothing(value):
    copies = independent_copies(value, 3)
    assert [_shape(made) for made in copies] == [_shape(copy.deepcopy(value))] * 3
    reached = [_mutables(made) for made in [value, *copies]]
    assert sum(map(len, reached)) == len(set().union(*reached))


def test_shared_and_cyclic_objects_stay_so():
    shared, cyclic = ["a"], {"n": 1}
    cyclic["self"] = cyclic
    for value in ({"first": shared, "second": shared, "cyclic": cyclic},
                  {"first": shared, "second": shared, "cyclic": cyclic, "array": np.zeros(2)}):
        made, = independent_copies(value, 1)
        assert made["first"] is made["second"] and made["first"] is not shared
        assert made["cyclic"]["self"] is made["cyclic"] and made["cyclic"] is not cyclic


class Counted:
    """Counts the deep copies made of it (a plugin's own class in its details)."""

    copies = 0

    def __deepcopy__(self, memo):
        Counted.copies += 1
        return Counted()


class Level(enum.IntEnum):
    LOW = 1


def test_other_types_are_copied_by_deepcopy_whole():
    array = np.arange(4)
    array.flags.writeable = False
    ordered = OrderedDict(b=[1], a=[2])
    default = defaultdict(list, {"a": [1]})
    value = {"array": array, "ordered": ordered, "default": default, "level": Level.LOW, "counted": Counted(),
             "plain": [["a"]]}
    Counted.copies = 0
    copies = independent_copies(value, 2)
    assert Counted.copies == 2
    for made in copies:
        assert made["array"].flags.writeable and not np.shares_memory(made["array"], array)
        assert made["array"].tolist() == [0, 1, 2, 3]
        assert type(made["ordered"]) is OrderedDict and list(made["ordered"]) == ["b", "a"]
        assert made["default"].default_factory is list and made["default"] == {"a": [1]}
        assert type(made["level"]) is Level and isinstance(made["counted"], Counted)
    assert copies[0]["plain"] is not copies[1]["plain"] and copies[0]["plain"][0] is not value["plain"][0]


def test_a_nesting_deeper_than_the_c_pickler_goes_is_copied_as_deepcopy_copies_it():
    # the C pickler of Python 3.12 stops at 748 levels whatever the recursion limit, which
    # deepcopy follows (pickle gives up a RecursionError, and deepcopy copies it)
    value = leaf = []
    for _ in range(2000):
        value = [value]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 6000))
    try:
        made, = independent_copies(value, 1)
    finally:
        sys.setrecursionlimit(limit)
    for _ in range(2000):
        assert type(made) is list and len(made) == 1
        made = made[0]
    assert made == [] and made is not leaf
