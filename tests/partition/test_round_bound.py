"""Partition's rounds are bounded by the hierarchy's inner nodes. A round expands one node of every
open partition's cut, or freezes it there for the partition's leftover: each of that node's open
occurrences moves below it or becomes final, the others keep their nodes, and nodes only move
down, so the cut stays an antichain and no partition split off it later holds that node again. A
partition open at round r has expanded r distinct inner nodes along its ancestry (a chain of
one-child nodes walked in one round only spends more). A round loop that stops making progress
(a mutation pass: a node never advanced, a final occurrence never dropped looped for ever) fails
at the round past the bound."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.window import Window
from setveil.plugins.partition import Partition
from setveil.plugins.partition.partition import partition
from setveil.plugins.partition.recoding import LeafWindow

from .bruteforce import hierarchies
from .examples import FIGURE_1, FIGURE_2, TABLE_1A, TABLE_2, hierarchy, window
from .test_recursive import chained, clustered


def inner_nodes(h):
    return len(h) - h.n_leaves


class Stuck(Exception):
    """The loop went on far past any bound (a hang, without the bound)."""


def test_a_node_never_advanced_fails_at_the_round_past_the_bound():
    h = hierarchy(FIGURE_2)
    leaves = LeafWindow.of(window([original for original, _, _ in TABLE_2.values()]), h)
    calls = 0

    def never_below(node, leaf):
        nonlocal calls
        calls += 1
        if calls > 1000:
            raise Stuck
        return np.asarray(node)

    h.child_toward = never_below
    with pytest.raises(AssertionError, match=r"^Partition's round 4 passes the 3 inner nodes"):
        partition(leaves, h, 2, Partition().pick_node, walks_chains=True)


@pytest.mark.parametrize("edges, rows", [(FIGURE_1, TABLE_1A), (FIGURE_2, [row for row, _, _ in TABLE_2.values()])])
def test_the_paper_examples_stay_within_the_bound(edges, rows):
    h = hierarchy(edges)
    recoding = Partition().recode(LeafWindow.of(window(rows), h), h, 2, np.random.default_rng(0))
    assert 0 < recoding.stats["partition_rounds"] <= inner_nodes(h)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=hierarchies(), copies=st.integers(1, 4), walks=st.booleans())
def test_every_leaf_in_every_transaction_expands_every_inner_node_one_a_round(h, copies, walks):
    # one partition holding every leaf expands each inner node in its own round: the bound is
    # reached, not passed (walking a chain of one-child nodes in one round spends fewer)
    rows = [[label for node, label in enumerate(h.labels) if h.is_leaf[node]]] * copies
    leaves = LeafWindow.of(Window.from_transactions(rows), h)
    rounds = partition(leaves, h, copies, Partition().pick_node, walks_chains=walks).stats["partition_rounds"]
    if walks:
        assert rounds <= inner_nodes(h)
    else:
        assert rounds == inner_nodes(h)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=st.one_of(hierarchies(), chained()), rows=clustered(), k=st.integers(1, 5), walks=st.booleans())
def test_random_data_and_chains_stay_within_the_bound(h, rows, k, walks):
    leaves = LeafWindow.of(Window.from_transactions(rows), h)
    recoding = partition(leaves, h, k, Partition().pick_node, walks_chains=walks)
    assert recoding.stats["partition_rounds"] <= inner_nodes(h)
