"""The CSR arrays of the itemsets listed at once from rows (itemset_arrays_of_rows) and a part at a
time (conditional_itemset_arrays) hold item ids past 2**16 as pyfim lists them: a window of 70,000
items, the two frequent ones the last."""

import fim

from setveil.core.mining import conditional_itemset_arrays, itemset_arrays_of_rows
from setveil.core.window import Window

SINGLES = [[f"s{n}"] for n in range(70_000)]
WINDOW = Window.from_transactions(SINGLES + [["x", "y"], ["x", "y"], ["x"]])


def listed(parts):
    found = set()
    for indptr, ids, supports in parts:
        found |= {(frozenset(ids[indptr[j]:indptr[j + 1]].tolist()), int(supports[j])) for j in range(len(supports))}
    return found


def by_pyfim(rows, support):
    return {(frozenset(itemset), count) for itemset, count in fim.fpgrowth(rows, supp=-support, zmin=1, report="a")}


def test_itemsets_listed_at_once_keep_ids_past_int16():
    rows = [[70_001, 90_000], [70_001, 90_000], [70_001], []]
    assert listed([itemset_arrays_of_rows(rows, 2, None)]) == by_pyfim(rows, 2) == {
        (frozenset({70_001}), 3), (frozenset({90_000}), 2), (frozenset({70_001, 90_000}), 2)}


def test_itemsets_mined_in_parts_keep_ids_past_int16():
    x, y = WINDOW.vocab.ids(["x", "y"]).tolist()
    assert min(x, y) >= 1 << 16
    rows = [WINDOW.row(position).tolist() for position in range(len(WINDOW))] + [[]]
    assert listed(conditional_itemset_arrays(WINDOW, 2, None)) == by_pyfim(rows, 2) == {
        (frozenset({x}), 3), (frozenset({y}), 2), (frozenset({x, y}), 2)}
