"""LeafWindow.of holds the leaf node ids in the dtype of the hierarchy's node count (int32 while
every node id fits it), whatever the window holds: a hierarchy one node past the int32 bound gives
int64 ids even where the window's own ids and the leaves it holds would fit."""

import pytest

from setveil.core import arrays
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window
from setveil.plugins.partition.recoding import LeafWindow

HIERARCHY = Hierarchy.balanced([f"i{n}" for n in range(50)], 5)
WINDOW = Window.from_transactions([["i1", "i7"], ["i49"], []])


@pytest.mark.parametrize("bound, dtype", [(len(HIERARCHY), "int32"), (len(HIERARCHY) - 1, "int64"), (2, "int64")])
def test_the_leaves_are_held_in_the_dtype_of_the_hierarchys_node_count(monkeypatch, bound, dtype):
    monkeypatch.setattr(arrays, "INT32_IDS", bound)
    leaves = LeafWindow.of(WINDOW, HIERARCHY)
    assert leaves.nodes.dtype == dtype
    assert [HIERARCHY.labels[node] for node in leaves.nodes.tolist()] == ["i1", "i7", "i49"]
