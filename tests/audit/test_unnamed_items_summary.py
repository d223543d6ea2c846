"""deanonymize's summary line counts the published items its naming leaves unnamed, where an
unmatched cost that left every published itemset unmatched wrote an empty naming, exit 0, and said
nothing of it."""

import pytest

from setveil.core.cli import cli


@pytest.fixture
def attack(tmp_path):
    renamed, itemsets = tmp_path / "r.dat", tmp_path / "it.txt"
    renamed.write_text("x\ny\ny\ny\n")
    # no frequency of these matches a mined one (x 0.25, y 0.75) within the default tolerance 0
    itemsets.write_text("0.6667 a\n0.3333 b\n")
    return renamed, itemsets


def deanonymize(runner, renamed, itemsets, naming, *options):
    return runner.invoke(cli, ["audit", "deanonymize", str(renamed), "--itemsets", str(itemsets), "--sigma", "0.2",
                               "-o", str(naming), *options], catch_exceptions=False)


def test_an_unmatched_cost_that_leaves_every_itemset_unmatched_says_no_item_is_named(runner, attack, tmp_path):
    naming = tmp_path / "n.txt"
    result = deanonymize(runner, *attack, naming, "--unmatched-cost", "1")
    assert result.exit_code == 0
    assert naming.read_text() == ""
    assert result.stderr.rstrip("\n").endswith("; 2 of 2 published items not named")


def test_a_naming_of_every_published_item_says_nothing_of_unnamed_items(runner, tmp_path):
    renamed, itemsets, naming = tmp_path / "r.dat", tmp_path / "it.txt", tmp_path / "n.txt"
    renamed.write_text("x\ny\ny\ny\n")
    itemsets.write_text("0.25 a\n0.75 b\n")
    result = deanonymize(runner, renamed, itemsets, naming, "--unmatched-cost", "1")
    assert result.exit_code == 0
    assert sorted(naming.read_text().split()[:2]) == ["a", "x"]
    assert "not named" not in result.stderr


def test_an_unrounded_lp_vote_names_no_item_and_so_counts_none_unnamed(runner, attack, tmp_path):
    result = deanonymize(runner, *attack, tmp_path / "n.txt", "--unmatched-cost", "1", "--method", "lp")
    assert result.exit_code == 0
    assert "not named" not in result.stderr


def test_a_naming_that_leaves_some_items_unnamed_counts_those_alone(runner, tmp_path):
    # x and z (0.2 each) match a and c; y (0.6) matches no mined frequency within tolerance 0
    renamed, itemsets, naming = tmp_path / "r.dat", tmp_path / "it.txt", tmp_path / "n.txt"
    renamed.write_text("x\ny\ny\ny\nz\n")
    itemsets.write_text("0.2 a\n0.6667 b\n0.2 c\n")
    result = runner.invoke(cli, ["audit", "deanonymize", str(renamed), "--itemsets", str(itemsets), "--sigma", "0.1",
                                 "-o", str(naming), "--unmatched-cost", "1"], catch_exceptions=False)
    assert result.exit_code == 0
    assert sorted(line.split()[1] for line in naming.read_text().splitlines()) == ["x", "z"]
    assert result.stderr.rstrip("\n").endswith("; 1 of 3 published items not named")
