"""The conformance kit reads a set in a release's stats as anonymize --report writes it, a list:
one holding items' labels fails the kit as such a list does (kit power pass: a model that put the
set of its dropped items in stats instead of details passed the kit, and every report listed them)."""

from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite


class TruncatePolicy(Policy):
    model = "truncate-stats"


class FirstItems(TruncatePolicy):
    name = "first-items"
    summary = "keep the first m items of a long transaction"


class Truncate(PrivacyModel):
    name = "truncate-stats"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1, high=100),)
    default_policy = "first-items"
    policy_base = TruncatePolicy
    #: the kind of collection the stats hold the dropped items in, and whether by label or by count
    kept: dict = {}

    def anonymize(self, window, policy, rng):
        keep = np.arange(window.n_occurrences) - window.indptr[window.owners()] < self.params["m"]
        dropped = window.indices[~keep]
        shown = [window.vocab.label(int(item)) for item in dropped] if self.kept["labels"] else [len(dropped)]
        return Release(window.keep_occurrences(keep), {}, {"dropped_items": self.kept["kind"](shown)})

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
    get_plugin_manager().register(ByHand(), name="truncate-stats")
    yield
    reset()
    Truncate.kept.clear()


class Suite(ConformanceSuite):
    model = "truncate-stats"
    params = {"m": "1"}
    safe_windows = [[["p0"], ["p1"]]]
    unsafe_windows = [[["p0", "p1"]]]


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_of_labels_in_the_stats_fails_the_kit(kind):
    Truncate.kept.update(kind=kind, labels=True)
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value).startswith(
        "truncate-stats with policy 'first-items': Release.stats['dropped_items'][0] is text that names items of the "
        "window (p1); the stats go into --report and to observers, which hold no transaction contents")


def test_a_set_of_counts_in_the_stats_passes():
    Truncate.kept.update(kind=set, labels=False)
    Suite().test_the_check_rejects_the_unsafe_windows()
