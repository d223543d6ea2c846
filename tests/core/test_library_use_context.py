"""A notebook user's Context: a fan-out --fanout refuses is refused when the context is built,
not at every window the model is given."""

import numpy as np
import pytest

from setveil import Context, ParameterError, Window
from setveil.core.engine import Pipeline
from setveil.core.plugins import get_plugin_manager, get_registry


@pytest.mark.parametrize("fanout", [1, 0, -3, True, 2.5, 3.0, "3", np.float64(3)])
def test_a_fanout_the_command_line_refuses_is_refused(fanout):
    with pytest.raises(ParameterError) as refused:
        Context(fanout=fanout)
    assert str(refused.value) == f"parameter 'fanout': got {fanout!r}, allowed: an integer in [2, inf)"
    assert refused.value.name == "fanout"


@pytest.mark.parametrize("fanout", [2, np.int64(3), np.uint8(4), 2**40])
def test_an_integer_fanout_is_taken_as_an_int(fanout):
    context = Context(fanout=fanout)
    assert context.fanout == fanout and type(context.fanout) is int


def test_a_fanout_of_2_generalizes_a_window():
    window = Window.from_transactions([["a", "b"], ["a", "c"], ["b", "c"], ["a", "b", "c"]])
    configured = get_registry().configure("kanonymity", None, {"k": "2"}, Context(fanout=np.int64(2)))
    outcome = Pipeline(configured, get_plugin_manager()).run(window, np.random.default_rng(0))
    assert outcome.report["verified"] and len(outcome.release.window) == 4
