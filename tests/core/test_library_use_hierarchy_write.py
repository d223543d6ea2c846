"""Hierarchy.write of a hierarchy of one node, which a library user can build over one label, is
refused naming the file, nothing written; `hierarchy build` refuses such input before it writes,
naming INPUT, so no test reached write's own refusal."""

import pytest

from setveil.core.errors import InputError
from setveil.core.hierarchy import Hierarchy


def test_a_one_node_hierarchy_is_not_written(tmp_path):
    single = Hierarchy.balanced(["a"], 2)
    assert len(single) == 1
    target = tmp_path / "h.csv"
    with pytest.raises(InputError) as caught:
        single.write(target)
    assert str(caught.value) == f"{target}: a one-node hierarchy has no edge to write"
    assert not target.exists()
