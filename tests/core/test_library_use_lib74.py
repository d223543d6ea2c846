"""Library use that reads a str as its characters, keeps numpy scalars as tids, takes offsets
that hold no window or leaves a pool's death unexplained (library walkthrough, api74)."""

import numpy as np
import pytest

from setveil import Vocabulary, Window


def test_a_window_of_no_offsets_is_refused_naming_indptr():
    # taken, its len() raised "__len__() should return >= 0" wherever it was first asked
    with pytest.raises(ValueError) as refused:
        Window(Vocabulary(), [], [])
    assert str(refused.value) == ("Window's indptr is empty: it holds n+1 offsets for n transactions, so at least "
                                  "one offset, 0 (Window.empty() gives a window of no transactions)")
    with pytest.raises(ValueError, match="^Window's indptr is empty"):
        Window(Vocabulary(), np.zeros(0, np.int64), np.zeros(0, np.int32))


def test_the_one_offset_0_is_a_window_of_no_transactions():
    window = Window(Vocabulary(), [0], [])
    assert len(window) == 0 and list(window) == [] and len(Window.empty()) == 0
