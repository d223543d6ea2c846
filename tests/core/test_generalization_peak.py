"""What checking that a release generalizes its original (Definition 3) holds beside the windows:
each item occurrence's key is made in place and sorted in place, where a copy each of the owners,
the keys and the sorted keys over every occurrence set the peak of verifying a million
transactions (1,033 MiB)."""


import numpy as np

from setveil.core.generalization import generalization_violations
from setveil.core.hierarchy import Hierarchy
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

from ..tracing import traced_peak


def test_a_release_equal_to_its_original_is_checked_in_under_twelve_words_an_occurrence():
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
    # labels' keys, order, opens and closes, the items' keys and the searches over them, 10.5 int64
    # an occurrence; the items' owners and their sorted keys as copies made 13.6
    assert peak < 12 * 8 * len(ids)
