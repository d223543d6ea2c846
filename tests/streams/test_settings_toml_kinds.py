"""Settings files whose values are of a TOML kind the setting cannot take, and a setting of no
section, each refused naming the setting, what was given and what is allowed."""

from __future__ import annotations

import pytest

from setveil.core.errors import ParameterError
from setveil.streams.settings import load_settings


@pytest.mark.parametrize("value, kind", [("5", "a number"), ("true", "a boolean"), ("2024-01-02", "a date")])
def test_model_params_of_another_kind_than_pairs_or_a_table_name_the_kind_given(tmp_path, value, kind):
    config = tmp_path / "worker.toml"
    config.write_text(f"[model]\nparams = {value}\n")
    with pytest.raises(ParameterError) as refused:
        load_settings(config, env={})
    assert str(refused.value) == (f"parameter 'model.params': expected NAME=VALUE pairs or a table, got {kind} "
                                  f"(from {config})")


def test_a_text_setting_given_a_boolean_says_so(tmp_path):
    config = tmp_path / "worker.toml"
    config.write_text("[kafka]\nbootstrap = true\n")
    with pytest.raises(ParameterError) as refused:
        load_settings(config, env={})
    assert str(refused.value) == f"parameter 'kafka.bootstrap': expected text, got a boolean (from {config})"


def test_a_setting_of_no_section_and_like_none_lists_the_sections():
    with pytest.raises(ParameterError) as refused:
        load_settings(overrides=["zzzz.qqqq=1"], env={})
    assert str(refused.value) == ("parameter 'zzzz.qqqq': no such setting (from the command line); the sections are "
                                  "kafka, topics, consumer, producer, window, records, model, web, worker")
