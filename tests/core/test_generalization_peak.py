"""What checking that a release generalizes its original (Definition 3) holds beside the windows:
the items' and the labels' keys made and sorted in place, a label's closing key from its opening
one, and the searches a block at a time, where copies of the keys, the labels' order and two int64
searches over every occurrence set the peak of verifying a million transactions (1,033 MiB, then
823)."""


import numpy as np

from setveil.core import generalization as generalization_module
from setveil.core.generalization import generalization_violations
from setveil.core.hierarchy import Hierarchy
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

from ..tracing import traced_peak


def test_a_release_equal_to_its_original_is_checked_in_under_five_words_an_occurrence(monkeypatch):
    monkeypatch.setattr(generalization_module, "SEARCH_BLOCK", 1 << 16)
    labels = [str(i) for i in range(1_000)]
    hierarchy = Hierarchy.balanced(labels, 5)
    n_rows, width = 100_000, 5
    # five distinct items a transaction, 200 apart
    ids = ((np.arange(n_rows)[:, None] * 7 + np.arange(width) * 200) % 1_000).ravel()
    window = Window.from_flat(Vocabulary(labels), np.full(n_rows, width), ids)
    hierarchy.nodes(window.vocab.labels)
    violations, peak = traced_peak(lambda: list(generalization_violations(window, window, hierarchy)))
    assert violations == []
    # both sides of each occurrence (released labels and original items are one window here): the
    # labels' opening and closing keys, the items' keys and their int32 leaves, 4.2 int64 an
    # occurrence; the labels' order, a copy of their keys and the searches over every occurrence
    # made 10.5
    assert peak < 5 * 8 * len(ids)
