"""The item classes the models ask of every window are found from the shorter of the window's
labels and the item lists, where each listed label was looked up in the window, and they are
the classes that looking every listed label up gives."""

import cProfile
import pstats

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.vocabulary import Vocabulary

LABELS = st.text(alphabet="abcHIV7é ", min_size=1, max_size=3).filter(lambda label: label == label.strip())


def every_listed_label_looked_up(schema: ItemSchema, vocab: Vocabulary) -> np.ndarray:
    out = np.full(len(vocab), ItemClass.PUBLIC if schema.public is None else ItemClass.NEUTRAL, dtype=np.int8)
    if schema.public is not None:
        out[vocab.mask(schema.public)] = ItemClass.PUBLIC
    out[vocab.mask(schema.private)] = ItemClass.PRIVATE
    return out


@given(st.frozensets(LABELS, max_size=30), st.none() | st.frozensets(LABELS, max_size=30),
       st.lists(LABELS, unique=True, max_size=30))
def test_the_classes_are_those_of_every_listed_label_looked_up(private, public, held):
    schema = ItemSchema(private, None if public is None else public - private)
    vocab = Vocabulary(held)
    classes = schema.classes(vocab)
    assert classes.dtype == np.int8
    assert classes.tolist() == every_listed_label_looked_up(schema, vocab).tolist()


def test_a_short_window_is_not_looked_up_by_every_label_of_a_long_list():
    schema = ItemSchema(frozenset(f"code{number}" for number in range(50_000)) | {"HIV"},
                        frozenset(f"public{number}" for number in range(20_000)) | {"a"})
    vocab = Vocabulary(["a", "b", "HIV", "code7", "public3", "x"])
    profile = cProfile.Profile()
    profile.enable()
    classes = schema.classes(vocab)
    profile.disable()
    assert classes.tolist() == [ItemClass.PUBLIC, ItemClass.NEUTRAL, ItemClass.PRIVATE, ItemClass.PRIVATE,
                                ItemClass.PUBLIC, ItemClass.NEUTRAL]
    calls = sum(stats[1] for stats in pstats.Stats(profile).stats.values())
    assert calls < 100  # 140,047 before: a generator step and a lookup per listed label
