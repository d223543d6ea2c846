"""The misspelling check a worker makes of every window looks no further at a label the window holds
as a list gives it, the only listed label of its form, which spells no other; what it finds is
what looking at every held label finds, in the same order."""

import cProfile
import pstats

from hypothesis import given
from hypothesis import strategies as st

from setveil.core import vocabulary
from setveil.core.labeltext import folded, turkic_folded, unmarked
from setveil.core.schema import other_spellings
from setveil.core.vocabulary import Vocabulary

LABELS = st.sampled_from(["a", "b", "A", "HIV", "hiv", "Hiv", "New York", "New  York", "İstanbul", "istanbul",
                          "Istanbul", "café", "cafe\u0301", "flu", "flu\u200b", "ＨＩＶ", "ß", "SS", "ss", "7"])


def every_held_label_looked_at(labels, vocab):
    """other_spellings as the check looked at every held label whose form a listed label has."""
    found = {}
    for form_of, of_held in ((unmarked, True), (folded, False), (turkic_folded, False)):
        by_form = {}
        for label in labels:
            by_form.setdefault(form_of(label), []).append(label)
        for other in vocab.labels:
            for label in by_form.get(form_of(other), ()):
                if (label != other and label in vocab) if of_held else label not in vocab:
                    found.setdefault(label, set()).add(other)
    return {label: frozenset(others) for label, others in found.items()}


@given(st.frozensets(LABELS, max_size=8), st.lists(LABELS, unique=True, max_size=12), st.data())
def test_the_spellings_found_are_those_of_every_held_label_in_the_same_order(listed, held, data):
    # most of a window's listed labels are held as listed: some of the list is drawn from the window
    listed |= frozenset(data.draw(st.lists(st.sampled_from(held), max_size=len(held))) if held else ())
    vocab = Vocabulary(held)
    found = other_spellings(listed, vocab)
    expected = every_held_label_looked_at(listed, vocab)
    assert found == expected
    # in the order the labels were first found, as messages and callers read them
    assert list(found) == [label for label in expected if label in found]


def _vocabulary_lookups(listed, vocab) -> tuple[int, dict]:
    profile = cProfile.Profile()
    profile.enable()
    found = other_spellings(listed, vocab)
    profile.disable()
    lookups = sum(stats[1] for (path, _, function), stats in pstats.Stats(profile).stats.items()
                  if path == vocabulary.__file__ and function == "__contains__")
    return lookups, found


def test_a_window_holding_its_listed_labels_as_listed_looks_up_none_of_them():
    listed = frozenset(str(item) for item in range(0, 20_000, 2)) | {"HIV", "Ca"}
    vocab = Vocabulary([str(item) for item in range(20_000)] + ["hiv", "CA", "Ca"])
    other_spellings(listed, vocab)  # the list's forms are cached across windows
    lookups, found = _vocabulary_lookups(listed, vocab)
    assert found == {"HIV": frozenset({"hiv"})}
    # hiv, by its fold (HIV's Turkish fold is hıv), and CA, by both folds, which Ca has too, as the
    # only listed label of its form; Ca itself and the 10,000 listed numbers not at all (20,005 before)
    assert lookups == 3
