"""Vocabulary.mask looks a set up from the shorter of it and the vocabulary (the rho checker and
metrics ask it of every window with the item lists), and gives what looking every label up gives."""

import cProfile
import pstats

from hypothesis import given
from hypothesis import strategies as st

from setveil.core.vocabulary import Vocabulary

LABELS = st.text(alphabet="abHIV7é", min_size=1, max_size=3)


@given(st.lists(LABELS, unique=True, max_size=30), st.frozensets(LABELS | st.integers(0, 3), max_size=40),
       st.sampled_from([set, frozenset, list]))
def test_the_mask_of_a_set_is_that_of_every_label_looked_up(held, labels, kind):
    vocab = Vocabulary(held)
    assert vocab.mask(kind(labels)).tolist() == [label in labels for label in held]


def test_a_short_vocabulary_is_not_looked_up_by_every_label_of_a_long_set():
    labels = frozenset(f"code{number}" for number in range(50_000)) | {"HIV"}
    vocab = Vocabulary(["a", "HIV", "code7"])
    profile = cProfile.Profile()
    profile.enable()
    mask = vocab.mask(labels)
    profile.disable()
    assert mask.tolist() == [False, True, True]
    assert sum(stats[1] for stats in pstats.Stats(profile).stats.values()) < 50  # 50,000 lookups before
