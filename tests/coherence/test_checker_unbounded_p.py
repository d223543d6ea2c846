"""The independent check at a p past every transaction, as a user who means "no bound" gives it."""

from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence import checker

from .conftest import FIGURE_1, PRIVATE

NO_BOUND = 2**63 - 1  # the largest p the parameter takes


def test_the_checker_sizes_its_blocks_by_the_longest_itemset_mined_not_by_p(monkeypatch):
    # User walkthrough: verify of 1,000 mushroom transactions took 10.7 s at p=2**63-1 and 0.08 s
    # at p=100, the same itemsets mined, since blocks sized for itemsets of p items held one
    asked = []
    block_size = checker._Groups.block_size
    monkeypatch.setattr(checker._Groups, "block_size", lambda self, p: asked.append(p) or block_size(self, p))
    window = Window.from_transactions(FIGURE_1)
    schema = ItemSchema(private=PRIVATE)
    # Fig. 1's longest transaction holds 5 public items, and its longest public itemset held by
    # k=2 transactions is a c f g (T1 and T5): p=5 is as good as no bound, and blocks are for 4
    longest = list(checker.coherence_violations(window, window, schema, 0.8, 2, 5))
    unbounded = list(checker.coherence_violations(window, window, schema, 0.8, 2, NO_BOUND))
    assert asked == [4, 4]
    assert unbounded == longest and unbounded
    public = schema.classes(window.vocab) == ItemClass.PUBLIC
    assert checker._Groups(window, public).block_size(NO_BOUND) == 1
