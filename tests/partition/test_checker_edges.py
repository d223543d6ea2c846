"""The k-anonymity and k^m-anonymity checkers at the edges a random example seldom reaches:
an empty transaction beside the item of id 0, item ids past one byte, the itemset a violation
names, and the k and m the model hands to the checker (found by a mutation pass over
plugins/partition/checker.py and models.py)."""

from setveil.core.window import Window
from setveil.plugins.partition.checker import kanonymity_violations


def test_an_empty_transaction_is_identical_to_no_transaction_of_the_item_of_id_0():
    # Mutation pass: keying an empty row by the bytes of id 0 passed every hand-made test (the
    # random ones found it late): x (id 0) held once and one empty transaction are two classes of 1
    window = Window.from_transactions([["x"], []])
    assert window.vocab.label(0) == "x"
    assert [v.transaction for v in kanonymity_violations(window, 2)] == [0, 1]
    assert [v.transaction for v in kanonymity_violations(Window.from_transactions([["x"], ["x"], []]), 2)] == [2]
    assert list(kanonymity_violations(Window.from_transactions([["x"], [], ["x"], []]), 2)) == []


def test_transactions_are_compared_by_every_bit_of_their_item_ids():
    # Mutation pass: comparing rows by ids cut to one byte passed every test, as no window held
    # 257 labels; i0 (id 0) and i256 (id 256) are each held once, every other label twice
    labels = [f"i{j}" for j in range(300)]
    rows = [[label] for label in labels] + [[label] for label in labels if label not in ("i0", "i256")]
    window = Window.from_transactions(rows)
    assert (window.vocab.label(0), window.vocab.label(256)) == ("i0", "i256")
    assert [v.transaction for v in kanonymity_violations(window, 2)] == [0, 256]
