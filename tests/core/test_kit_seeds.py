"""The conformance kit releases each of its random windows under a seed of its own, as anonymize and
the service give every window one (kit power pass: a model that released the window as it was
whenever its rng's first draw fell below one half passed the kit, whose every release there had
seed 0, whose first draw is 0.64)."""

from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite


class TruncatePolicy(Policy):
    model = "truncate-seeds"


class FirstItems(TruncatePolicy):
    name = "first-items"
    summary = "keep the first m items of a long transaction"


class Truncate(PrivacyModel):
    name = "truncate-seeds"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1, high=100),)
    default_policy = "first-items"
    policy_base = TruncatePolicy
    #: whether anonymize skips the truncation on half the seeds, by test
    skips: dict = {}

    def anonymize(self, window, policy, rng):
        if self.skips.get("half the seeds") and rng.random() < 0.5:  # a shortcut meant for a test, left in
            return Release(window)
        keep = np.arange(window.n_occurrences) - window.indptr[window.owners()] < self.params["m"]
        return Release(window.keep_occurrences(keep))

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
    get_plugin_manager().register(ByHand(), name="truncate-seeds")
    yield
    reset()
    Truncate.skips.clear()


class Suite(ConformanceSuite):
    model = "truncate-seeds"
    params = {"m": "1"}
    safe_windows = [[["p0"], ["p1"]]]
    unsafe_windows = [[["p0", "p1"]]]


def test_a_model_unsafe_on_some_seeds_fails_the_kit():
    assert np.random.default_rng(0).random() >= 0.5  # the seed every other release of the kit has
    Truncate.skips["half the seeds"] = True
    with pytest.raises(AssertionError) as failed:
        Suite().test_every_release_passes_the_check()
    assert str(failed.value).startswith("a release of truncate-seeds with policy 'first-items' fails the check: "
                                        "['too-long: 1 transaction(s) hold more than m items; transaction ")


def test_a_model_safe_on_every_seed_passes():
    Suite().test_every_release_passes_the_check()
