"""A model that releases at most m items of each transaction, registered by hand, for the tests of
what the conformance kit catches: a test file's subclass of :class:`Truncate` makes one mistake a
plugin author could make, and the kit must fail it (or makes none, and the kit must pass it)."""

from collections.abc import Iterator

import numpy as np

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite

MODEL = "kit-truncate"


class TruncatePolicy(Policy):
    model = MODEL


class FirstItems(TruncatePolicy):
    name = "first-items"
    summary = "keep the first m items of a long transaction"


class Truncate(PrivacyModel):
    name = MODEL
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1, high=100),)
    default_policy = "first-items"
    policy_base = TruncatePolicy

    def first_items(self, window) -> np.ndarray:
        """Which occurrences of ``window`` are among the first m of their transaction."""
        return np.arange(window.n_occurrences) - window.indptr[window.owners()] < self.params["m"]

    def anonymize(self, window, policy, rng):
        return Release(window.keep_occurrences(self.first_items(window)))

    def violations(self, original, release):
        long = np.flatnonzero(release.lengths > self.params["m"])
        if len(long):
            yield Violation("too-long", f"{len(long)} transaction(s) hold more than m items", (), int(long[0]))


class ByHand:
    """The plugin that registers a test's model and :class:`FirstItems`; an instance of a class the
    kit's other process can import, which it pickles by reference."""

    def __init__(self, model: type[Truncate]):
        self.model = model

    @hookimpl
    def setveil_register_privacy_models(self, register):
        register(self.model)

    @hookimpl
    def setveil_register_policies(self, register):
        register(FirstItems)


def registered_by_hand(model: type[Truncate]) -> Iterator[None]:
    """For a fixture: ``model`` registered by hand until the test ends, then the plugins as they were."""
    reset()
    get_plugin_manager().register(ByHand(model), name=MODEL)
    yield
    reset()


class Suite(ConformanceSuite):
    model = MODEL
    params = {"m": "1"}
    safe_windows = [[["p0"], ["p1"]]]
    unsafe_windows = [[["p0", "p1"]]]
