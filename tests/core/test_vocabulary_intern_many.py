"""Vocabulary.intern_many, which the readers intern a file's labels with at once, gives the ids
that interning each label in turn gives, over labels already known. (The FIMI reader that uses it
is checked against the straightforward reading in test_fimi_reader_against_split.py.)"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.vocabulary import Vocabulary

LABELS = ["a", "b", "c", "7", "07", "é", "ab", "\ufeffa"]


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.sampled_from(LABELS + ["z", "y"]), max_size=30), known=st.lists(st.sampled_from(LABELS),
                                                                                          unique=True))
def test_intern_many_gives_the_ids_interning_one_by_one_gives(labels, known):
    one, many = Vocabulary(known), Vocabulary(known)
    expected = [one.intern(label) for label in labels]
    found = many.intern_many(iter(labels))
    assert found.dtype == np.int32
    assert found.tolist() == expected
    assert many.labels == one.labels
    assert [many.get(label) for label in one.labels] == list(range(len(one)))
