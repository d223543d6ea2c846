"""The conformance kit checks a generalization against the hierarchy it gave the model, as the
pipeline checks against setveil's (review: the kit checked against the model's own context)."""

import dataclasses

import pytest

from setveil import Hierarchy, Policy, PrivacyModel, Release, Transformation, Window
from setveil.core.model import Context
from setveil.core.plugins import Configured
from setveil.core.verify import release_violations
from setveil.testing import ConformanceSuite


class OnePolicy(Policy):
    name = "any"
    model = "own-hierarchy"
    summary = "the one policy"


class BringsItsOwnHierarchy(PrivacyModel):
    """Releases every item as the root of a hierarchy it makes and puts in its context."""

    name = "own-hierarchy"
    summary = "generalizes everything to a root of its own"
    guarantee = "nothing"
    transformation = Transformation.GENERALIZATION
    needs_hierarchy = True
    policy_base = OnePolicy

    def anonymize(self, window, policy, rng):
        labels = list(window.vocab.labels)
        self.context = dataclasses.replace(
            self.context, hierarchy=Hierarchy(["MINE", *labels], [-1, *([0] * len(labels))]))
        root = window.vocab.intern("MINE")
        return Release(Window.from_flat(window.vocab, [1] * len(window), [root] * len(window), window.tids))

    def violations(self, original, release):
        return iter(())


class _Suite(ConformanceSuite):
    model = "kanonymity"


def test_the_kit_holds_a_generalization_to_the_hierarchy_it_gave():
    window = Window.from_transactions([["a", "b"], ["b", "c"], ["a", "c"]])
    context = Context(hierarchy=Hierarchy.balanced(["a", "b", "c"], 2))
    configured = Configured(BringsItsOwnHierarchy({}, context.copied()), OnePolicy(), {}, context)
    with pytest.raises(AssertionError, match="not nodes of the hierarchy"):
        _Suite().release_or_refusal(configured, window)


class _Coherence(ConformanceSuite):
    model = "coherence"


def test_the_kit_gives_an_item_schema_only_to_a_model_that_needs_one():
    # Regression (QA as a plugin author): every model got a schema in the kit, while the command
    # line and the service refuse --sensitive to a model without needs_schema, so a model that read
    # context.schema unasked passed the kit and failed every window in use
    kanonymity, coherence = _Suite().context(), _Coherence().context()
    assert kanonymity.schema is None and kanonymity.hierarchy is not None
    assert coherence.schema is not None and coherence.schema.private and coherence.hierarchy is None


def _integer_probe(model):
    suite = type("_Probe", (ConformanceSuite,), {"model": model, "unsafe_windows": [[["p0", "s0"]]],
                                                  "safe_windows": [[["p1"]]]})
    return suite().integer_probe()


def test_the_integer_probe_relabels_the_item_schema_and_the_hierarchy_as_its_items():
    # mutation pass: with the context left as it was, coherence's and partition's suites passed a
    # probe in which no item was private and none was in the hierarchy
    probes, context, stands_for = _integer_probe("coherence")
    numbers = {label for window in probes for label in window.vocab.labels}
    private = {number for number in numbers if stands_for[number].startswith("s")}
    assert private and numbers & context.schema.private == private
    probes, context, stands_for = _integer_probe("kanonymity")
    numbers = {label for window in probes for label in window.vocab.labels}
    assert numbers <= set(context.hierarchy.labels)


class _KmWords(ConformanceSuite):
    model = "km-anonymity"
    params = {"k": "2", "m": "1"}
    unsafe_windows = [[["apple", "bread"], ["apple"]]]
    safe_windows = [[["apple", "bread"], ["apple", "bread"]]]


def test_the_kits_hierarchy_covers_the_labels_of_the_example_windows():
    # Regression (a plugin author's walkthrough): the hierarchy covered the random windows' labels
    # alone, so this safe window failed the check as labels outside the hierarchy, and the unsafe
    # one was rejected for that, not for bread's support of 1 < k
    suite = _KmWords()
    assert {"apple", "bread"} <= set(suite.hierarchy().labels)
    suite.test_the_safe_windows_are_accepted_and_released()
    configured = suite.configured("aa")
    unsafe = Window.from_transactions(_KmWords.unsafe_windows[0])
    rules = {v.rule for v in release_violations(configured.model, unsafe, unsafe, configured.context)}
    assert rules and not rules & {"unknown-label", "unknown-item"}


def test_the_kits_hierarchy_covers_every_label_window_args_draws_from():
    # Regression (a plugin author's walkthrough): it covered p0..p63 and s0..s63 whatever
    # window_args said, so random windows of public_items=80 held labels outside it
    suite = type("_Wide", (_KmWords,), {"window_args": {"public_items": 80, "private_items": 70}})()
    assert {"p79", "s69", "apple"} <= set(suite.hierarchy().labels)
