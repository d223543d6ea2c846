"""NCP (§3.2): per node |u_p|/|I| (0 for a leaf), NCP(D) over the original occurrences."""

import pytest

from setveil.core.ncp import covering_nodes, generalized_share, ncp
from setveil.core.window import Window

from .examples import FIGURE_1, TABLE_1A, TABLE_1B, hierarchy


def test_node_ncp_of_figure_1():
    h = hierarchy(FIGURE_1)
    assert h.ncp[h.index["Alcohol"]] == 0.5 and h.ncp[h.index["Beer"]] == 0 and h.ncp[h.root] == 1


def test_table_1_counts_each_original_item_once():
    h = hierarchy(FIGURE_1)
    original, release = Window.from_transactions(TABLE_1A), Window.from_transactions(TABLE_1B)
    cover = covering_nodes(original, release, h)
    assert sorted(h.labels[n] for n in cover[original.indptr[1] : original.indptr[2]]) == [
        "Alcohol", "Health Care", "Health Care"]
    assert ncp(original, release, h) == pytest.approx((8 / 2) / 12)
    assert generalized_share(original, release, h) == pytest.approx((2 + 3 + 1 + 2) / 12)


def test_identity_costs_nothing_and_root_costs_one():
    h = hierarchy(FIGURE_1)
    original = Window.from_transactions(TABLE_1A)
    assert ncp(original, original, h) == 0
    assert ncp(original, Window.from_transactions([["ALL"]] * 4), h) == 1


def test_an_uncovered_item_costs_one():
    h = hierarchy(FIGURE_1)
    original = Window.from_transactions([["Beer", "Diapers"]])
    assert ncp(original, Window.from_transactions([["Beer"]]), h) == pytest.approx(0.5)


def test_an_uncovered_item_counts_as_generalized_and_no_occurrence_costs_nothing():
    # docs/partition.md: generalized_share counts the occurrences whose NCP is above 0; Diapers,
    # covered by no label, is charged 1 (1 of 2 occurrences)
    h = hierarchy(FIGURE_1)
    original = Window.from_transactions([["Beer", "Diapers"]])
    assert generalized_share(original, Window.from_transactions([["Beer"]]), h) == pytest.approx(0.5)
    empty = Window.from_transactions([[]])
    assert ncp(empty, empty, h) == 0.0 and generalized_share(empty, empty, h) == 0.0


def test_a_release_with_no_label_of_the_hierarchy_charges_every_occurrence_one():
    # Regression (QA, mutation testing): with no released node to search, covering_nodes indexed
    # an empty array (IndexError) instead of charging each uncovered occurrence 1
    h = hierarchy(FIGURE_1)
    original = Window.from_transactions([["Beer", "Wine"], ["Diapers"]])
    for rows in ([[], []], [["Unknown"], []]):
        release = Window.from_transactions(rows)
        assert covering_nodes(original, release, h).tolist() == [-1, -1, -1]
        assert ncp(original, release, h) == 1.0 and generalized_share(original, release, h) == 1.0
    # a hierarchy of one leaf: the root covers one item, and an uncovered occurrence is still
    # generalized (its NCP, 1/1, is above 0)
    single = hierarchy([("Beer", "ALL")])
    beer = Window.from_transactions([["Beer"]])
    assert generalized_share(beer, Window.from_transactions([[]]), single) == 1.0


def test_a_label_of_another_transaction_covers_nothing():
    # T1's Beer sorts right after T0's Alcohol, which is above Beer, but T1 holds no label: Beer
    # is charged 1 (mutation pass: without the same-transaction check it was charged 2/4)
    h = hierarchy(FIGURE_1)
    original = Window.from_transactions([["Beer"], ["Beer"]])
    release = Window.from_transactions([["Alcohol"], []])
    assert covering_nodes(original, release, h).tolist() == [h.index["Alcohol"], -1]
    assert ncp(original, release, h) == pytest.approx((2 / 4 + 1) / 2)


def test_a_label_outside_the_hierarchy_covers_nothing():
    # Pregnancy Test is the last node in preorder: a label that is no node (-1), taken as one,
    # would land on T0's Pregnancy Test from T1 (mutation pass: NCP 1/2 instead of 1)
    h = hierarchy(FIGURE_1)
    assert h.labels[-1] == "Pregnancy Test"
    original = Window.from_transactions([["Pregnancy Test"], ["Beer"]])
    release = Window.from_transactions([[], ["Unknown"]])
    assert covering_nodes(original, release, h).tolist() == [-1, -1]
    assert ncp(original, release, h) == 1.0


def test_a_root_over_one_leaf_costs_nothing_and_generalizes_nothing():
    # NCP(p) is above 0 only for a node of more than one leaf (mutation pass: charging the root, node
    # 0, as an uncovered occurrence, and counting it generalized, passed the tests, every root there
    # holding several leaves)
    single = hierarchy([("Beer", "ALL")])
    beer = Window.from_transactions([["Beer"], ["Beer"]])
    release = Window.from_transactions([["ALL"], ["Beer"]])
    assert covering_nodes(beer, release, single).tolist() == [single.root, single.index["Beer"]]
    assert ncp(beer, release, single) == 0.0 and generalized_share(beer, release, single) == 0.0
