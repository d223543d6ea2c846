"""The child toward a leaf read from an ancestor table of more cells than 16 bits number (20,000
leaves under a fan-out of 5): for every node but the root, its parent's child toward the last
leaf of its subtree is that node, as the search over the edges finds it too."""

import numpy as np
import pytest

from setveil.core import hierarchy as hierarchy_module
from setveil.core.hierarchy import Hierarchy


def test_every_nodes_parent_leads_to_it_in_a_table_past_16_bits():
    h = Hierarchy.balanced([f"i{n}" for n in range(20_000)], 5)
    assert h.ancestor_table is not None and h.ancestor_table.size > 2**16
    child = np.flatnonzero(h.parent >= 0)
    node, leaf = h.parent[child], h.end[child] - 1  # the last node of a subtree in preorder is a leaf
    assert h.is_leaf[leaf].all()
    assert h.child_toward(node, leaf).tolist() == child.tolist()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hierarchy_module, "ANCESTOR_TABLE_LEVELS", 0)
        searched = Hierarchy(h.labels, h.parent)
        assert searched.child_toward(node, leaf).tolist() == child.tolist()
