"""The conformance kit writes the metrics of the releases of the unsafe example windows too, as
anonymize --report writes them: metrics JSON cannot write only where the model dropped something
(lengths of the truncated transactions keyed by numpy integers, none on a safe window) fail the kit."""

import json
from collections.abc import Iterator

import numpy as np
import pytest

from .truncating import Suite, Truncate, registered_by_hand


class Histogram(Truncate):
    def metrics(self, original, release):
        truncated = original.lengths[original.lengths > self.params["m"]]
        return {"truncated_by_length": dict(zip(*np.unique(truncated, return_counts=True)))}


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(Histogram)


def test_metrics_the_report_cannot_write_where_items_were_dropped_fail_the_kit():
    try:
        # indented, as the report is written: in this Python's words (3.14 says numpy.int64)
        json.dumps({np.int64(2): 1}, indent=2)
    except TypeError as exc:
        problem = f"TypeError: {exc}"
    with pytest.raises(AssertionError) as failed:
        Suite().test_metrics_of_a_release()
    assert str(failed.value) == (
        f"policy 'first-items': metrics would stop anonymize --report, which writes them as JSON ({problem}): give "
        "finite numbers, keyed by text")
