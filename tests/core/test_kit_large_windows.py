"""The conformance kit's probe windows include each unsafe example window as the last transactions of
a window of LARGE_WINDOW, the others empty (kit power pass: a model that truncated only the first 64
transactions of a window, one bit each of a uint64, and one that released windows of more than 500
transactions as they were, passed the kit, whose random windows hold at most 40)."""

from collections.abc import Iterator

import pytest

from setveil import Release
from setveil.testing.suite import LARGE_WINDOW

from . import truncating
from .truncating import Truncate, registered_by_hand


class CuttingCorners(Truncate):
    #: the shortcut anonymize takes, by test
    shortcut: dict = {}

    def anonymize(self, window, policy, rng):
        if self.shortcut.get("how") == "fast path" and len(window) > 500:
            return Release(window)
        keep = self.first_items(window)
        if self.shortcut.get("how") == "first 64":  # the transactions to truncate as the bits of one uint64
            keep |= window.owners() >= 64
        return Release(window.keep_occurrences(keep))


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    yield from registered_by_hand(CuttingCorners)
    CuttingCorners.shortcut.clear()


class Suite(truncating.Suite):
    unsafe_windows = [[["p0", "p1"]], [["p0"], ["p0", "p1"]]]


@pytest.mark.parametrize("how", ["first 64", "fast path"])
def test_a_model_that_cuts_a_corner_on_large_windows_fails_the_kit(how):
    CuttingCorners.shortcut["how"] = how
    with pytest.raises(AssertionError) as failed:
        Suite().test_same_seed_same_release_in_another_process()
    assert str(failed.value).startswith("a release of kit-truncate with policy 'first-items' fails the check: "
                                        "['too-long: 1 "
                                        f"transaction(s) hold more than m items; transaction {LARGE_WINDOW - 1}']")


def test_a_sound_model_passes_on_large_windows():
    Suite().test_same_seed_same_release_in_another_process()


def test_each_unsafe_example_window_ends_a_large_probe_window():
    large = Suite().probe_windows()[-2:]
    assert [len(window) for window in large] == [LARGE_WINDOW, LARGE_WINDOW] and LARGE_WINDOW > 127
    assert [list(window)[-2:] for window in large] == [[[], ["p0", "p1"]], [["p0"], ["p0", "p1"]]]
    assert all(window.n_occurrences == length for window, length in zip(large, [2, 3]))
