"""The pair gains of a table of more cells than a block number the cells in use in a first pass
and sum each block's gains into those numbers: with hundreds of pairs in use, more than a byte
numbers, every pair keeps its own sum, as a plain dictionary of sums gives them."""

from collections import defaultdict

import numpy as np
import pytest

from setveil.plugins.partition import partition as algorithm
from setveil.plugins.partition.partition import _pair_gains


@pytest.mark.parametrize("block", [7, 1000])
def test_hundreds_of_pairs_in_use_each_keep_their_sum(block):
    rng = np.random.default_rng(0)
    part = np.repeat(np.arange(60), 8)
    node = rng.integers(0, 12, size=len(part))
    gain = rng.integers(0, 50, size=len(part)).astype(np.float64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(algorithm, "PAIR_BLOCK", block)
        got_part, got_node, got_gain = _pair_gains(part, node, gain, 60, 12)
    expected = defaultdict(float)
    for p, n, g in zip(part.tolist(), node.tolist(), gain.tolist()):
        expected[(p, n)] += g
    assert len(expected) > 256
    assert list(zip(got_part.tolist(), got_node.tolist())) == sorted(expected)
    assert got_gain.tolist() == [expected[key] for key in sorted(expected)]
