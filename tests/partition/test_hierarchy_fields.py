"""An analyst's hand-written hierarchy line whose label holds a comma, unquoted: the refusal says
how many fields it found and how such a label is written (user walkthrough)."""

import pytest

from setveil.core.errors import InputError
from setveil.core.hierarchy import Hierarchy


@pytest.mark.parametrize("line, fields", [("Diabetes, type 2,Metabolic", 3), ('"HbA1c",Diabetes, type 2', 3),
                                          ("a,b,c,d", 4), ("a,b,", 3)])
def test_a_line_of_more_than_two_fields_is_refused_saying_how_a_comma_is_written(tmp_path, line, fields):
    path = tmp_path / "h.csv"
    path.write_text(f"Metabolic,ALL\n{line}\n")
    with pytest.raises(InputError) as refused:
        Hierarchy.read(path)
    assert str(refused.value) == (f"{path}:2: expected one edge 'child,parent', found {fields} fields; a label that "
                                  'holds a comma is written as a JSON string ("Smith, John")')


def test_the_label_written_so_is_read(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text('Metabolic,ALL\n"Diabetes, type 2",Metabolic\n')
    assert Hierarchy.read(path).labels == ["ALL", "Metabolic", "Diabetes, type 2"]


@pytest.mark.parametrize("line", ["Metabolic", "a\tb", "a,", ",b"])
def test_a_line_of_fewer_fields_or_an_empty_one_is_refused_as_before(tmp_path, line):
    path = tmp_path / "h.csv"
    path.write_text(f"Metabolic,ALL\n{line}\n")
    with pytest.raises(InputError) as refused:
        Hierarchy.read(path)
    assert str(refused.value) == f"{path}:2: expected one edge 'child,parent'"
