"""A policy from another distribution: registered through the hook, run without touching the
model, and still held to the model's check."""

import numpy as np
import pytest

from setveil.core.engine import Pipeline
from setveil.core.errors import WindowRejected
from setveil.core.hookspecs import hookimpl
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, get_registry, reset
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.rho import RhoPolicy

from .test_table1 import TABLE_1


class AntecedentFirst(RhoPolicy):
    """Delete an item of the qid rather than the sensitive consequent, the rarest first."""

    name = "antecedent-first"
    summary = "delete the rarest item of the unsafe qid"

    def score(self, options, state):
        return np.where(options.in_qid, 1.0 / state.support[options.victim], -1.0)


class DeletesNothing(RhoPolicy):
    """Breaks the contract: asks for deletions in records that do not exist."""

    name = "deletes-nothing"
    summary = "picks no record"

    def score(self, options, state):
        return np.zeros(len(options.victim))

    def pick_records(self, records, count, state):
        return records[:0]


class ThirdParty:
    @hookimpl
    def setveil_register_policies(self, register):
        register(AntecedentFirst)
        register(DeletesNothing)


@pytest.fixture
def pm():
    reset()
    manager = get_plugin_manager()
    manager.register(ThirdParty())
    yield manager
    reset()


CONTEXT = Context(schema=ItemSchema(private=frozenset({"condom"})))


def test_a_third_party_policy_runs_without_touching_the_model(pm):
    window = Window.from_transactions(TABLE_1)
    outcome = Pipeline(get_registry().configure("rho", "antecedent-first", {"rho": "0.5"}, CONTEXT), pm).run(
        window, np.random.default_rng(0)
    )
    deleted = [sorted(set(a) - set(b)) for a, b in zip(window, outcome.release.window)]
    # the empty qid can only lose a condom; flour -> condom then loses flour, its antecedent
    assert deleted == [["condom"], [], [], [], ["flour"], [], []]


def test_a_policy_that_breaks_the_contract_fails_closed(pm):
    window = Window.from_transactions(TABLE_1)
    pipeline = Pipeline(get_registry().configure("rho", "deletes-nothing", {"rho": "0.5"}, CONTEXT), pm)
    with pytest.raises(WindowRejected):
        pipeline.run(window, np.random.default_rng(0))
