"""A window of ASCII labels with a few others (an accent, an invisible character) folds those
few one by one and the rest at once, where one such label made it fold every label one by one;
the folds are the same."""

import cProfile
import pstats

from hypothesis import given
from hypothesis import strategies as st

from setveil.core.labeltext import folded, label_folds, turkic_folded, unmarked

ASCII = st.lists(st.sampled_from(["a", "b", "i", "I", "A", " ", "  ", "HIV", "hiv", "SS", "7"]), min_size=1,
                 max_size=4).map("".join).filter(lambda label: label == label.strip())
OTHER = st.sampled_from(["café", "cafe\u0301", "İstanbul", "ıI", "flu\u200b", "ＨＩＶ", "ß", "New\tYork", "a\nb",
                         "x\x7f"])


@given(st.lists(st.one_of(ASCII, ASCII, ASCII, OTHER), unique=True, min_size=1, max_size=12))
def test_a_mixed_window_folds_as_one_by_one(labels):
    expected = ([unmarked(label) for label in labels], [folded(label) for label in labels],
                [turkic_folded(label) for label in labels])
    assert tuple(list(forms) for forms in label_folds(tuple(labels))) == expected


def test_the_ascii_labels_of_a_window_with_an_accent_are_folded_at_once():
    labels = tuple(str(item) for item in range(10_000)) + ("café",) + tuple(f"x{item}" for item in range(10_000))
    profile = cProfile.Profile()
    profile.enable()
    forms = label_folds(labels)
    profile.disable()
    assert [form[10_000] for form in forms] == ["café", "café", "café"]
    assert forms[1][:3] == ["0", "1", "2"] and forms[2][-1] == "x9999"
    calls = {function: stats[1] for (_, _, function), stats in pstats.Stats(profile).stats.items()}
    # café's alone (folded and turkic_folded unmark it too); 20,003, 20,001 and 20,001 before
    assert [calls.get(function.__name__, 0) for function in (unmarked, folded, turkic_folded)] == [3, 1, 1]


def test_a_window_of_no_labels_has_no_folds():
    # the labels joined are then "", whose one split would be a fold of a label no one gave
    assert label_folds([]) == ([], [], [])
