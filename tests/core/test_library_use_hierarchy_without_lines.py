"""A Hierarchy built in Python from labels and parents has no file lines: refusing a window whose
items it lacks, or holds as inner nodes, it gives counts and the first transaction, no line hint and
no label (the hints of a file's lines are test_walkthrough_spelling's and _inner's; no test refused a
window against a hierarchy without lines)."""

import numpy as np
import pytest

from setveil.core.errors import InputError
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window


@pytest.mark.parametrize("rows, problem", [
    ([["a"], ["b", "A"]], "1 item of the data is not in the hierarchy; the first in transaction 1 (counted from 0)"),
    ([["a"], ["root"]], "1 item of the data is an inner node of the hierarchy, not a leaf; the first in transaction 1 "
                        "(counted from 0)"),
])
def test_a_window_is_refused_without_line_hints(rows, problem):
    built = Hierarchy(["root", "a", "b"], np.array([-1, 0, 0]))
    assert built.node_lines is None
    with pytest.raises(InputError) as caught:
        built.leaf_nodes(Window.from_transactions(rows))
    assert caught.value.problem == problem
