"""The offline commands' mining counts its budget a few sizes at a time (``by_size``): each caller
refuses the windows it refused counting every size at once, and no other, and gives the same
result where it does not refuse; the budget is set small here so that random windows meet it."""

from hypothesis import given, settings, strategies as st
import pytest

from setveil.core import mining
from setveil.core.mining import MiningTooLarge
from setveil.core.schema import ItemSchema
from setveil.core.window import Window

ROWS = st.lists(st.lists(st.sampled_from("abcdefghijkl"), min_size=0, max_size=10, unique=True), min_size=1,
                max_size=25)


def every_size_at_once(miner):
    """``miner`` with by_size off, as the callers asked it before."""
    return lambda *args, **kwargs: miner(*args, **{**kwargs, "by_size": False})


def outcome(run):
    try:
        return run()
    except MiningTooLarge as refused:
        assert refused.count > refused.budget
        return MiningTooLarge


def same_with_and_without_by_size(module, name, run):
    by_size = outcome(run)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, name, every_size_at_once(getattr(mining, name)))
        assert outcome(run) == by_size
    return by_size


@settings(max_examples=200, deadline=None)
@given(ROWS, st.integers(1, 4), st.integers(1, 6), st.integers(0, 400))
def test_the_coherence_check(rows, k, p, budget):
    from setveil.plugins.coherence import checker

    window = Window.from_transactions(rows)
    schema = ItemSchema(private=frozenset({"a"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker, "ITEMSET_BUDGET", budget)
        same_with_and_without_by_size(
            checker, "frequent_itemsets",
            lambda: list(checker.coherence_violations(window, window, schema, 0.5, k, p)))


@settings(max_examples=200, deadline=None)
@given(ROWS, st.integers(2, 3), st.integers(2, 6), st.sampled_from([0.1, 0.2, 0.5]), st.integers(0, 400))
def test_patterns_sample_and_its_supersets(rows, min_length, max_length, sigma, budget):
    from setveil.plugins.sanitize import sample

    window = Window.from_transactions(rows)

    def picked():
        try:
            patterns = sample.sample_patterns(window, 2, min_length, max(min_length, max_length), sigma, 1.0, 0)
        except sample.TooFewPatterns as few:
            return str(few)
        return patterns, sample.frequent_supersets(window, patterns, sigma / 2)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sample, "ITEMSET_BUDGET", budget)
        same_with_and_without_by_size(sample, "frequent_itemset_arrays", picked)


@settings(max_examples=200, deadline=None)
@given(ROWS, st.sampled_from([0.05, 0.1, 0.2, 0.5]), st.sampled_from([None, 1, 2, 3, 5]), st.integers(0, 400))
def test_the_audits_mining(rows, sigma, max_size, budget):
    from setveil.plugins.audit import itemsets

    window = Window.from_transactions(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(itemsets, "ITEMSET_BUDGET", budget)
        same_with_and_without_by_size(itemsets, "frequent_itemset_arrays",
                                      lambda: itemsets.ItemsetCollection.mine(window, sigma, max_size).text())
