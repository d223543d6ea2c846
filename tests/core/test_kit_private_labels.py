"""The kit's failure of an unsafe example window that holds no private item says why (QA as a plugin
author: a rho policy's suite named its sensitive item "hiv", which the kit's item schema does not
make private, and was told only that the window passes the check)."""

import pytest

from setveil.testing import ConformanceSuite


class _Rho(ConformanceSuite):
    model = "rho"
    params = {"rho": "0.5"}
    policies = ["mine"]


def _failure(unsafe_windows) -> str:
    suite = type("_Suite", (_Rho,), {"unsafe_windows": unsafe_windows})()
    with pytest.raises(AssertionError) as failed:
        suite.test_the_check_rejects_the_unsafe_windows()
    return str(failed.value)


def test_an_unsafe_window_without_a_private_label_is_told_which_labels_are_private():
    said = _failure([[["a", "hiv"], ["a", "hiv"]]])
    assert "unsafe_windows[0] passes the 'rho' check as it is; none of its labels is private in the suite's " \
           "context() (by default, those starting with 's': s0, s1, …)" in said


def test_an_unsafe_window_with_a_private_label_is_not_told_so():
    # s0 is private, but every rule's confidence is at most 1/2: the window is safe at rho=0.5
    said = _failure([[["a", "s0"], ["a"]]])
    assert "passes the 'rho' check as it is" in said and "none of its labels" not in said


def test_a_model_without_an_item_schema_is_not_told_of_private_labels():
    class KmAnonymity(ConformanceSuite):
        model = "km-anonymity"
        params = {"k": "1", "m": "1"}
        unsafe_windows = [[["p0"]]]

    with pytest.raises(AssertionError) as failed:
        KmAnonymity().test_the_check_rejects_the_unsafe_windows()
    assert "passes the 'km-anonymity' check as it is" in str(failed.value)
    assert "private" not in str(failed.value)
