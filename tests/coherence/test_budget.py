"""The search for minimal moles, its check and AA (km-anonymity) stop at a budget rather than
take every byte of the machine (a QA pass as an operator: a window of 5 transactions sharing 2,000
public items took 24 GiB in 25 s and the kernel killed the worker, which took the same window
again on restart)."""

import numpy as np
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
        "model error: mining at a support of 5 transactions would list up to 1,331,334,000 candidate itemsets of "
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
    assert rejected.value.reason.startswith("model error: mining at a support of 1 transaction would list up to ")
    assert rejected.value.reason.endswith(" distinct 3-itemsets (at least: counting stopped there) for AA to find those "
                                          "below k (lower m, or cut smaller windows), more than the budget of 8,388,608")


def test_a_level_whose_tidsets_are_past_their_budget_keeps_none_and_the_next_ands_its_items(monkeypatch):
    # Review: the candidate budget counts itemsets, but each extendible one keeps a tidset of a bit
    # per transaction for the next level; connect at the paper's δ=40%, k=100 and p=7 has 1,819,041
    # extendible itemsets of size 6, whose tidsets would take 14.3 GiB. That failed the window closed
    # past FRONTIER_BUDGET (4 GiB); now such a level keeps none and the next level ANDs its
    # candidates' items' bitsets. Here each budget drops the levels of that many bytes or more:
    # the same moles and counts, every level kept, none kept, and some dropped then kept again.
    from setveil.plugins.coherence import moles

    rng = np.random.default_rng(3)  # moles of each size, and breaches at h=0.3 among them
    rows = [[f"p{i}" for i in range(12) if rng.random() < 0.5] + [f"s{i}" for i in range(3) if rng.random() < 0.1]
            for _ in range(150)]
    schema = ItemSchema(private=frozenset({"s0", "s1", "s2"}))
    window = Window.from_transactions(rows)
    classes = schema.classes(window.vocab)
    public, private = classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE

    kept = []  # per search: the tidsets each level kept (one past the budget makes none)
    made = moles._frontier_tidsets
    monkeypatch.setattr(moles, "_frontier_tidsets", lambda *args: kept[-1].append(made(*args)) or kept[-1][-1])

    def search():
        kept.append([])
        found = find_minimal_moles(window, public, private, 0.3, 6, 7)
        return found.size1.tolist(), [m.tolist() for m in found.moles], found.extendible, found.candidates

    expected = search()
    sizes = [tidsets.nbytes for tidsets in kept[-1]]
    assert len(sizes) == 5 and sizes.index(max(sizes)) not in (0, 4)  # levels 2..6, the largest between
    for budget in [0, *sorted(set(sizes))]:
        monkeypatch.setattr(moles, "FRONTIER_BUDGET", budget - 1)
        assert search() == expected
        assert [t.nbytes for t in kept[-1]] == [size for size in sizes if size < budget]
    assert expected[2] == [12, 65, 184, 245, 77, 2, 0] and [len(m) for m in expected[1]] == [1, 26, 41, 76, 2, 0]


def test_the_tidsets_of_a_level_past_their_budget_are_not_made(monkeypatch):
    # 6 transactions of the same 6 items and a seventh of 2 (the rows of two items or more: 7 bits,
    # one word), k=6: 15 extendible pairs, 20 triples, 15 4-itemsets and 6 5-itemsets, 8 bytes each.
    # At a budget of 159 bytes the pairs keep their tidsets, the triples keep none (160 bytes
    # of them), and the 4-itemsets, counted from their items, keep theirs again
    from setveil.plugins.coherence import moles

    window = Window.from_transactions([[f"t{i}" for i in range(6)]] * 6 + [["t0", "t1"]])
    classes = SCHEMA.classes(window.vocab)
    public, private = classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE
    made = []
    frontier = moles._frontier_tidsets
    monkeypatch.setattr(moles, "_frontier_tidsets", lambda *args: made.append(len(args[1])) or frontier(*args))
    monkeypatch.setattr(moles, "FRONTIER_BUDGET", 20 * 8 - 1)
    assert find_minimal_moles(window, public, private, 0.4, 6, 5).extendible == [6, 15, 20, 15, 6]
    assert made == [15, 15]
    made.clear()
    monkeypatch.setattr(moles, "FRONTIER_BUDGET", 20 * 8)
    assert find_minimal_moles(window, public, private, 0.4, 6, 5).extendible == [6, 15, 20, 15, 6]
    assert made == [15, 20, 15]


def test_items_are_joined_in_ascending_support_so_that_a_frequent_item_heads_no_large_prefix_group(monkeypatch):
    # retail at the service's setting (δ=50%, h=0.4, k=5, p=3, seed 1) was refused: its 26,204
    # extendible pairs, joined in item-id order, listed 14,812,473 triples (3,446 sharing one
    # item), of which 186,726 had every pair extendible. An item frequent with many others heads
    # their prefix group when its id is small; last in ascending support, it heads none. Here "hub"
    # (the first id) is held with each of 200 items twice: 19,900 joins by id, none by support.
    # The moles come back in item order: x0 x5 was joined as x5 x0 (x5 is held 3 times, x0 4)
    from setveil.plugins.coherence import moles

    rows = [["hub", f"x{i}"] for i in range(200) for _ in range(2)] + [["hub", "x0", "x1"], ["x0", "x5"]]
    window = Window.from_transactions(rows)
    classes = SCHEMA.classes(window.vocab)
    monkeypatch.setattr(moles, "CANDIDATE_BUDGET", 1_000)
    found = find_minimal_moles(window, classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE, 0.4, 2, 3)
    assert found.candidates == [201, 202, 0] and found.extendible == [201, 200, 0]
    labels = window.vocab.label
    assert [[[labels(int(i)) for i in mole] for mole in level] for level in found.moles] == [[["x0", "x1"], ["x0", "x5"]],
                                                                                              []]


def test_the_moles_come_back_in_item_order_whatever_order_the_search_joins_them():
    # the search joins the items in ascending support (4d7eaab) and puts each level's moles back
    # as the search in item-id order gave them: each mole's ids ascending, the moles ascending
    # among themselves; random windows, whose supports are in no order of the ids
    rng = np.random.default_rng(7)
    schema = ItemSchema(private=frozenset({"secret"}))
    joined = 0
    for _ in range(20):
        rows = [[f"i{j}" for j in np.flatnonzero(rng.random(14) < rng.uniform(0.2, 0.7))] for _ in range(40)]
        window = Window.from_transactions([*rows, ["secret", "i0"]])
        classes = schema.classes(window.vocab)
        search = find_minimal_moles(window, classes == ItemClass.PUBLIC, classes == ItemClass.PRIVATE, 0.9, 6, 4)
        for level in search.moles:
            assert (np.diff(level, axis=1) > 0).all()
            assert np.array_equal(level, level[np.lexsort(level.T[::-1])])
            joined += len(level) > 1 and not np.array_equal(np.lexsort(level.T), np.lexsort(level.T[::-1]))
    assert joined  # levels whose order by their last ids is not their order by their first
