"""A rho policy whose scores hold a NaN broke its contract: the window fails closed naming it,
where lexsort ranked the NaN last and the policy's other options were chosen in silence."""

import numpy as np
import pytest

from setveil.core.engine import Pipeline
from setveil.core.errors import WindowRejected
from setveil.core.hookspecs import hookimpl
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.rho import RhoPolicy
from setveil.plugins.rho.policies import Options, PolicyError, State

from .test_table1 import TABLE_1


class ScoresNaN(RhoPolicy):
    """Breaks the contract: every option's score is NaN (0/0 in a heuristic)."""

    name = "scores-nan"
    summary = "scores every option NaN"

    def score(self, options, state):
        return np.full(len(options.victim), np.nan)


class RemovesNaN(ScoresNaN):
    name = "removes-nan"
    summary = "global suppression scoring every item type NaN"
    global_suppression = True


class NaNPolicies:
    @hookimpl
    def setveil_register_policies(self, register):
        register(ScoresNaN)
        register(RemovesNaN)


@pytest.fixture
def pm(register_plugin):
    return register_plugin(NaNPolicies())


CONTEXT = Context(schema=ItemSchema(private=frozenset({"condom"})))


@pytest.mark.parametrize("policy", ["scores-nan", "removes-nan"])
def test_a_policy_scoring_nan_fails_the_window_naming_the_policy(pm, policy):
    pipeline = Pipeline(get_registry().configure("rho", policy, {"rho": "0.5"}, CONTEXT), pm)
    with pytest.raises(WindowRejected) as rejected:
        pipeline.run(Window.from_transactions(TABLE_1), np.random.default_rng(0))
    assert rejected.value.reason == "model error: PolicyError"
    assert isinstance(rejected.value.cause, PolicyError)
    assert str(rejected.value.cause).startswith(f"the policy {policy!r} gave ")
    assert str(rejected.value.cause).endswith(" a NaN score")


class OneNaN(RhoPolicy):
    name = "one-nan"
    summary = "scores the second option NaN"

    def score(self, options, state):
        return np.where(np.arange(len(options.victim)) == 1, np.nan, 1.0)


def _options(n):
    items = np.arange(n)
    return (Options(qid=np.array([n]), victim=items, consequent=np.full(n, n), deletions=np.ones(n, np.int64),
                    in_qid=np.zeros(n, bool)),
            State(support=np.ones(n + 1), support0=np.ones(n + 1), total=n + 1, total0=n + 1,
                  unsafe_rules=np.zeros(n + 1), record_length=np.ones(1, np.int64), item_rank=np.arange(n + 1),
                  record_rank=np.zeros(1, np.int64)))


@pytest.mark.parametrize("n", [3, 40])  # a qid's few options, and the many a global step offers
def test_choose_counts_the_nan_scores_among_the_options(n):
    with pytest.raises(PolicyError) as refused:
        OneNaN().choose(*_options(n))
    assert str(refused.value) == f"the policy 'one-nan' gave 1 of {n} options a NaN score"
