"""The conformance kit on a model registered by hand: a pluggy plugin object given to the plugin
manager at run time, with no distribution and no entry point behind it, as a test of a plugin not
yet packaged registers it."""

from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, Window, hookimpl
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite, other_process


class FloorPolicy(Policy):
    model = "floor-by-hand"


class RareOnly(FloorPolicy):
    name = "rare-only"
    summary = "suppress the items held by fewer than k transactions"


class Floor(PrivacyModel):
    name = "floor-by-hand"
    summary = "every released item is held by at least k transactions"
    guarantee = "every released item is held by at least k transactions"
    transformation = Transformation.GLOBAL_SUPPRESSION
    parameters = (Parameter("k", "least support", "int", low=1, high=1000),)
    default_policy = "rare-only"
    policy_base = FloorPolicy

    def anonymize(self, window, policy, rng):
        return Release(window.suppress(np.flatnonzero((window.supports > 0) & (window.supports < self.params["k"]))))

    def violations(self, original, release):
        for item in np.flatnonzero((release.supports > 0) & (release.supports < self.params["k"])):
            yield Violation("rare", "an item is held by fewer than k transactions", (), None)


class ByHand:
    """The plugin object: registers the model and its policy through the two hooks."""

    @hookimpl
    def setveil_register_privacy_models(self, register):
        register(Floor)

    @hookimpl
    def setveil_register_policies(self, register):
        register(RareOnly)


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    reset()
    get_plugin_manager().register(ByHand(), name="floor-by-hand")
    yield
    reset()


class TestFloorRegisteredByHand(ConformanceSuite):
    model = "floor-by-hand"
    params = {"k": "2"}
    invalid_params = [{"k": "0"}, {"k": "two"}]
    unsafe_windows = [[["p0"], ["p1"]]]
    safe_windows = [[["p0"], ["p0"]]]


def test_a_plugin_object_the_other_process_cannot_rebuild_is_named():
    class InAFunction(ByHand):
        pass

    reset()
    get_plugin_manager().register(InAFunction(), name="floor-in-a-function")
    window = Window.from_transactions([["p0"], ["p0"]])
    with pytest.raises(AssertionError, match="plugin 'floor-in-a-function', registered by hand .* cannot be pickled"):
        other_process.releases("floor-by-hand", [("rare-only", {"k": "2"})], Context(), [window], 7, ["1"])
