"""A policy from another distribution: registered through the hook, run without touching the
model, and still held to the model's check."""

import dataclasses
from pathlib import Path

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
from setveil.plugins.rho.policies import Options, PolicyError

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


class DeletesTwice(DeletesNothing):
    """Breaks the contract: names one record twice."""

    name = "deletes-twice"
    summary = "picks the first record twice"

    def pick_records(self, records, count, state):
        return np.repeat(records[:1], 2)


class DeletesElsewhere(DeletesNothing):
    """Breaks the contract: picks a record outside C(q ∪ {e})."""

    name = "deletes-elsewhere"
    summary = "picks a record that does not hold the rule"

    def pick_records(self, records, count, state):
        return np.setdiff1d(np.arange(len(state.record_length)), records)[:1]


class ChoosesPastTheEnd(DeletesNothing):
    """Breaks the contract: chooses an option that is not offered."""

    name = "chooses-past-the-end"
    summary = "chooses the option after the last"

    def choose(self, options, state):
        return len(options.victim)


class ChoosesBeforeTheStart(ChoosesPastTheEnd):
    name = "chooses-before-the-start"
    summary = "chooses option -1"

    def choose(self, options, state):
        return -1


class ScoresOneTooMany(DeletesNothing):
    """Breaks the contract: one score more than there are options."""

    name = "scores-one-too-many"
    summary = "scores an option that is not offered"

    def score(self, options, state):
        return np.zeros(len(options.victim) + 1)


class ThirdParty:
    @hookimpl
    def setveil_register_policies(self, register):
        for policy in (AntecedentFirst, DeletesNothing, DeletesTwice, DeletesElsewhere, ChoosesPastTheEnd,
                       ChoosesBeforeTheStart, ScoresOneTooMany):
            register(policy)


@pytest.fixture
def pm(register_plugin):
    return register_plugin(ThirdParty())


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


@pytest.mark.parametrize("policy, breach", [
    ("deletes-twice", "picked 2 records, not distinct records holding the rule"),
    ("deletes-elsewhere", "picked 1 record, not distinct records holding the rule"),
    ("chooses-past-the-end", "chose option 1 of 1"),
    ("chooses-before-the-start", "chose option -1 of 1"),
    # regression (a plugin author's walkthrough): numpy's "all keys need to be the same shape"
    ("scores-one-too-many", "scored 2 options of 1"),
])
def test_a_policy_that_breaks_the_contract_is_named_as_the_reason_the_window_fails(pm, policy, breach):
    # The first unsafe rule is the empty qid's -> condom (Table 1): one option, delete condom from
    # records of C({condom}). Another record, a record twice or another option would corrupt the table
    # or delete outside the rule; the window fails closed and the reason says the policy broke its
    # contract, not that the model erred elsewhere or the release failed the check.
    pipeline = Pipeline(get_registry().configure("rho", policy, {"rho": "0.5"}, CONTEXT), pm)
    with pytest.raises(WindowRejected) as rejected:
        pipeline.run(Window.from_transactions(TABLE_1), np.random.default_rng(0))
    assert rejected.value.reason == "model error: PolicyError"
    assert isinstance(rejected.value.cause, PolicyError) and breach in str(rejected.value.cause)


def test_every_field_of_the_options_a_policy_reads_is_named_in_the_docs():
    # Regression (docs audit): docs/rho.md listed the fields of Options without `qid`
    text = (Path(__file__).parents[2] / "docs" / "rho.md").read_text(encoding="utf-8")
    paragraph = text[text.index("`Options` lists"):text.index("`State` exposes")]
    assert [f.name for f in dataclasses.fields(Options) if f"`{f.name}`" not in paragraph] == []
