"""kanonymity's and km-anonymity's report metrics find each original occurrence's covering label
once for NCP and the generalized share together: the same figures as each measure finding it
on its own."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import setveil.plugins.partition.models as models
from setveil.core import ncp as ncp_module
from setveil.core.model import Context
from setveil.core.ncp import generalized_share, ncp
from setveil.core.plugins import get_registry
from setveil.core.window import Window

from .examples import FIGURE_2, TABLE_2, hierarchy


def _model(name: str):
    params = {"k": "2"} if name == "kanonymity" else {"k": "2", "m": "2"}
    return get_registry().configure(name, None, params, Context(hierarchy=hierarchy(FIGURE_2))).model


@st.composite
def releases(draw):
    """A window over Fig. 2's leaves and a release generalizing each occurrence to its leaf, its
    parent or the root, drawn per occurrence (a local recoding)."""
    leaves = ["a1", "a2", "b1", "b2"]
    rows = draw(st.lists(st.lists(st.sampled_from(leaves), min_size=1, max_size=4, unique=True), min_size=1,
                         max_size=12))
    released = []
    for row in rows:
        out = []
        for item in row:
            out.append(draw(st.sampled_from([item, item[0].upper(), "ALL"])))
        released.append(sorted(set(out)))
    return Window.from_transactions(rows), Window.from_transactions(released)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(releases(), st.sampled_from(["kanonymity", "km-anonymity"]))
def test_the_metrics_equal_each_measure_on_its_own(pair, name):
    original, release = pair
    h = hierarchy(FIGURE_2)
    metrics = _model(name).metrics(original, release)
    assert metrics["ncp"] == ncp(original, release, h)
    assert metrics["generalized_share"] == generalized_share(original, release, h)


def test_the_metrics_find_the_covering_labels_once(monkeypatch):
    original = Window.from_transactions([row[0] for row in TABLE_2.values()])
    release = Window.from_transactions([row[1] for row in TABLE_2.values()])
    found = []
    real = ncp_module.covering_nodes

    def counting(*args):
        found.append(1)
        return real(*args)

    monkeypatch.setattr(ncp_module, "covering_nodes", counting)
    monkeypatch.setattr(models, "covering_nodes", counting, raising=False)
    metrics = _model("kanonymity").metrics(original, release)
    assert len(found) == 1
    found.clear()
    assert metrics["ncp"] == ncp(original, release, hierarchy(FIGURE_2))
    assert metrics["generalized_share"] == generalized_share(original, release, hierarchy(FIGURE_2))
