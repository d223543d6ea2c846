"""The greedy step's criterion is the paper's MM(e)/IL(e) (Xu et al. §3, Fig. 3 line 3, Fig. 6 line 6)."""

import numpy as np

from setveil.core.schema import ItemSchema
from setveil.core.window import Window

from .conftest import coherence


def test_mm_il_suppresses_three_light_items_where_one_heavy_item_scores_less_per_unit_of_loss():
    # k=2, p=2, h=1: ab, ac and ad are each held once, the only minimal moles. Sup(a)=7 and
    # Sup(b)=Sup(c)=Sup(d)=2, so MM/IL is 3/7 for a and 1/2 for each of b, c, d: the greedy
    # suppresses b, c and d (loss 6), not a (loss 7). A score that divides by IL(e)+1 instead
    # (3/8 against 1/3) would take a, the one item of highest MM, as MM alone does.
    rows = [["a", "b"], ["a", "c"], ["a", "d"]] + [["a"]] * 4 + [["b"], ["c"], ["d"]]
    window = Window.from_transactions(rows)
    rng = np.random.default_rng(0)
    for policy, suppressed in (("mm-il", ["b", "c", "d"]), ("mm", ["a"])):
        configured = coherence(policy, h="1", schema=ItemSchema(private=frozenset()))
        release = configured.model.anonymize(window, configured.policy, rng)
        assert release.details["size1_moles"] == []
        assert release.details["suppressed"] == suppressed
