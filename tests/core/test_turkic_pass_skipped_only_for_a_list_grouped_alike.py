"""The misspelling check skips its Turkish-fold pass over a window whose labels hold no I only for a
list whose labels the two folds group alike, each label with the same others (core/schema.py
_turkic_alike), not merely under the same forms. A list of İstanbul, i̇stanbul (i and a combining
dot above), ISTANBUL and ıstanbul has the forms istanbul, i̇stanbul and ıstanbul in both folds,
but İstanbul folds with i̇stanbul in one and alone under istanbul in Turkish casing: a window's
istanbul spells both İstanbul (in Turkish casing) and ISTANBUL otherwise, and the lines of both
are named."""

from setveil.core.labeltext import folded, label_folds, turkic_folded
from setveil.core.schema import misspelt, misspelt_lines, other_spellings
from setveil.core.vocabulary import Vocabulary

DOTTED, COMBINING, CAPITALS, DOTLESS = "\u0130stanbul", "i\u0307stanbul", "ISTANBUL", "\u0131stanbul"
LISTED = frozenset([DOTTED, COMBINING, CAPITALS, DOTLESS])


def test_the_list_has_the_same_forms_in_both_folds_grouped_otherwise():
    assert {*map(folded, LISTED)} == {*map(turkic_folded, LISTED)} == {COMBINING, "istanbul", DOTLESS}
    assert folded(DOTTED) == folded(COMBINING) != turkic_folded(DOTTED)


def test_a_window_without_an_i_spells_the_dotted_label_otherwise():
    vocab = Vocabulary(["istanbul", "ankara"])
    folds = label_folds(vocab.labels)
    assert folds[2] is folds[1]  # the window's labels hold no I: one list for both folds
    expected = {DOTTED: frozenset({"istanbul"}), CAPITALS: frozenset({"istanbul"})}
    assert other_spellings(LISTED, vocab) == expected
    assert other_spellings(LISTED, vocab, folds) == expected
    assert misspelt(LISTED, vocab, held_folds=folds) == frozenset({DOTTED, CAPITALS})
    lines = {DOTTED: 1, COMBINING: 2, CAPITALS: 3, DOTLESS: 4}
    assert misspelt_lines(LISTED, lines, vocab, held_folds=folds) == [1, 3]
