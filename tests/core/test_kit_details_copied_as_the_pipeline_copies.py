"""The conformance kit copies a release's details and stats as the pipeline does (core.engine.independent_copies):
it fails what the pipeline cannot copy, whatever the copy raises, with the kit's words and the
exception named, and passes what the pipeline copies, a function or an instance of a local class
among them, which pickle alone refuses."""

from collections.abc import Iterator

import pytest

from setveil import Release
from setveil.core.engine import independent_copies

from .truncating import Suite, Truncate, registered_by_hand


class Record:
    """The fields of a dropped item, read as attributes; a missing one raises KeyError, not
    AttributeError, so that deepcopy's look for __deepcopy__ raises."""

    def __init__(self, **fields):
        self.__dict__["fields"] = fields

    def __getattr__(self, name):
        return self.fields[name]


def details_of(how: str, dropped: int) -> dict:
    class Decision:  # local to the function: pickle cannot find it by name, deepcopy copies it
        pass

    return {
        "record": {"first": Record(count=dropped)},
        "function": {"order": lambda item: -item, "decision": Decision()},
    }[how]


class Detailing(Truncate):
    #: what the details hold, by test
    holds: dict = {}

    def anonymize(self, window, policy, rng):
        keep = self.first_items(window)
        return Release(window.keep_occurrences(keep), details_of(self.holds["how"], int((~keep).sum())))


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(Detailing)
    Detailing.holds.clear()


def test_details_whose_copy_raises_another_exception_fail_the_kit_in_its_words():
    with pytest.raises(KeyError):
        independent_copies(details_of("record", 1), 1)  # as the pipeline copies them, failing the window closed
    Detailing.holds["how"] = "record"
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value) == (
        "kit-truncate with policy 'first-items': the Release's details or stats cannot be copied (KeyError: "
        "'__deepcopy__'); the pipeline copies them when anonymize returns and fails every such window closed: hold "
        "lists, dicts, numbers and text, not generators, locks or open files")


def test_details_the_pipeline_copies_pass_the_kit():
    independent_copies(details_of("function", 1), 2)
    Detailing.holds["how"] = "function"
    Suite().test_the_check_rejects_the_unsafe_windows()
    Suite().test_the_safe_windows_are_accepted_and_released()
