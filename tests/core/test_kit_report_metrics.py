"""The conformance kit fails metrics that anonymize --report cannot write as JSON, as every run of it
stops on them (kit power pass: a model whose metrics gave a ratio that is NaN where nothing was
dropped, as on a safe window, passed the kit, which asked only for a dict)."""

from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.core.plugins import get_plugin_manager, reset
from setveil.testing import ConformanceSuite


class TruncatePolicy(Policy):
    model = "truncate-metrics"


class FirstItems(TruncatePolicy):
    name = "first-items"
    summary = "keep the first m items of a long transaction"


class Truncate(PrivacyModel):
    name = "truncate-metrics"
    summary = "release at most m items per transaction"
    guarantee = "no released transaction holds more than m items"
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (Parameter("m", "most items released per transaction", "int", low=1, high=100),)
    default_policy = "first-items"
    policy_base = TruncatePolicy
    #: the metrics of a release, by test: a function of the count of long transactions and of dropped items
    measured: dict = {}

    def anonymize(self, window, policy, rng):
        keep = np.arange(window.n_occurrences) - window.indptr[window.owners()] < self.params["m"]
        return Release(window.keep_occurrences(keep))

    def violations(self, original, release):
        long = np.flatnonzero(release.lengths > self.params["m"])
        if len(long):
            yield Violation("too-long", f"{len(long)} transaction(s) hold more than m items", (), int(long[0]))

    def metrics(self, original, release):
        long = int((original.lengths > self.params["m"]).sum())
        return self.measured["metrics"](long, original.n_occurrences - release.n_occurrences)


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
    get_plugin_manager().register(ByHand(), name="truncate-metrics")
    yield
    reset()
    Truncate.measured.clear()


class Suite(ConformanceSuite):
    model = "truncate-metrics"
    params = {"m": "1"}
    safe_windows = [[["p0"], ["p1"]]]
    unsafe_windows = [[["p0", "p1"]]]


@pytest.mark.parametrize(("metrics", "problem"), [
    # dropped items per long transaction, NaN where there is none (the safe window)
    (lambda long, dropped: {"dropped_per_long": dropped / long if long else float("nan")},
     "ValueError: Out of range float values are not JSON compliant: nan"),
    (lambda long, dropped: {"per_size": {np.int64(1): dropped}},
     "TypeError: keys must be str, int, float, bool or None, not int64"),
])
def test_metrics_the_report_cannot_write_fail_the_kit(metrics, problem):
    Truncate.measured["metrics"] = metrics
    with pytest.raises(AssertionError) as failed:
        Suite().test_metrics_of_a_release()
    assert str(failed.value) == (
        f"policy 'first-items': metrics would stop anonymize --report, which writes them as JSON ({problem}): give "
        "finite numbers, keyed by text")


def test_metrics_the_report_can_write_pass():
    Truncate.measured["metrics"] = lambda long, dropped: {"dropped_per_long": dropped / long if long else 0.0,
                                                          "sizes": np.array([long, dropped]), "kinds": {"long"}}
    Suite().test_metrics_of_a_release()
