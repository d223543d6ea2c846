"""The measures of §5 mine the original and the release at σ from their items frequent on their
own: every frequent itemset is made of them, with the same support, so HF, MC and AP are what
mining every item gives, whatever the data, the release and the patterns."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import mining
from setveil.core.window import Window
from setveil.plugins.sanitize import metrics
from setveil.plugins.sanitize.metrics import PatternMetrics
from setveil.plugins.sanitize.patterns import RestrictivePatterns

ITEMS = list("abcdefg")
transactions = st.lists(st.lists(st.sampled_from(ITEMS), unique=True, max_size=6), min_size=1, max_size=25)


def itemsets(found):
    indptr, ids, supports = found
    return sorted((tuple(sorted(ids[indptr[j]:indptr[j + 1]].tolist())), int(supports[j]))
                  for j in range(len(supports)))


@settings(max_examples=200, deadline=None)
@given(rows=transactions, min_support=st.integers(1, 8))
def test_the_frequent_items_alone_give_every_frequent_itemset(rows, min_support):
    window = Window.from_transactions(rows)
    assert itemsets(mining.frequent_itemset_arrays(window, min_support, items=window.supports >= min_support)) == \
        itemsets(mining.frequent_itemset_arrays(window, min_support))


def every_item(window, min_support, *, items=None, **given):
    return mining.frequent_itemset_arrays(window, min_support, **given)


@settings(max_examples=150, deadline=None)
@given(rows=transactions, dropped=st.lists(st.integers(0, 60), max_size=30),
       patterns=st.lists(st.lists(st.sampled_from(ITEMS + ["z"]), min_size=2, max_size=3, unique=True), min_size=1,
                         max_size=4, unique_by=frozenset),
       sigma=st.sampled_from([0.05, 0.2, 0.4, 0.7]))
def test_the_measures_are_those_of_mining_every_item(rows, dropped, patterns, sigma):
    original = Window.from_transactions(rows)
    keep = np.ones(original.n_occurrences, dtype=bool)
    keep[[d for d in dropped if d < len(keep)]] = False
    release = original.keep_occurrences(keep)
    restrictive = RestrictivePatterns("p.txt", tuple(map(tuple, patterns)), tuple(range(1, len(patterns) + 1)))
    figures = PatternMetrics(original, sigma).evaluate(release, restrictive)
    with mock.patch.object(metrics, "frequent_itemset_arrays", every_item):
        assert figures == PatternMetrics(original, sigma).evaluate(release, restrictive)


def test_the_miner_is_given_the_frequent_items_alone():
    original = Window.from_transactions([["a", "b"], ["a", "c"], ["a", "b", "d"], ["b"]])
    asked = []

    def spy(window, min_support, **given):
        asked.append(given["items"].tolist() if given.get("items") is not None else None)
        return mining.frequent_itemset_arrays(window, min_support, **given)

    with mock.patch.object(metrics, "frequent_itemset_arrays", spy):
        PatternMetrics(original, 0.5).evaluate(original.suppress(original.vocab.ids(["b"])),
                                               RestrictivePatterns("p.txt", (("a", "b"),), (1,)))
    # support >= 2 of 4: a and b in the original; a alone in the release
    assert asked == [[True, True, False, False], [True, False, False, False]]
