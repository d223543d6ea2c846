"""The conformance kit fails a release whose details or stats the pipeline cannot copy, as the
pipeline fails every such window closed (kit power pass: a model whose details held a generator of
the dropped items passed the kit, and every window of the command line and the service failed as
'returned a Release whose details or stats cannot be copied')."""

import threading
from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite


class TruncatePolicy(Policy):
    model = "truncate-copies"


class FirstItems(TruncatePolicy):
    name = "first-items"
    summary = "keep the first m items of a long transaction"


class Truncate(PrivacyModel):
    name = "truncate-copies"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1, high=100),)
    default_policy = "first-items"
    policy_base = TruncatePolicy
    #: what the release carries besides the window, by test
    carried: dict = {}

    def anonymize(self, window, policy, rng):
        keep = np.arange(window.n_occurrences) - window.indptr[window.owners()] < self.params["m"]
        dropped = window.indices[~keep]
        carried = {
            "generator": ({"dropped": (window.vocab.label(int(item)) for item in dropped)}, {}),
            "lock": ({}, {"held": threading.Lock()}),
            "list": ({"dropped": [window.vocab.label(int(item)) for item in dropped]}, {"dropped": len(dropped)}),
        }[self.carried["what"]]
        return Release(window.keep_occurrences(keep), *carried)

    def violations(self, original, release):
        long = np.flatnonzero(release.lengths > self.params["m"])
        if len(long):
            yield Violation("too-long", f"{len(long)} transaction(s) hold more than m items", (), int(long[0]))


class ByHand:
    @hookimpl
    def setveil_register_privacy_models(self, register):
        register(Truncate)

    @hookimpl
    def setveil_register_policies(self, register):
        register(FirstItems)


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    reset()
    get_plugin_manager().register(ByHand(), name="truncate-copies")
    yield
    reset()
    Truncate.carried.clear()


class Suite(ConformanceSuite):
    model = "truncate-copies"
    params = {"m": "1"}
    safe_windows = [[["p0"], ["p1"]]]
    unsafe_windows = [[["p0", "p1"]]]


@pytest.mark.parametrize(("what", "problem"), [
    ("generator", "TypeError: cannot pickle 'generator' object"),
    ("lock", "TypeError: cannot pickle '_thread.lock' object"),
])
def test_details_or_stats_the_pipeline_cannot_copy_fail_the_kit(what, problem):
    Truncate.carried["what"] = what
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value) == (
        f"truncate-copies with policy 'first-items': the Release's details or stats cannot be copied ({problem}); the "
        "pipeline copies them when anonymize returns and fails every such window closed: hold lists, dicts, numbers "
        "and text, not generators, locks or open files")


def test_details_and_stats_of_plain_values_pass():
    Truncate.carried["what"] = "list"
    Suite().test_the_check_rejects_the_unsafe_windows()
    Suite().test_the_safe_windows_are_accepted_and_released()
