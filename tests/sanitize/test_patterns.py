"""Restrictive pattern files: parsing, validation errors with file and line, per-window ids."""

import pytest

from setveil.core.errors import InputError, ParameterError
from setveil.core.plugins import get_registry
from setveil.core.vocabulary import Vocabulary
from setveil.plugins.sanitize.patterns import RestrictivePatterns

from .helpers import write_patterns


def test_file_order_lines_and_blank_lines(tmp_path):
    path = write_patterns(tmp_path / "p.txt", "", "b a", "", "  c  a d ")
    patterns = RestrictivePatterns.load(path)
    assert patterns.patterns == (("a", "b"), ("a", "c", "d"))
    assert patterns.lines == (2, 4)


def test_a_label_may_start_with_a_hash_and_lines_split_as_in_the_data(tmp_path):
    # Regression (QA): lines starting with '#' were skipped as comments, so the pattern {#a, b}
    # was dropped and its transactions released as they were, with `verify` passing. And
    # splitlines() cut at U+0085, where the data's lines are one transaction.
    path = tmp_path / "p.txt"
    path.write_text("#a b\n# a b\nc d\x85e f\n", encoding="utf-8")
    patterns = RestrictivePatterns.load(path)
    assert patterns.patterns == (("#a", "b"), ("#", "a", "b"), ("c", "d", "e", "f"))
    assert patterns.lines == (1, 2, 3)


@pytest.mark.parametrize(
    "lines, line, problem",
    [
        (["a b", "c"], 2, "at least 2 items"),
        (["a b", "c d c"], 2, "repeated"),
        (["a b", "c d", "b a"], 3, "repeats the pattern of line 1"),
    ],
)
def test_bad_lines_are_named(tmp_path, lines, line, problem):
    path = write_patterns(tmp_path / "p.txt", *lines)
    with pytest.raises(InputError) as info:
        RestrictivePatterns.load(path)
    assert info.value.line == line and problem in info.value.problem
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_a_one_item_pattern_with_commas_says_items_are_separated_by_blanks(tmp_path):
    # Regression (QA): a pattern written as CSV ('HIV,flu') was refused as needing 2 items, which
    # the user gave; the message now says why it read one, without quoting it
    path = write_patterns(tmp_path / "p.txt", "a b", "SECRET,flu")
    with pytest.raises(InputError) as info:
        RestrictivePatterns.load(path)
    assert str(info.value) == (f"{path}:2: a restrictive pattern needs at least 2 items, separated by blanks: this "
                               "line's one item holds a comma (a label with a comma is one item)")


def test_empty_and_undecodable_files(tmp_path):
    empty = write_patterns(tmp_path / "empty.txt", "", "  ")
    with pytest.raises(InputError, match="no restrictive patterns"):
        RestrictivePatterns.load(empty)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"a b\n\xff c\n")
    with pytest.raises(InputError) as info:
        RestrictivePatterns.load(binary)
    assert info.value.line == 2


def test_the_model_refuses_a_bad_file_before_any_data_by_parameter_name(tmp_path):
    path = write_patterns(tmp_path / "p.txt", "a b", "c")
    with pytest.raises(ParameterError) as info:
        get_registry().configure("sanitize", None, {"restrictive": path})
    assert info.value.name == "restrictive"
    assert f"{path}:2" in str(info.value)
    assert info.value.exit_code == 2


def test_table_keeps_patterns_whose_items_all_occur(tmp_path):
    patterns = RestrictivePatterns.load(write_patterns(tmp_path / "p.txt", "x y", "b a", "a z", "c a b"))
    vocab = Vocabulary(["c", "b", "a", "x"])
    table = patterns.table(vocab)
    assert table.number.tolist() == [1, 3]
    assert table.row(0).tolist() == [1, 2]
    assert table.row(1).tolist() == [0, 1, 2]
    assert table.items[0].tolist() == [1, 2, -1]
