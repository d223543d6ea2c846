"""The conformance kit reads a set in a release's stats as anonymize --report writes it, a list:
one holding items' labels fails the kit as such a list does (kit power pass: a model that put the
set of its dropped items in stats instead of details passed the kit, and every report listed them)."""

from collections.abc import Iterator

import pytest

from setveil import Release

from .truncating import Suite, Truncate, registered_by_hand


class Counting(Truncate):
    #: the kind of collection the stats hold the dropped items in, and whether by label or by count
    kept: dict = {}

    def anonymize(self, window, policy, rng):
        keep = self.first_items(window)
        dropped = window.indices[~keep]
        shown = [window.vocab.label(int(item)) for item in dropped] if self.kept["labels"] else [len(dropped)]
        return Release(window.keep_occurrences(keep), {}, {"dropped_items": self.kept["kind"](shown)})


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(Counting)
    Counting.kept.clear()


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_of_labels_in_the_stats_fails_the_kit(kind):
    Counting.kept.update(kind=kind, labels=True)
    with pytest.raises(AssertionError) as failed:
        Suite().test_the_check_rejects_the_unsafe_windows()
    assert str(failed.value).startswith(
        "kit-truncate with policy 'first-items': Release.stats['dropped_items'][0] is text that names items of the "
        "window (p1); the stats go into --report and to observers, which hold no transaction contents")


def test_a_set_of_counts_in_the_stats_passes():
    Counting.kept.update(kind=set, labels=False)
    Suite().test_the_check_rejects_the_unsafe_windows()
