"""A Context built in Python with no hierarchy, file or fan-out refuses hierarchy_for by the
parameter and what to give, as a suppression model of a third party that asks it anyway would meet
it; the registry refuses a generalizing model such a context first, so no test reached it."""

import pytest

from setveil import Context, ParameterError, Window


def test_hierarchy_for_without_any_hierarchy_names_what_to_give():
    with pytest.raises(ParameterError) as caught:
        Context().hierarchy_for(Window.from_transactions([["a", "b"]]))
    assert str(caught.value) == ("parameter 'hierarchy': this model needs a hierarchy: give --hierarchy FILE or "
                                 "--fanout N")
