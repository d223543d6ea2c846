"""The conformance kit reads every value of a release's stats as anonymize --report writes it: a
tuple as a list, and any other value as its text, so a deque or the bytes of the dropped items'
labels fail the kit as a list of them does (kit power pass: both passed the kit, and every report
held "deque(['p1'])" or "[b'p1']")."""

from collections import deque
from collections.abc import Iterator

import pytest

from setveil import Release
from setveil.core.reportjson import report_text

from .truncating import Suite, Truncate, registered_by_hand


class Opaque:
    """A value whose text cannot be made."""

    def __str__(self):
        raise ValueError("no text")


class Reporting(Truncate):
    #: what the stats hold of the dropped items' labels, by test
    kept: dict = {}

    def anonymize(self, window, policy, rng):
        keep = self.first_items(window)
        labels = [window.vocab.label(int(item)) for item in window.indices[~keep]]
        return Release(window.keep_occurrences(keep), {}, {"dropped_items": self.kept["as"](labels)})


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(Reporting)
    Reporting.kept.clear()


@pytest.mark.parametrize(("kept", "where"), [
    (tuple, "['dropped_items'][0] is text"),
    (deque, "['dropped_items'] is text"),
    (lambda labels: [label.encode() for label in labels], "['dropped_items'][0] is text"),
    (lambda labels: {"first": deque(labels)}, "['dropped_items']['first'] is text"),
])
def test_labels_the_report_would_write_fail_the_kit(kept, where):
    Reporting.kept["as"] = kept
    assert "p1" in report_text(kept(["p1"]))  # as the report writes the stat
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value).startswith(
        f"kit-truncate with policy 'first-items': Release.stats{where} that names items of the window (p1); the stats "
        "go into --report and to observers, which hold no transaction contents: key them by what they measure, give "
        "numbers, and put the items in details")


def test_a_value_whose_text_cannot_be_made_fails_the_kit():
    Reporting.kept["as"] = lambda labels: Opaque()
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value).startswith(
        "kit-truncate with policy 'first-items': Release.stats['dropped_items'] is a value of type Opaque whose text "
        "cannot be made, which anonymize --report cannot write; ")


@pytest.mark.parametrize("kept", [lambda labels: deque([len(labels)]), lambda labels: (len(labels), None),
                                  lambda labels: b"%d" % len(labels)])
def test_counts_the_report_would_write_pass(kept):
    Reporting.kept["as"] = kept
    Suite().test_the_check_rejects_the_unsafe_windows()
    Suite().test_the_safe_windows_are_accepted_and_released()
