"""Choices the papers leave open, pinned on small examples: which transactions top up Partition's
undersized leftover (He & Naughton §4.1 moves those "producing the least information gain"; here
also at most a bucket's excess over k from each), and the order in which AA fixes failing
itemsets (support, then preorder)."""

import numpy as np

from setveil.plugins.partition.partition import _balance

from .examples import FIGURE_2, as_sets
from .test_paper_examples import run


def test_a_leftover_of_one_is_topped_up_with_the_least_gain_transaction():
    # k = 2: T0 is alone in its bucket; T1-T4 form a bucket of k + 2 that can spare two. The least
    # gain (1) is not in the first position, so a choice by position would show.
    bucket = np.array([0, 1, 1, 1, 1])
    gain = np.array([0.0, 5.0, 1.0, 3.0, 2.0])
    move = _balance(bucket, np.zeros(5, dtype=np.int64), gain, 1, 2)
    assert move.tolist() == [True, False, True, False, False]


def test_no_bucket_gives_more_than_its_excess_over_k():
    # k = 4: the leftover T0 needs three more; each bucket of k + 2 can spare two. The three least
    # gains (1, 2, 3) are all in the second bucket, so the third donor comes from the first (4).
    bucket = np.array([0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2])
    gain = np.array([0.0, 10.0, 4.0, 12.0, 6.0, 11.0, 9.0, 3.0, 8.0, 1.0, 2.0, 7.0, 5.0])
    move = _balance(bucket, np.zeros(13, dtype=np.int64), gain, 1, 4)
    assert np.flatnonzero(move).tolist() == [0, 2, 9, 10]


def test_aa_fixes_the_failing_itemset_of_least_support_first():
    # k = 3, m = 2: every item is held 3 or 4 times; the failing pairs are {a1, a2} and {a2, b2}
    # (support 1), {a1, b2} and {a2, b1} (support 2). Fixing {a1, a2} first generalizes to A,
    # which fixes all four and leaves b1, b2 alone. Fixing {a1, b2} first would generalize b2 to
    # B (as cheap as A, and first in enumeration order), and {a1, a2} would still need A.
    rows = [["a1"], ["a1", "a2", "b1"], ["a2", "b1", "b2"], ["a1", "b1", "b2"], ["a2"], ["a1", "b1", "b2"]]
    _, _, release = run("km-anonymity", {"k": "3", "m": "2"}, FIGURE_2, rows)
    assert as_sets(release) == [frozenset(row) for row in
                                [["A"], ["A", "b1"], ["A", "b1", "b2"], ["A", "b1", "b2"], ["A"], ["A", "b1", "b2"]]]
