"""An analyst's hierarchy file that spells an item of the data otherwise (another case, a
byte-order mark pasted mid-file, another Unicode form): the refusal names the lines to mend, by
number only (user walkthrough)."""

import pytest

from setveil.core.errors import InputError
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window

from .hierarchy_files import DATA, anonymize_with_hierarchy

K_ANONYMITY = ["-m", "kanonymity", "-P", "k=2"]


@pytest.mark.parametrize("b1", ["B1", "\ufeffb1", "b\uff11"])  # another case, a byte-order mark, full-width 1
def test_an_item_the_hierarchy_spells_otherwise_is_refused_naming_its_line(tmp_path, b1):
    result = anonymize_with_hierarchy(tmp_path, DATA, f"A,ALL\nB,ALL\na1,A\na2,A\n{b1},B\nb2,B\n", *K_ANONYMITY)
    assert result.exit_code == 2 and not (tmp_path / "out.dat").exists()
    assert result.output == (
        f"setveil: error: {tmp_path / 'h.csv'}: 1 item of {tmp_path / 'data.dat'} is not in the hierarchy; the first "
        "in transaction 1 (counted from 0); line 5 of the hierarchy spells it in another case, spacing, Unicode form "
        "or with an invisible character: write the data's spelling\n")


def test_several_items_spelt_otherwise_are_named_by_their_lines(tmp_path):
    result = anonymize_with_hierarchy(tmp_path, DATA, "A,ALL\nB,ALL\nA1,A\na2,A\nB1,B\nB2,B\n", *K_ANONYMITY)
    assert result.exit_code == 2
    assert result.output.endswith(
        "3 items of " f"{tmp_path / 'data.dat'}" " are not in the hierarchy; the first in transaction 0 (counted from "
        "0); lines 3, 5, 6 of the hierarchy spell some of them in another case, spacing, Unicode form or with an "
        "invisible character: write the data's spelling\n")


def test_an_item_the_hierarchy_lacks_with_no_other_spelling_gets_no_hint(tmp_path):
    result = anonymize_with_hierarchy(tmp_path, DATA, "A,ALL\nB,ALL\na1,A\na2,A\nb2,B\n", *K_ANONYMITY)
    assert result.exit_code == 2
    assert result.output.endswith("1 item of " f"{tmp_path / 'data.dat'}" " is not in the hierarchy; the first in "
                                  "transaction 1 (counted from 0)\n")


def test_a_label_the_data_holds_too_is_another_item_not_a_spelling():
    # the data tells Ca (calcium) from CA (cancer antigen): the hierarchy lacks Ca, and its CA is
    # no misspelling of it
    hierarchy = Hierarchy.from_edges([("CA", "tests", 1), ("Hb", "tests", 2)], "h.csv")
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([["CA"], ["Ca", "Hb"]]), "data.dat")
    assert str(refused.value) == ("h.csv: 1 item of data.dat is not in the hierarchy; the first in transaction 1 "
                                  "(counted from 0)")
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([["Ca", "Hb"]]), "data.dat")
    assert str(refused.value).endswith("; line 1 of the hierarchy spells it in another case, spacing, Unicode form or "
                                       "with an invisible character: write the data's spelling")


def test_a_generated_hierarchy_names_no_line():
    hierarchy = Hierarchy.balanced(["a", "b", "c"], 2)
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([["A"]]), "data.dat")
    assert str(refused.value).endswith("is not in the hierarchy; the first in transaction 0 (counted from 0)")


def test_other_spacing_is_a_spelling():
    # a JSONL item "New York" under a hand-written "New  York" (bare, its inner blanks kept)
    hierarchy = Hierarchy.from_edges([("Boston", "cities", 1), ("New  York", "cities", 2)], "h.csv")
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([["Boston", "New York"]]), "data.jsonl")
    assert str(refused.value).endswith("; line 2 of the hierarchy spells it in another case, spacing, Unicode form or "
                                       "with an invisible character: write the data's spelling")


def test_a_turkish_capital_dotted_i_is_a_spelling_of_its_small_i():
    # İstanbul folds like istanbul only with Turkish casing (core/labeltext.py turkic_folded)
    hierarchy = Hierarchy.from_edges([("Ankara", "cities", 1), ("istanbul", "cities", 2)], "h.csv")
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([["Ankara"], ["\u0130stanbul"]]), "data.dat")
    assert str(refused.value).endswith("; line 2 of the hierarchy spells it in another case, spacing, Unicode form or "
                                       "with an invisible character: write the data's spelling")


def test_more_than_five_lines_are_named_by_the_first_five():
    hierarchy = Hierarchy.from_edges([(f"X{i}", "ALL", i + 1) for i in range(7)], "h.csv")
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([[f"x{i}" for i in range(7)]]), "data.dat")
    assert str(refused.value).endswith("; lines 1, 2, 3, 4, 5, ... of the hierarchy spell some of them in another "
                                       "case, spacing, Unicode form or with an invisible character: write the data's "
                                       "spelling")
