"""A window's labels that hold no I fold alike in Turkish casing and in the other: label_folds gives
one list for both, and a misspelling check then skips the Turkish pass when the list's labels are
grouped alike by both folds too, finding all it found with the two passes."""

from setveil.core.labeltext import folded, label_folds, turkic_folded, unmarked
from setveil.core.schema import other_spellings
from setveil.core.vocabulary import Vocabulary


def test_labels_without_an_i_have_one_list_for_both_folds_and_with_one_two():
    _, folds, turkic = label_folds(("hiv", "New  York", "7"))
    assert turkic is folds and folds == ["hiv", "new york", "7"]
    _, folds, turkic = label_folds(("HIV", "7"))
    assert turkic is not folds and (folds, turkic) == (["hiv", "7"], ["h\u0131v", "7"])


def test_a_mixed_window_without_an_i_among_its_ascii_labels_gives_each_label_its_own_turkish_fold():
    labels = ("abc", "\u0130stanbul", "\u0131")
    plain, folds, turkic = label_folds(labels)
    assert turkic is not folds
    assert (list(plain), folds, turkic) == ([*map(unmarked, labels)], [*map(folded, labels)],
                                           [*map(turkic_folded, labels)])
    assert turkic[1] == "istanbul" and folds[1] != "istanbul"


def test_a_list_grouped_otherwise_by_the_turkish_fold_is_still_checked_by_it():
    # the window's istanbul holds no I, so its two folds are one list, but the list's İstanbul folds
    # like istanbul only in Turkish casing: that pass is not skipped
    vocab = Vocabulary(["istanbul", "ankara"])
    assert other_spellings(frozenset({"\u0130stanbul"}), vocab) == {"\u0130stanbul": frozenset({"istanbul"})}


def test_a_list_grouped_alike_by_both_folds_finds_its_misspellings_in_one_pass():
    vocab = Vocabulary(["hiv", "new york", "7"])
    assert other_spellings(frozenset({"Hiv", "New York", "7", "x"}), vocab) == {
        "Hiv": frozenset({"hiv"}), "New York": frozenset({"new york"})}
