"""The figures a benchmark's summary row holds and how its tables write them
(setveil.core.bench): a flag of the summary holds when it held in every run, a count is the lower
median of the runs', a figure is written with 4 significant digits below 1,000 and as a whole
number from 1,000 on, never with an exponent, and a table printed at once has each column as wide
as its widest cell (a mutation pass over core/bench.py: a flag held in any run, the upper median,
the exponent's bound at 10,000 and columns as wide as their headers alone passed every test not
marked slow)."""

import math

from hypothesis import example, given
from hypothesis import strategies as st

from setveil.core.bench import _cell, _median, print_table


def test_a_flag_holds_in_the_summary_when_it_held_in_every_run():
    assert _median([True, False, True]) is False
    assert _median([True, True]) is True


def test_a_count_is_the_lower_median_of_an_even_number_of_runs():
    assert _median([4, 1, 3, 2]) == 2
    assert _median([7, 9]) == 7


def test_a_share_is_the_median_of_the_runs():
    assert _median([0.25, 0.75]) == 0.5


@given(st.floats(min_value=1e3, max_value=1e12))
@example(9999.6)
@example(999_999.5)
def test_a_figure_from_1000_on_is_a_whole_number_without_an_exponent(value):
    text = _cell(value)
    assert text.isdigit() and abs(int(text) - value) <= 0.5


@given(st.floats(min_value=1e-3, max_value=999.4))
@example(123.456)
def test_a_figure_below_1000_keeps_4_significant_digits(value):
    text = _cell(value)
    assert "e" not in text and math.isclose(float(text), value, rel_tol=5e-4)
    assert len(text.replace(".", "").lstrip("0")) <= 4


def test_a_table_printed_at_once_has_each_column_as_wide_as_its_widest_cell(capsys):
    print_table([{"window": 123456789, "info_loss": 0.5}, {"window": 5, "info_loss": None}], ["window", "info_loss"])
    assert capsys.readouterr().out.splitlines() == ["| window    | info_loss |",
                                                    "|-----------|-----------|",
                                                    "| 123456789 | 0.5       |",
                                                    "| 5         | n/a       |"]
