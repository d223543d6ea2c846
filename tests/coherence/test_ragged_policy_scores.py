"""A third party's coherence policy whose score numpy cannot even read as an array (ragged rows, an
object whose conversion raises) fails the window closed as the policy's error, naming the type it
returned and never a value (the other malformed scores are test_engine's; no test reached these)."""

import pytest

from setveil.core import plugins
from setveil.core.engine import Pipeline, window_rng
from setveil.core.errors import WindowRejected
from setveil.core.model import Context
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence.policies import CoherencePolicy


class Unreadable:
    def __array__(self, dtype=None, copy=None):
        raise TypeError("HIV")


@pytest.mark.parametrize("returned, kind", [
    (lambda mm: [[1.0]] + [[1.0, 2.0]] * (len(mm) - 1), "list"),
    (lambda mm: Unreadable(), "Unreadable"),
])
def test_scores_that_are_no_array_fail_the_window_closed(returned, kind):
    class Odd(CoherencePolicy):
        name = "odd"
        summary = "scores numpy cannot read"

        def score(self, mm, il):
            return returned(mm)

    configured = plugins.get_registry().configure("coherence", None, {"h": "1", "k": "2", "p": "2"},
                                                  Context(schema=ItemSchema()))
    configured.policy = Odd({})
    # a b, a c and b c are held by one transaction each: three size-2 moles over the candidates a, b, c
    window = Window.from_transactions([["a", "b"], ["a", "c"], ["b", "c"], ["a"], ["b"], ["c"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, plugins.get_plugin_manager()).run(window, window_rng(0, 0))
    assert rejected.value.reason == (f"model error: policy 'odd' of model 'coherence': score returned {kind}, not "
                                     "real numbers")
    assert not rejected.value.refused
