"""The conformance kit's probe windows include each unsafe example window as the last transactions of
a window of LARGE_WINDOW, the others empty (kit power pass: a model that truncated only the first 64
transactions of a window, one bit each of a uint64, and one that released windows of more than 500
transactions as they were, passed the kit, whose random windows hold at most 40)."""

from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite
from setveil.testing.suite import LARGE_WINDOW


class TruncatePolicy(Policy):
    model = "truncate-large"


class FirstItems(TruncatePolicy):
    name = "first-items"
    summary = "keep the first m items of a long transaction"


class Truncate(PrivacyModel):
    name = "truncate-large"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1, high=100),)
    default_policy = "first-items"
    policy_base = TruncatePolicy
    #: the shortcut anonymize takes, by test
    shortcut: dict = {}

    def anonymize(self, window, policy, rng):
        if self.shortcut.get("how") == "fast path" and len(window) > 500:
            return Release(window)
        keep = np.arange(window.n_occurrences) - window.indptr[window.owners()] < self.params["m"]
        if self.shortcut.get("how") == "first 64":  # the transactions to truncate as the bits of one uint64
            keep |= window.owners() >= 64
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
    get_plugin_manager().register(ByHand(), name="truncate-large")
    yield
    reset()
    Truncate.shortcut.clear()


class Suite(ConformanceSuite):
    model = "truncate-large"
    params = {"m": "1"}
    safe_windows = [[["p0"], ["p1"]]]
    unsafe_windows = [[["p0", "p1"]], [["p0"], ["p0", "p1"]]]


@pytest.mark.parametrize("how", ["first 64", "fast path"])
def test_a_model_that_cuts_a_corner_on_large_windows_fails_the_kit(how):
    Truncate.shortcut["how"] = how
    with pytest.raises(AssertionError) as failed:
        Suite().test_same_seed_same_release_in_another_process()
    assert str(failed.value).startswith("a release of truncate-large with policy 'first-items' fails the check: "
                                        "['too-long: 1 "
                                        f"transaction(s) hold more than m items; transaction {LARGE_WINDOW - 1}']")


def test_a_sound_model_passes_on_large_windows():
    Suite().test_same_seed_same_release_in_another_process()


def test_each_unsafe_example_window_ends_a_large_probe_window():
    large = Suite().probe_windows()[-2:]
    assert [len(window) for window in large] == [LARGE_WINDOW, LARGE_WINDOW] and LARGE_WINDOW > 127
    assert [list(window)[-2:] for window in large] == [[[], ["p0", "p1"]], [["p0"], ["p0", "p1"]]]
    assert all(window.n_occurrences == length for window, length in zip(large, [2, 3]))
