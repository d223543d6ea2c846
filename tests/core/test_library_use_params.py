"""A notebook user's parameters, typed in Python: a path parameter takes what Python takes for a
path, and the model gets it as text."""

import os
from pathlib import Path

import numpy as np
import pytest

from setveil import Context, Parameter, ParameterError, Window
from setveil.core.engine import Pipeline
from setveil.core.plugins import get_plugin_manager, get_registry


@pytest.fixture
def patterns(tmp_path: Path) -> Path:
    path = tmp_path / "restrictive.txt"
    path.write_text("a b\n")
    return path


@pytest.mark.parametrize("given", [str, Path, os.fsencode])
def test_a_path_parameter_takes_a_str_a_path_or_bytes_as_text(patterns, given):
    assert Parameter("restrictive", "patterns", "path").parse(given(patterns)) == str(patterns)


@pytest.mark.parametrize("given", [str, Path, os.fsencode])
def test_the_sanitize_model_reads_its_patterns_from_each(patterns, given):
    # before: bytes reached the model's __init__, and the run stopped as the plugin's error
    # ("model 'sanitize': __init__ raised TypeError")
    window = Window.from_transactions([["a", "b"], ["a", "b", "c"], ["b", "c"], ["a"]])
    configured = get_registry().configure("sanitize", None, {"restrictive": given(patterns)}, Context())
    assert configured.params["restrictive"] == str(patterns)
    outcome = Pipeline(configured, get_plugin_manager()).run(window, np.random.default_rng(0))
    assert list(outcome.release.window) == [["b"], ["b", "c"], ["b", "c"], ["a"]]


def test_a_value_that_is_no_path_is_refused_naming_the_parameter():
    with pytest.raises(ParameterError) as refused:
        Parameter("restrictive", "patterns", "path").parse(5)
    assert str(refused.value) == "parameter 'restrictive': got 5, allowed: a path"
