"""An analyst's hierarchy file that puts a node under an item of the data: the refusal names the
line that gives the item a child, by number only (user walkthrough)."""

import pytest

from setveil.core.errors import InputError
from setveil.core.hierarchy import Hierarchy
from setveil.core.window import Window

from .hierarchy_files import DATA, anonymize_with_hierarchy

KM_ANONYMITY = ["-m", "km-anonymity", "-P", "k=2", "-P", "m=2"]


def test_an_item_given_children_is_refused_naming_the_line_of_its_first_child(tmp_path):
    hierarchy = "A,ALL\nB,ALL\na1,A\na2,A\nb1,B\n# b2 goes under b1\nb2,b1\nb3,b1\n"
    result = anonymize_with_hierarchy(tmp_path, DATA, hierarchy, *KM_ANONYMITY)
    assert result.exit_code == 2 and not (tmp_path / "out.dat").exists()
    assert result.output == (
        f"setveil: error: {tmp_path / 'h.csv'}: 1 item of {tmp_path / 'data.dat'} is an inner node of the hierarchy, "
        "not a leaf; the first in transaction 1 (counted from 0); line 7 of the hierarchy gives it a child\n")


def test_several_items_given_children_are_named_by_those_lines(tmp_path):
    # b3 under b1 comes first in the file, then x under b2; the root a1 is an item too
    result = anonymize_with_hierarchy(tmp_path, DATA, "b3,b1\nb1,B\nb2,B\nx,b2\nB,a1\na2,a1\n", *KM_ANONYMITY)
    assert result.exit_code == 2
    assert result.output.endswith(
        "3 items of " f"{tmp_path / 'data.dat'}" " are inner nodes of the hierarchy, not leaves; the first in "
        "transaction 0 (counted from 0); lines 1, 4, 5 of the hierarchy give such items children\n")


def test_a_hierarchy_without_lines_names_none():
    hierarchy = Hierarchy.balanced(["a", "b", "c"], 2)
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([["a..b"]]), "data.dat")
    assert str(refused.value) == ("<input>: 1 item of data.dat is an inner node of the hierarchy, not a leaf; the "
                                  "first in transaction 0 (counted from 0)")


def test_more_than_five_lines_are_named_by_the_first_five():
    edges = [(f"x{i}", "ALL", i + 1) for i in range(7)] + [(f"y{i}", f"x{i}", 8 + i) for i in range(7)]
    hierarchy = Hierarchy.from_edges(edges, "h.csv")
    with pytest.raises(InputError) as refused:
        hierarchy.leaf_nodes(Window.from_transactions([[f"x{i}" for i in range(7)]]), "data.dat")
    assert str(refused.value).endswith("7 items of data.dat are inner nodes of the hierarchy, not leaves; the first in "
                                       "transaction 0 (counted from 0); lines 8, 9, 10, 11, 12, ... of the hierarchy "
                                       "give such items children")
