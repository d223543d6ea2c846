"""The conformance kit fails metrics that anonymize --report cannot write as JSON, as every run of it
stops on them (kit power pass: a model whose metrics gave a ratio that is NaN where nothing was
dropped, as on a safe window, passed the kit, which asked only for a dict)."""

import json
from collections.abc import Iterator

import numpy as np
import pytest

from .truncating import Suite, Truncate, registered_by_hand


class Measuring(Truncate):
    #: the metrics of a release, by test: a function of the count of long transactions and of dropped items
    measured: dict = {}

    def metrics(self, original, release):
        long = int((original.lengths > self.params["m"]).sum())
        return self.measured["metrics"](long, original.n_occurrences - release.n_occurrences)


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(Measuring)
    Measuring.measured.clear()


def json_refusal(value) -> str:
    """What json says of ``value`` it cannot write."""
    try:
        # indented, as the report is written: that encoder words it another way than the compact one
        json.dumps(value, indent=2)
    except TypeError as exc:
        return f"TypeError: {exc}"
    raise AssertionError("json wrote it")


@pytest.mark.parametrize(("metrics", "problem"), [
    # dropped items per long transaction, NaN where there is none (the safe window)
    (lambda long, dropped: {"dropped_per_long": dropped / long if long else float("nan")},
     "ValueError: Out of range float values are not JSON compliant: nan"),
    # in this Python's words: 3.14 names the type numpy.int64, where 3.11 to 3.13 said int64
    (lambda long, dropped: {"per_size": {np.int64(1): dropped}}, json_refusal({np.int64(1): 0})),
])
def test_metrics_the_report_cannot_write_fail_the_kit(metrics, problem):
    Measuring.measured["metrics"] = metrics
    with pytest.raises(AssertionError) as failed:
        Suite().test_metrics_of_a_release()
    assert str(failed.value) == (
        f"policy 'first-items': metrics would stop anonymize --report, which writes them as JSON ({problem}): give "
        "finite numbers, keyed by text")


def test_metrics_the_report_can_write_pass():
    Measuring.measured["metrics"] = lambda long, dropped: {"dropped_per_long": dropped / long if long else 0.0,
                                                          "sizes": np.array([long, dropped]), "kinds": {"long"}}
    Suite().test_metrics_of_a_release()
