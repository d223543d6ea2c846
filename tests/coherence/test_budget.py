"""The search for minimal moles, its check and AA (km-anonymity) stop at a budget rather than
take every byte of the machine (a QA pass as an operator: a window of 5 transactions sharing 2,000
public items took 24 GiB in 25 s and the kernel killed the worker, which took the same window
again on restart)."""

import pytest

from setveil.core.engine import Pipeline, window_rng
from setveil.core.errors import WindowRejected
from setveil.core.mining import MiningTooLarge, within_budget
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, get_registry
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence.checker import coherence_violations
from setveil.plugins.coherence.moles import find_minimal_moles

SCHEMA = ItemSchema(private=frozenset({"secret"}))


def wide(items: int) -> Window:
    shared = [f"t{i}" for i in range(items)]
    return Window.from_transactions([shared] * 5 + [["secret", "t1"]])


def test_a_window_of_shared_public_items_fails_closed_saying_why():
    configured = get_registry().configure("coherence", None, {"h": "0.4", "k": "5", "p": "3"}, Context(schema=SCHEMA))
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, get_plugin_manager()).run(wide(2_000), window_rng(0, 0))
    assert rejected.value.reason == (
        "model error: mining at a support of 5 transaction(s) would list up to 1,331,334,000 candidate itemsets of "
        "size 3 in the search for minimal moles (lower p, or cut smaller windows), more than the budget of 10,000,000")


def test_the_budget_counts_each_level_before_listing_it():
    window = wide(400)  # 79,800 pairs, then C(400, 3) = 10,586,800 triples
    classes = SCHEMA.classes(window.vocab)
    public, private = classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE
    assert find_minimal_moles(window, public, private, 0.4, 5, 2).candidates == [400, 79_800]
    with pytest.raises(MiningTooLarge, match="up to 10,586,800 candidate itemsets of size 3"):
        find_minimal_moles(window, public, private, 0.4, 5, 3)


def test_the_pairs_are_bounded_before_the_product_that_lists_them():
    # With k=1 each of 8,946 public items is extendible: at most C(8946, 2) = 40,010,985 pairs, and
    # 8,100 transactions of the same 100 items hold 8,100 * C(100, 2) = 40,095,000 with repeats.
    # The lesser is past the budget of 40,000,000, though the product would list only 4,950 pairs:
    # a bound, not a count, so that no product can grow past it (mutation testing: a budget 100
    # times larger passed every test)
    shared = [f"t{i}" for i in range(100)]
    window = Window.from_transactions([shared] * 8_100 + [[f"u{i}"] for i in range(8_846)])
    classes = SCHEMA.classes(window.vocab)
    with pytest.raises(MiningTooLarge, match="up to 40,010,985 candidate itemsets of size 2 .* budget of 40,000,000$"):
        find_minimal_moles(window, classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE, 0.4, 1, 2)


def test_the_check_stops_at_the_mining_budget():
    window = wide(2_000)
    with pytest.raises(MiningTooLarge, match="would list up to 1,333,335,000 itemsets, more than the budget of 25,000,000"):
        list(coherence_violations(window, window, SCHEMA, 0.4, 5, 3))


def test_a_budget_error_raised_outside_setveil_is_no_reason():
    # its text could quote the data, as any plugin's message could: the reason is its type alone
    assert MiningTooLarge(3, 2, 1, what="labels such as HIV").words is None
    with pytest.raises(MiningTooLarge) as refused:  # nor one a plugin asks the shared check for
        within_budget(3, 2, 1, "labels such as HIV")
    assert refused.value.words is None


def test_aa_stops_at_its_budget_of_distinct_itemsets():
    # the same window under km-anonymity: AA keeps a count of every distinct 3-itemset
    configured = get_registry().configure("km-anonymity", None, {"k": "5", "m": "3"}, Context(fanout=4))
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, get_plugin_manager()).run(wide(2_000), window_rng(0, 0))
    assert rejected.value.reason.startswith("model error: mining at a support of 1 transaction(s) would list up to ")
    assert rejected.value.reason.endswith(" distinct 3-itemsets (at least: counting stopped there) for AA to find those "
                                          "below k (lower m, or cut smaller windows), more than the budget of 8,388,608")


def test_the_tidsets_a_level_keeps_for_the_next_are_counted_before_they_are_made(monkeypatch):
    # Review: the candidate budget counts itemsets, but each extendible one keeps a tidset of a bit
    # per transaction for the next level; connect at the paper's δ=40%, k=100 and p=7 has 1,819,041
    # extendible itemsets of size 6, whose tidsets asked for 14.3 GiB with no budget in the way. A
    # smaller budget stands for it here: 6 transactions of the same 6 items and a seventh of 2 (the
    # rows of two items or more: 7 bits, one word), k=6: 15 extendible pairs, 8 bytes each
    from setveil.plugins.coherence import moles

    window = Window.from_transactions([[f"t{i}" for i in range(6)]] * 6 + [["t0", "t1"]])
    classes = SCHEMA.classes(window.vocab)
    public, private = classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE
    monkeypatch.setattr(moles, "FRONTIER_BUDGET", 15 * 8 - 1)
    assert find_minimal_moles(window, public, private, 0.4, 6, 2).extendible == [6, 15]  # the last level keeps none
    with pytest.raises(MiningTooLarge, match=r"^mining at a support of 6 transaction\(s\) would list up to 120 bytes of "
                       r"tidsets of the 15 extendible itemsets of size 2 in the search for minimal moles \(lower p, or "
                       r"cut smaller windows\), more than the budget of 119$"):
        find_minimal_moles(window, public, private, 0.4, 6, 3)
    monkeypatch.setattr(moles, "FRONTIER_BUDGET", 15 * 8)
    assert find_minimal_moles(window, public, private, 0.4, 6, 3).extendible == [6, 15, 20]
