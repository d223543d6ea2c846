"""Mining ``unordered`` gives pyfim the items frequent on their own alone: the same itemsets with
the same supports, the same refusals with the same words, on any window (an item in every record,
records left empty, any bounds and budgets), only listed in another order; the callers that ask
for it sort what they are given, so their output is the same too."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from setveil.core import mining
from setveil.core.mining import MiningTooLarge, frequent_itemset_arrays
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefghij"), min_size=0, max_size=8, unique=True), min_size=1,
                max_size=25)

# a window whose itemsets pyfim lists in another order without its infrequent items (found by a review)
REORDERED = [["d", "f", "e"], ["b", "c", "a"], [], ["d"], ["c"], ["d", "f", "c", "g", "e"], ["e", "c", "g"],
             ["d", "e", "b", "c"]]


def as_ordered(*args, unordered=False, **kwargs):
    """The miner as the callers asked it before they could ask for ``unordered``."""
    return frequent_itemset_arrays(*args, **kwargs)


def outcome(run):
    try:
        return run()
    except MiningTooLarge as refused:
        return MiningTooLarge, str(refused)


def mapping(found):
    indptr, ids, supports = found
    return {frozenset(ids[indptr[j]:indptr[j + 1]].tolist()): int(supports[j]) for j in range(len(supports))}


def with_and_without(module, run):
    unordered = outcome(run)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "frequent_itemset_arrays", as_ordered)
        assert outcome(run) == unordered
    return unordered


@settings(max_examples=300, deadline=None)
@given(ROWS, st.booleans(), st.integers(1, 6), st.integers(1, 4), st.sampled_from([None, 0, 1, 2, 3, 5, 2**63]),
       st.sampled_from(["s", "c", "m"]), st.one_of(st.none(), st.integers(0, 400)), st.booleans(),
       st.one_of(st.none(), st.sets(st.sampled_from("abcdefghijz"))))
def test_the_same_itemsets_and_supports_or_the_same_refusal(rows, everywhere, min_support, min_size, max_size, target,
                                                             budget, by_size, chosen):
    window = Window.from_transactions([row + ["z"] for row in rows] if everywhere else rows)
    items = None if chosen is None else window.vocab.mask(sorted(chosen))
    given_ = dict(min_size=min_size, max_size=max_size, items=items, target=target, budget=budget, by_size=by_size)

    def mined(unordered):
        return lambda: mapping(frequent_itemset_arrays(window, min_support, unordered=unordered, **given_))

    assert outcome(mined(True)) == outcome(mined(False))


def test_an_item_in_every_record_is_mined_at_a_support_of_one():
    window = Window.from_transactions([["a", "b"], ["a"], [], ["a", "c"]])
    everywhere = Window.from_transactions([["a", "b"], ["a"], ["a", "c"]])
    assert mapping(frequent_itemset_arrays(everywhere, 3, unordered=True)) == {frozenset({0}): 3}
    assert mapping(frequent_itemset_arrays(window, 1, unordered=True)) == \
        {frozenset({0}): 3, frozenset({1}): 1, frozenset({2}): 1, frozenset({0, 1}): 1, frozenset({0, 2}): 1}


def test_the_order_changes_and_the_itemsets_do_not():
    window = Window.from_transactions(REORDERED)
    ordered, unordered = frequent_itemset_arrays(window, 2), frequent_itemset_arrays(window, 2, unordered=True)
    assert not np.array_equal(ordered[1], unordered[1])
    assert mapping(ordered) == mapping(unordered)


def test_the_audits_itemsets_on_the_reordered_window():
    from setveil.plugins.audit import itemsets

    window = Window.from_transactions(REORDERED)
    text = with_and_without(itemsets, lambda: itemsets.ItemsetCollection.mine(window, 0.25).text())
    assert text == ("0.25 b\n0.625 c\n0.5 d\n0.5 e\n0.25 f\n0.25 g\n0.25 b c\n0.25 c d\n0.375 c e\n0.25 c g\n"
                    "0.375 d e\n0.25 d f\n0.25 e f\n0.25 e g\n0.25 c d e\n0.25 c e g\n0.25 d e f\n")


def test_the_supersets_on_the_reordered_window():
    from setveil.plugins.sanitize import sample

    window = Window.from_transactions(REORDERED)
    found = with_and_without(sample, lambda: sample.frequent_supersets(window, [("c", "e"), ("d",)], 0.25))
    assert found == [("c", "d"), ("d", "e"), ("d", "f"), ("c", "d", "e"), ("c", "e", "g"), ("d", "e", "f")]


@settings(max_examples=200, deadline=None)
@given(ROWS, st.sampled_from([0.05, 0.1, 0.2, 0.5]), st.sampled_from([None, 1, 2, 3, 5]), st.integers(0, 400))
def test_the_audits_itemsets(rows, sigma, max_size, budget):
    from setveil.plugins.audit import itemsets

    window = Window.from_transactions(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(itemsets, "ITEMSET_BUDGET", budget)
        with_and_without(itemsets, lambda: itemsets.ItemsetCollection.mine(window, sigma, max_size).text())


@settings(max_examples=200, deadline=None)
@given(ROWS, st.lists(st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=3, unique=True), min_size=1,
                      max_size=3), st.sampled_from([0.05, 0.1, 0.2, 0.5]), st.integers(0, 400))
def test_the_supersets(rows, patterns, sigma, budget):
    from setveil.plugins.sanitize import sample

    window = Window.from_transactions(rows)
    patterns = [tuple(p) for p in patterns if all(label in window.vocab for label in p)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sample, "ITEMSET_BUDGET", budget)
        with_and_without(sample, lambda: sample.frequent_supersets(window, patterns, sigma))


def test_the_pick_keeps_the_miners_order():
    """sample_patterns draws its picks from the order pyfim lists them in, so it mines every item."""
    from setveil.plugins.sanitize import sample

    asked = []

    def spy(*args, **kwargs):
        asked.append(kwargs.get("unordered", False))
        return frequent_itemset_arrays(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sample, "frequent_itemset_arrays", spy)
        sample.sample_patterns(Window.from_transactions(REORDERED), 2, 2, 3, 0.25, 1.0, 0)
    assert asked == [False]


def test_the_sizes_counted_are_those_of_the_records_as_given():
    """A refusal counted by size says "at least" where the longest record, infrequent items and
    all, leaves sizes to count: the same words as before the infrequent items were left out."""
    window = Window.from_transactions([["a", "b", "c", "d", "e", "f", "g", "h"], ["a", "b", "c"], ["a", "b", "c"]])
    refusals = [outcome(lambda: frequent_itemset_arrays(window, 2, budget=6, by_size=True, unordered=unordered))
                for unordered in (False, True)]
    assert refusals[0] == refusals[1]
    assert "at least 7 itemsets" in refusals[0][1]
    assert mining._longest(window, None) == 8


@pytest.mark.slow
def test_retail_as_published_and_sampled_before(datasets):
    """retail at σ 1% (70 of its 16,470 items frequent): the audit's itemsets and §5.1's supersets
    of ten picks, byte for byte what they were when pyfim read every item."""
    import hashlib

    from setveil.core.formats import read_window
    from setveil.plugins.audit import itemsets
    from setveil.plugins.sanitize import sample

    window = read_window(datasets / "retail.dat")
    text = with_and_without(itemsets, lambda: itemsets.ItemsetCollection.mine(window, 0.01).text())
    assert hashlib.sha256(text.encode()).hexdigest() == \
        "778824b63eb2a688a13f782f1447fc5dab5e47e64829021a6c47d55db5218644"
    picks = sample.sample_patterns(window, 10, 2, 5, 0.01, 0.4, 1)
    supersets = with_and_without(sample, lambda: sample.frequent_supersets(window, picks, 0.005))
    assert (len(picks), len(supersets)) == (10, 24)
