"""core/ncp.py covering_nodes gives its covers as int64 whichever way it finds them: searched a block
at a time (at any block size) or, where the release names no node, all -1 at once, as the search
over every occurrence did (a mutation review found the blocks' dtype unpinned)."""

import numpy as np
import pytest

from setveil.core import ncp as ncp_module
from setveil.core.ncp import covering_nodes
from setveil.core.window import Window

from .examples import FIGURE_2, TABLE_2, hierarchy


@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_covers_of_table_2_are_int64_at_every_block_size(monkeypatch, block):
    monkeypatch.setattr(ncp_module, "COVER_BLOCK", block)
    original = Window.from_transactions([row for row, _, _ in TABLE_2.values()])
    release = Window.from_transactions([local for _, local, _ in TABLE_2.values()])
    cover = covering_nodes(original, release, hierarchy(FIGURE_2))
    assert cover.dtype == np.int64
    # T1's a1 is covered by A, T3's b1 by itself
    assert [hierarchy(FIGURE_2).labels[node] for node in cover[[0, 3]]] == ["A", "b1"]


def test_covers_of_a_release_of_no_node_are_int64():
    cover = covering_nodes(Window.from_transactions([["a1"]]), Window.from_transactions([["zz"]]), hierarchy(FIGURE_2))
    assert cover.dtype == np.int64 and cover.tolist() == [-1]
