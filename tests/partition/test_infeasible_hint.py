"""kanonymity's refusal of a window of at least k transactions, fewer than k of them non-empty, asks
for windows holding k non-empty transactions: 'windows of at least k transactions' was advice the
window already followed (the service's window.min_transactions is k, empty ones counted)."""

import numpy as np
import pytest

from setveil.core.errors import Infeasible
from setveil.core.hierarchy import Hierarchy
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.window import Window


def test_a_window_of_k_transactions_with_fewer_non_empty_asks_for_non_empty_ones():
    window = Window.from_transactions([["a1", "b1"], [], [], ["a2"]])
    hierarchy = Hierarchy.balanced(["a1", "a2", "b1"], 2)
    configured = get_registry().configure("kanonymity", None, {"k": 4}, Context(hierarchy=hierarchy))
    with pytest.raises(Infeasible) as refused:
        configured.model.anonymize(window, configured.policy, np.random.default_rng(0))
    assert str(refused.value) == ("the window has 2 non-empty transactions, fewer than k=4: even generalizing every "
                                  "item to the root leaves fewer than k alike; use windows holding at least k "
                                  "non-empty transactions")
