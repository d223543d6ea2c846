"""qid_size at and past the longest record (an analyst's walkthrough of docs/rho.md's qid_size):
``all`` is refused past its budget of subsets, while a number at least the longest record minus
one is the same model, checked as exactly, without that bound."""

import numpy as np
import pytest

from ..report_keys import DOCS
from .rho_reference import unsafe_rules
from setveil.core.errors import Infeasible
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.rho import checker
from setveil.plugins.rho.checker import rho_violations

SENSITIVE = frozenset({"hiv"})
# the longest record has 5 items; two records of 4 items and hiv have 32 subsets each
ROWS = [["a", "b", "c", "d", "hiv"], ["a", "b", "c", "e", "hiv"], ["a", "b", "c"], ["a", "b"], ["a"], ["x"]]


def release(qid_size: str) -> tuple[Window, Window]:
    window = Window.from_transactions(ROWS)
    config = get_registry().configure("rho", "mine", {"rho": "0.5", "qid_size": qid_size, "workers": "1"},
                                      Context(schema=ItemSchema(private=SENSITIVE)))
    return window, config.model.anonymize(window, config.policy, np.random.default_rng(0)).window


def test_all_past_its_budget_is_refused_and_the_longest_record_less_one_is_not(monkeypatch):
    assert (frozenset("abc"), "hiv") in unsafe_rules(ROWS, SENSITIVE, 0.5, 3)  # 2/3 > 0.5
    monkeypatch.setattr(checker, "ALL_SUBSETS_BUDGET", 32)
    with pytest.raises(Infeasible, match="qid_size=all"):
        release("all")
    for qid_size in ("4", "100"):
        window, released = release(qid_size)
        # every qid of every size, as all promises, by the literal reference
        assert not unsafe_rules([set(r) for r in released], SENSITIVE, 0.5, max(map(len, ROWS)))
        assert not list(rho_violations(window, released, SENSITIVE, 0.5, int(qid_size)))
    monkeypatch.undo()
    assert not list(rho_violations(window, released, SENSITIVE, 0.5, "all"))


def test_docs_rho_says_a_number_past_the_longest_record_is_all_without_its_bound():
    text = " ".join((DOCS / "rho.md").read_text().split())
    assert ("never a silent smaller check. A number at least the longest record minus one is the same model "
            "without that bound, checked as exactly") in text
