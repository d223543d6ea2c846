"""Coherence on real benchmark data: every release passes the independent check."""

import numpy as np
import pytest

from setveil.core.formats import read_window
from setveil.core.itemsplit import coherence_split
from setveil.core.metrics import partially_suppressed
from setveil.core.schema import ItemSchema

from .conftest import coherence


@pytest.mark.parametrize(
    "name, delta, h, k, p, rows",
    [
        ("BMS-WebView-1.dat", 0.2, 0.4, 10, 3, None),
        ("chess.dat", 0.4, 0.4, 50, 3, None),
        ("retail.dat", 0.2, 0.4, 20, 4, 20000),
    ],
)
def test_release_of_real_data_is_coherent(datasets, name, delta, h, k, p, rows):
    window = read_window(datasets / name)
    if rows is not None:
        window = window.take(np.arange(rows))
    split = coherence_split(window, delta, seed=1, h=h)
    schema = ItemSchema(private=frozenset(split.private), public=frozenset(split.public))
    for policy in ("mm-il", "mm", "il"):
        configured = coherence(policy, str(h), str(k), str(p), schema=schema)
        release = configured.model.anonymize(window, configured.policy, np.random.default_rng(0))
        assert list(configured.model.violations(window, release.window)) == []
        assert partially_suppressed(window, release.window) == 0
        assert 0 < configured.model.information_loss(window, release.window) < 1
