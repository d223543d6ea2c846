"""ρ-uncertainty on slices of the real benchmark data: every release passes the independent
check, and the policies keep their order of the paper (mine deletes least, dist keeps the item
distribution closest)."""

import numpy as np
import pytest

from setveil.core.formats import read_window
from setveil.core.itemsplit import random_split
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.metrics import suppressed_share as info_loss
from setveil.plugins.rho.metrics import symmetric_kl


@pytest.mark.parametrize("name, rows", [("BMS-WebView-2.dat", 4000), ("retail.dat", 2000), ("BMS-WebView-1.dat", 4000)])
def test_slices_of_real_data(datasets, name, rows):
    window = read_window(datasets / name).take(np.arange(rows))
    context = Context(schema=ItemSchema(private=frozenset(random_split(window, 0.4, seed=1).private)))
    loss, kl = {}, {}
    for policy in ("mine", "dist", "global"):
        config = get_registry().configure("rho", policy, {"rho": "0.7", "workers": "1"}, context)
        release = config.model.anonymize(window, config.policy, np.random.default_rng(0)).window
        assert not list(config.model.violations(window, release))
        loss[policy], kl[policy] = info_loss(window, release), symmetric_kl(window, release)
    assert loss["mine"] < loss["global"] and loss["mine"] < loss["dist"]
    assert kl["dist"] < kl["mine"] < kl["global"]
