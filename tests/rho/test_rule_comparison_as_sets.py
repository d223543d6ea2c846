"""compare_rules counts the rules two rule sets share as sets do: on random windows and releases
made from them by deleting occurrences, with keys of either width on either side, searched in
slices of any number of keys."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from setveil.core.window import Window
from setveil.plugins.rho import metrics
from setveil.plugins.rho.metrics import _widen, association_rules, compare_rules

ROWS = st.lists(st.lists(st.sampled_from("abcdefg"), max_size=6, unique=True), min_size=1, max_size=12)


def as_set(keys, width):
    return {bytes(key) for key in _widen(keys, width)}


@settings(max_examples=60, deadline=None)
@given(ROWS, st.data(), st.sampled_from([0.1, 0.2, 0.5]), st.sampled_from([0.3, 0.5, 0.9]),
       st.sampled_from([None, 2, 3]), st.sampled_from([1, 2, 1 << 20]))
def test_the_common_rules_are_those_of_the_two_sets(rows, data, support, confidence, max_size, slice_keys):
    original = Window.from_transactions(rows)
    kept = np.array(data.draw(st.lists(st.booleans(), min_size=original.n_occurrences,
                                       max_size=original.n_occurrences)), dtype=bool)
    release = original.keep_occurrences(kept)
    before = association_rules(original, support, confidence, max_size)
    after = association_rules(release, support, confidence, max_size)
    width = max(before.dtype.itemsize, after.dtype.itemsize)
    common = len(as_set(before, width) & as_set(after, width))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(metrics, "_SLICE", slice_keys)
        result = compare_rules(before, after)
        assert compare_rules(after, before)["rules_common"] == common
    assert (result["rules_common"], result["rules_lost"], result["rules_spurious"]) == (
        common, len(before) - common, len(after) - common)
