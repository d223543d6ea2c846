"""Both models on a slice of real click-stream data (the full grid is `setveil bench partition`)."""

import numpy as np
import pytest

from setveil.core.formats import read_window
from setveil.core.model import Context
from setveil.core.plugins import get_registry


@pytest.fixture(scope="module")
def bms1(datasets):
    return read_window(datasets / "BMS-WebView-1.dat").take(np.arange(4000))


@pytest.mark.parametrize("model, params", [("kanonymity", {"k": "5"}), ("km-anonymity", {"k": "5", "m": "3"})])
def test_bms_webview_1_slice_is_anonymized_and_verified(bms1, model, params):
    configured = get_registry().configure(model, None, params, Context(fanout=5).pinned(bms1))
    release = configured.model.anonymize(bms1, configured.policy, np.random.default_rng(0)).window
    assert not list(configured.model.violations(bms1, release))
    loss = configured.model.information_loss(bms1, release)
    assert 0 < loss < 0.5
    assert configured.model.metrics(bms1, release)["ncp"] == loss
