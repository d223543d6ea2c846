"""program.deanonymize called from Python refuses a method, a linking or a tolerance outside what
the commands' options allow, naming the parameter; through the commands click refuses them first,
so no test reached these three refusals."""

import pytest

from setveil.core.errors import ParameterError
from setveil.core.window import Window
from setveil.plugins.audit.itemsets import ItemsetCollection
from setveil.plugins.audit.program import deanonymize


@pytest.mark.parametrize("settings, name, problem", [
    ({"method": "simplex"}, "method", "'simplex' is not one of ip, mip, lp"),
    ({"linking": "union"}, "linking", "'union' is not one of cover, aggregate"),
    ({"tolerance": 1.5}, "tolerance", "1.5 is not a frequency difference in [0, 1]"),
    ({"tolerance": -0.1}, "tolerance", "-0.1 is not a frequency difference in [0, 1]"),
])
def test_a_setting_outside_its_range_is_refused_by_name(settings, name, problem):
    collection = ItemsetCollection.mine(Window.from_transactions([["a", "b"], ["a"]]), 0.5)
    with pytest.raises(ParameterError) as caught:
        deanonymize(collection, collection, **settings)
    assert (caught.value.name, caught.value.problem) == (name, problem)
