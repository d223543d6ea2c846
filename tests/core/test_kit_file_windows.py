"""The conformance kit's seeded probe windows are windows of one file as ``anonymize --window`` cuts
it: integer tids (their positions in the file) and the file's whole vocabulary, labels the window
does not hold included (kit power pass: a model that hashed its tids as text, and one that counted
supports with np.bincount, one per id up to the last one the window holds, passed the kit and
failed such windows)."""

import hashlib
from collections.abc import Iterator

import numpy as np
import pytest

from setveil import Parameter, Policy, PrivacyModel, Release, Transformation, Violation, hookimpl
from setveil.testing import ConformanceSuite


class SupPolicy(Policy):
    model = "ksup-file-windows"


class Plain(SupPolicy):
    name = "plain"
    summary = "the only way"


class KSup(PrivacyModel):
    name = "ksup-file-windows"
    summary = "suppresses the items of support below k"
    guarantee = "every released item has support 0 or at least k"
    transformation = Transformation.GLOBAL_SUPPRESSION
    parameters = (Parameter("k", "least support", "int", low=1, high=100),)
    default_policy = "plain"
    policy_base = SupPolicy
    #: the way anonymize goes wrong, by test
    mistake: dict = {}

    def anonymize(self, window, policy, rng):
        if self.mistake.get("how") == "bincount":  # one count per id up to the last one held
            return Release(window.suppress(np.bincount(window.indices) < self.params["k"]))
        if self.mistake.get("how") == "tids as text" and window.tids is not None:  # a digest per record, say
            [hashlib.sha256(tid.encode()).digest() for tid in window.tids]
        return Release(window.suppress(window.supports < self.params["k"]))

    def violations(self, original, release):
        supports = release.supports
        for item in np.flatnonzero((supports > 0) & (supports < self.params["k"])):
            yield Violation("low-support", "an item has support below k", (release.vocab.label(int(item)),))


class ByHand:
    @hookimpl
    def setveil_register_privacy_models(self, register):
        register(KSup)

    @hookimpl
    def setveil_register_policies(self, register):
        register(Plain)


@pytest.fixture(autouse=True)
def registered(register_plugin) -> Iterator[None]:
    register_plugin(ByHand(), name="ksup-file-windows")
    yield
    KSup.mistake.clear()


class Suite(ConformanceSuite):
    model = "ksup-file-windows"
    params = {"k": "2"}
    safe_windows = [[["p0"], ["p0"]]]
    unsafe_windows = [[["p0"], ["p1"]]]


@pytest.mark.parametrize(("how", "raised"), [
    ("bincount", "anonymize raised ValueError: suppress was given a boolean mask of shape (8,); a mask holds one "
                 "entry per vocabulary item (13)"),
    ("tids as text", "anonymize raised AttributeError: 'int' object has no attribute 'encode'"),
])
def test_a_model_that_fails_the_windows_of_a_file_cut_into_windows_fails_the_kit(how, raised):
    KSup.mistake["how"] = how
    with pytest.raises(AssertionError) as failed:
        Suite().test_same_seed_same_release_in_another_process()
    assert str(failed.value) == f"ksup-file-windows with policy 'plain': {raised}"


def test_a_sound_model_passes_the_windows_of_a_file_cut_into_windows():
    Suite().test_same_seed_same_release_in_another_process()


def test_the_probe_windows_are_windows_of_one_file():
    probes = Suite().probe_windows()[2:8]  # after the two example windows, before the large one
    assert [len(window) for window in probes] == [1, 2, 5, 10, 20, 40]
    assert [window.tids for window in probes] == [
        list(range(start, start + len(window))) for start, window in zip([0, 1, 3, 8, 18, 38], probes)]
    assert {len(window.vocab) for window in probes} == {13}
    assert any((window.supports == 0).any() for window in probes)
