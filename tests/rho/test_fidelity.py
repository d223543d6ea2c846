"""Where Jia et al. are loose and the model reads them one way (docs/rho.md, Choices): each
reading pinned on a table small enough to check by hand."""

import numpy as np
import pytest

from .rho_reference import unsafe_rules
from .test_algorithm import table_of
from .test_hand_examples import current, labelled
from setveil.plugins.rho.checker import rho_violations
from setveil.plugins.rho.policies import Dist, Mine
from setveil.plugins.rho.suppressor import PartialSuppressor


def test_a_sensitive_item_of_the_qid_is_no_consequent_of_it():
    # §2.1 asks conf(q -> e) <= ρ "for any sensitive item e", and Algorithm 2 line 4 takes E
    # from every sensitive item: read literally, q = {s} gives s -> s at confidence 1 and no
    # record holding s could ever be safe. Only e ∉ q counts. Sensitive s (item 1); ρ = 0.5:
    # ∅ -> s is 1/3 and t -> s 1/3, so nothing is unsafe and nothing is deleted.
    rows = [[0, 1], [0], [0]]
    window = labelled(rows)
    assert not list(rho_violations(window, window, frozenset({"i1"}), 0.5, 2))
    assert not unsafe_rules([["i0", "i1"], ["i0"], ["i0"]], {"i1"}, 0.5, 2)
    table = table_of(rows, 2, [1])
    stats = PartialSuppressor(table, Mine(), 0.5, 2, 1_000_000, np.random.default_rng(0)).run()
    assert current(table, rows) == rows
    assert stats["deletions"] == 0


class Recording:
    """Wraps a policy and keeps every option list SANITIZEBUFFER offered it."""

    def __init__(self, policy):
        self.policy, self.offered = policy, []

    def __getattr__(self, name):
        return getattr(self.policy, name)

    def choose(self, options, state):
        self.offered.append((options.qid.copy(), options.victim.copy(), options.consequent.copy(),
                             options.in_qid.copy()))
        return self.policy.choose(options, state)


@pytest.mark.parametrize("policy", [Mine(), Dist()])
@pytest.mark.parametrize("seed", range(3))
def test_the_victim_of_a_rule_is_its_consequent_or_an_item_of_its_qid(policy, seed):
    # Algorithm 2 lines 6 and 8 write d ∈ q ∪ E, but line 11 deletes N_s(d, q -> e) instances of
    # d, which Definition 1 defines only for d ∈ q ∪ {e}: deleting another consequent e' ∈ E
    # does not lower conf(q -> e). Items a = 0, s = 1, u = 2 (s, u sensitive), ρ = 0.5: a -> s
    # and a -> u are both 2/3 (two consequents of one qid, held by several records), s -> u and
    # u -> s 2/2; the fillers keep the empty qid safe.
    rows = [[0, 1, 2], [0, 1, 2], [0]] + [[3]] * 6
    recording = Recording(policy)
    table = table_of(rows, 4, [1, 2])
    PartialSuppressor(table, recording, 0.5, 2, 1_000_000, np.random.default_rng(seed)).run()
    assert any(len(np.unique(consequent)) > 1 for _, _, consequent, _ in recording.offered)
    for qid, victim, consequent, in_qid in recording.offered:
        assert (victim[~in_qid] == consequent[~in_qid]).all()
        assert np.isin(victim[in_qid], qid).all()
        assert not np.isin(consequent, qid).any()
    window = labelled(rows)
    assert not list(rho_violations(window, labelled(current(table, rows)), frozenset({"i1", "i2"}), 0.5, 2))
