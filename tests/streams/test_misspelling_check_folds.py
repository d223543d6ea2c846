"""A worker's check that no item list names an item the window spells otherwise folds each
window's labels at once where they are all ASCII and printable, as most windows' are, and finds
what folding them one by one finds."""

import cProfile
import pstats

from hypothesis import given
from hypothesis import strategies as st

from setveil.core import labeltext
from setveil.core.labeltext import folded, label_folds, turkic_folded, unmarked
from setveil.core.schema import _spellings, other_spellings
from setveil.core.vocabulary import Vocabulary

# what folding treats apart: case, the Turkish i's, spaces and tabs, accents composed or not,
# invisible characters, full-width letters
ALPHABET = ["a", "b", "i", "I", "A", " ", "  ", "\t", "ı", "İ", "é", "e\u0301", "\u200b", "ＨＩＶ", "HIV", "hiv", "ß",
            "SS"]

LABELS = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=4).map("".join).filter(
    lambda label: label == label.strip())
ASCII_LABELS = st.lists(st.sampled_from(["a", "b", "i", "I", "A", " ", "  ", "HIV", "hiv", "SS"]), min_size=1,
                        max_size=4).map("".join).filter(lambda label: label == label.strip())


def one_by_one(labels):
    return ([unmarked(label) for label in labels], [folded(label) for label in labels],
            [turkic_folded(label) for label in labels])


def spellings_one_by_one(labels, vocab):
    """other_spellings as it folded the window's labels, one call per label and form."""
    by_unmarked, by_fold, by_turkic_fold = _spellings(labels)
    found = {}
    for other in vocab.labels:
        for label in by_unmarked.get(unmarked(other), ()):
            if label != other and label in vocab:
                found.setdefault(label, set()).add(other)
        for label in (*by_fold.get(folded(other), ()), *by_turkic_fold.get(turkic_folded(other), ())):
            if label not in vocab:
                found.setdefault(label, set()).add(other)
    return {label: frozenset(others) for label, others in found.items()}


@given(st.lists(ASCII_LABELS, unique=True, max_size=12))
def test_ascii_labels_fold_at_once_as_one_by_one(labels):
    assert [list(forms) for forms in label_folds(tuple(labels))] == list(one_by_one(labels))


@given(st.lists(LABELS, unique=True, max_size=12))
def test_any_labels_fold_as_one_by_one(labels):
    assert [list(forms) for forms in label_folds(tuple(labels))] == list(one_by_one(labels))


@given(st.frozensets(LABELS, max_size=6), st.lists(LABELS, unique=True, max_size=12),
       st.frozensets(ASCII_LABELS, max_size=6), st.lists(ASCII_LABELS, unique=True, max_size=12))
def test_the_misspellings_found_are_those_folding_one_by_one_finds(listed, held, ascii_listed, ascii_held):
    for labels, vocab in ((listed, Vocabulary(held)), (ascii_listed, Vocabulary(ascii_held)),
                          (ascii_listed, Vocabulary(held))):
        assert other_spellings(labels, vocab) == spellings_one_by_one(labels, vocab)


def test_a_windows_ascii_labels_are_not_folded_one_by_one():
    vocab = Vocabulary([str(item) for item in range(20_000)] + ["hiv", "New  York"])
    listed = frozenset({"HIV", "New York", "7", "x"})
    _spellings(listed)  # the list's folds are cached across windows
    profile = cProfile.Profile()
    profile.enable()
    found = other_spellings(listed, vocab)
    profile.disable()
    assert found == {"HIV": frozenset({"hiv"}), "New York": frozenset({"New  York"})}
    calls = {function: stats[1] for (_, _, function), stats in pstats.Stats(profile).stats.items()}
    # 20,002 each before
    assert [calls.get(function.__name__, 0) for function in (unmarked, folded, turkic_folded)] == [0, 0, 0]
    # New  York's fold: runs of spaces are one; with no I among the labels its Turkish fold is that one
    assert calls[labeltext._one_space.__name__] == 1
