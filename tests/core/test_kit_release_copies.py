"""The conformance kit fails a release whose details or stats the pipeline cannot copy, as the
pipeline fails every such window closed (kit power pass: a model whose details held a generator of
the dropped items passed the kit, and every window of the command line and the service failed as
'returned a Release whose details or stats cannot be copied')."""

import threading
from collections.abc import Iterator

import pytest

from setveil import Release

from .truncating import Suite, Truncate, registered_by_hand


class Carrying(Truncate):
    #: what the release carries besides the window, by test
    carried: dict = {}

    def anonymize(self, window, policy, rng):
        keep = self.first_items(window)
        dropped = window.indices[~keep]
        carried = {
            "generator": ({"dropped": (window.vocab.label(int(item)) for item in dropped)}, {}),
            "lock": ({}, {"held": threading.Lock()}),
            "list": ({"dropped": [window.vocab.label(int(item)) for item in dropped]}, {"dropped": len(dropped)}),
        }[self.carried["what"]]
        return Release(window.keep_occurrences(keep), *carried)


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(Carrying)
    Carrying.carried.clear()


@pytest.mark.parametrize(("what", "problem"), [
    ("generator", "TypeError: cannot pickle 'generator' object"),
    ("lock", "TypeError: cannot pickle '_thread.lock' object"),
])
def test_details_or_stats_the_pipeline_cannot_copy_fail_the_kit(what, problem):
    Carrying.carried["what"] = what
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value) == (
        f"kit-truncate with policy 'first-items': the Release's details or stats cannot be copied ({problem}); the "
        "pipeline copies them when anonymize returns and fails every such window closed: hold lists, dicts, numbers "
        "and text, not generators, locks or open files")


def test_details_and_stats_of_plain_values_pass():
    Carrying.carried["what"] = "list"
    Suite().test_the_check_rejects_the_unsafe_windows()
    Suite().test_the_safe_windows_are_accepted_and_released()
