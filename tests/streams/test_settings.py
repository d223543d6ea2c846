"""Operator settings: defaults, TOML file, SETVEIL_* variables, command line, the docs table."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli
from setveil.core.errors import InputError, ParameterError
from setveil.core.cli import configure
from setveil.streams.commands import resolve_settings
from setveil.streams.settings import SETTINGS, fit_to_model, load_settings, settings_table

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def stream_commands():
    _load_plugin_commands()


def test_every_setting_has_a_default_a_variable_and_a_toml_key():
    values = load_settings(env={})
    for setting in SETTINGS:
        assert values[setting.name] == setting.default
        assert setting.env == "SETVEIL_" + setting.name.replace(".", "_").upper()
        section, key = setting.name.split(".")
        assert getattr(getattr(values, section), key) == setting.default


def test_precedence_default_file_environment_command_line(tmp_path):
    config = tmp_path / "setveil.toml"
    config.write_text('[window]\nmax_transactions = 300\nmax_seconds = 2.5\nmin_transactions = 7\n'
                      '[model]\nname = "coherence"\n[model.params]\nh = 0.4\nk = 5\n')
    env = {"SETVEIL_WINDOW_MAX_SECONDS": "1.5", "SETVEIL_WINDOW_MIN_TRANSACTIONS": "9"}
    values = load_settings(config, ["window.min_transactions=11"], env=env)
    assert values.window.max_transactions == 300
    assert values.source("window.max_transactions") == str(config)
    assert values.window.max_seconds == 1.5
    assert values.source("window.max_seconds") == "$SETVEIL_WINDOW_MAX_SECONDS"
    assert values.window.min_transactions == 11
    assert values.model.params == {"h": "0.4", "k": "5"}
    assert values.window.merge_subjects is False


def test_settings_survive_the_trip_through_environment_variables():
    values = load_settings(None, {"window.max_transactions": 77, "model.params": {"h": "0.5"},
                                  "window.merge_subjects": True, "topics.input": "in"}, env={})
    again = load_settings(env=values.as_env())
    assert all(again[s.name] == values[s.name] for s in SETTINGS)


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({"SETVEIL_WINDOW_MAX_TRANSACTIONS": "0"}, "window.max_transactions"),
        ({"SETVEIL_WINDOW_MAX_SECONDS": "soon"}, "window.max_seconds"),
        ({"SETVEIL_WINDOW_MERGE_SUBJECTS": "maybe"}, "window.merge_subjects"),
        ({"SETVEIL_KAFKA_SECURITY_PROTOCOL": "SASL_SSL"}, "kafka.sasl_username"),
        ({"SETVEIL_KAFKA_SSL_CAFILE": "/no/such/file"}, "kafka.ssl_cafile"),
        ({"SETVEIL_WINDOW_MIN_TRANSACTIONS": "6000"}, "window.min_transactions"),
        ({"SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "5"}, "consumer.heartbeat_interval"),
        ({"SETVEIL_TOPICS_OUTPUT": "transactions"}, "topics"),
        ({"SETVEIL_MODEL_PARAMS": "h"}, "model.params"),
        ({"SETVEIL_TOPICS_INPUT": ""}, "topics.input"),
        ({"SETVEIL_TOPICS_DLQ": "a/b"}, "topics.dlq"),
    ],
)
def test_a_bad_value_names_the_setting_and_where_it_came_from(env, name):
    with pytest.raises(ParameterError) as info:
        load_settings(env=env)
    assert info.value.name == name


def test_an_error_names_the_variable_that_held_the_bad_value():
    with pytest.raises(ParameterError, match=r"\$SETVEIL_WINDOW_MAX_TRANSACTIONS"):
        load_settings(env={"SETVEIL_WINDOW_MAX_TRANSACTIONS": "-3"})


def test_config_file_errors(tmp_path):
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[window]\nmax_transaction = 3\n")
    with pytest.raises(ParameterError, match="window.max_transaction"):
        load_settings(unknown, env={})
    broken = tmp_path / "broken.toml"
    broken.write_text("[window\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_settings(broken, env={})
    # TOML values that are not text where text is meant (regression: turned into "['a']" or a traceback)
    for text in ('[topics]\ninput = ["a"]\n', "[web]\nbind = 12\n", "[model]\nsensitive = 5\n",
                 "[consumer]\ngroup_id = {x = 1}\n"):
        typed = tmp_path / "typed.toml"
        typed.write_text(text)
        with pytest.raises(ParameterError, match="expected text, got a (list|number|table)"):
            load_settings(typed, env={})
    flat = tmp_path / "flat.toml"
    flat.write_text("max_transactions = 3\n")
    with pytest.raises(InputError, match="must be a table"):
        load_settings(flat, env={})


def test_the_operations_guide_and_the_readme_hold_the_settings_table():
    assert settings_table() in (REPO / "docs" / "operations.md").read_text()
    assert settings_table() in (REPO / "README.md").read_text()


def test_serve_validates_model_and_settings_before_it_connects(sample, monkeypatch):
    _, sensitive, public = sample
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    runner = CliRunner()
    main_commands = ["serve", "--sensitive", str(sensitive), "--public", str(public)]
    result = runner.invoke(cli, main_commands)
    assert result.exit_code == 2 and "model.name" in result.output
    result = runner.invoke(cli, [*main_commands, "--model", "coherence", "-P", "h=2", "-P", "k=5", "-P", "p=3"])
    assert result.exit_code == 2 and "'h'" in result.output
    result = runner.invoke(cli, [*main_commands, "--model", "coherence", "--set", "window.max_seconds=0"])
    assert result.exit_code == 2 and "window.max_seconds" in result.output
    # model parameters and item files set as settings name the setting and where it came from
    monkeypatch.setenv("SETVEIL_MODEL_PARAMS", "h=nan,k=5,p=3")
    result = runner.invoke(cli, ["serve", "--model", "coherence", "--sensitive", str(sensitive)])
    assert result.exit_code == 2 and "'model.params': 'h'" in result.output and "$SETVEIL_MODEL_PARAMS" in result.output
    monkeypatch.setenv("SETVEIL_MODEL_PARAMS", "h=0.5,k=5,p=3")
    monkeypatch.setenv("SETVEIL_MODEL_SENSITIVE", str(sensitive.parent))
    result = runner.invoke(cli, ["serve", "--model", "coherence"])
    assert result.exit_code == 2 and "'model.sensitive'" in result.output and "$SETVEIL_MODEL_SENSITIVE" in result.output


def test_a_worker_refuses_a_hierarchy_built_per_window(monkeypatch):
    # Regression (QA as a security reviewer): with --fanout each window's hierarchy named its
    # nodes after that window's items, and a verified batch showed a label only one transaction held
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    result = CliRunner().invoke(cli, ["serve", "--model", "kanonymity", "-P", "k=5", "--fanout", "3"])
    assert result.exit_code == 2 and "'fanout'" in result.output and "give --hierarchy" in result.output
    with pytest.raises(ParameterError, match="no setting has this environment variable"):
        load_settings(None, env={"SETVEIL_MODEL_FANOUT": "3"})


def test_stream_commands_come_from_the_plugin_hook():
    for name in ("serve", "dev-broker", "replay", "tail", "demo"):
        assert name in cli.commands
    assert "stream" in cli.commands["bench"].commands


def test_windows_are_held_until_they_hold_what_the_model_needs(tmp_path):
    # Regression (QA as a consumer): min_transactions defaulted to 1, so under coherence with k=5
    # every window of a quiet partition was dead-lettered as infeasible
    (tmp_path / "s.txt").write_text("a\n")
    coherence = configure("coherence", None, ["h=0.4", "k=5", "p=3"], tmp_path / "s.txt", None, None, None).model
    rho = configure("rho", None, ["rho=0.5"], tmp_path / "s.txt", None, None, None).model
    assert fit_to_model(load_settings(env={}), coherence).window.min_transactions == 5
    assert fit_to_model(load_settings(env={}), rho).window.min_transactions == 1
    assert fit_to_model(load_settings(overrides=["window.min_transactions=7"], env={}), coherence).window.min_transactions == 7
    with pytest.raises(ParameterError, match="3 is fewer than the 5 transactions model 'coherence' needs") as info:
        fit_to_model(load_settings(overrides=["window.min_transactions=3"], env={}), coherence)
    assert info.value.name == "window.min_transactions"
    with pytest.raises(ParameterError) as info:
        fit_to_model(load_settings(overrides=["window.max_transactions=4"], env={}), coherence)
    assert info.value.name == "window.max_transactions"


def test_serve_refuses_windows_too_small_for_the_model_before_it_connects(tmp_path):
    (tmp_path / "s.txt").write_text("a\n")
    result = CliRunner().invoke(cli, ["serve", "--model", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3",
                                      "--sensitive", str(tmp_path / "s.txt"), "--bootstrap", "127.0.0.1:1",
                                      "--set", "window.min_transactions=2"])
    assert result.exit_code == 2
    assert "parameter 'window.min_transactions': 2 is fewer than the 5 transactions" in result.stderr


def test_a_path_must_exist_only_as_finally_set(tmp_path):
    # Regression (QA as an operator): the shipped setveil.toml names /etc/setveil/items/..., which
    # docker-compose does not mount; its workers override it by environment, yet exited 2 on the file's path
    items = tmp_path / "sensitive.txt"
    items.write_text("a\n")
    config = tmp_path / "setveil.toml"
    config.write_text('[model]\nsensitive = "/nowhere/sensitive.txt"\n')
    values = load_settings(config, env={"SETVEIL_MODEL_SENSITIVE": str(items)})
    assert values.model.sensitive == str(items)
    with pytest.raises(ParameterError, match=r"does not exist \(from .*setveil.toml\)") as info:
        load_settings(config, env={})
    assert info.value.name == "model.sensitive"


def test_only_the_value_in_force_is_checked(tmp_path):
    # Regression (QA as a new user): a bad value in the file could not be overridden by the
    # environment or --set, which the README's precedence promises
    config = tmp_path / "setveil.toml"
    config.write_text("[window]\nmax_transactions = -1\n")
    assert load_settings(config, ["window.max_transactions=10"], env={}).window.max_transactions == 10
    assert load_settings(config, env={"SETVEIL_WINDOW_MAX_TRANSACTIONS": "20"}).window.max_transactions == 20
    with pytest.raises(ParameterError, match=r"got -1.*\(from .*setveil.toml\)"):
        load_settings(config, env={})
    with pytest.raises(ParameterError, match=r"\(from \$SETVEIL_WINDOW_MAX_TRANSACTIONS\)"):
        load_settings(None, env={"SETVEIL_WINDOW_MAX_TRANSACTIONS": "x"})


def test_model_parameters_merge_key_by_key_across_sources(tmp_path):
    config = tmp_path / "setveil.toml"
    config.write_text("[model.params]\nh = 0.4\nk = 5\n")
    values = load_settings(config, ["model.params=k=10,p=3"], env={"SETVEIL_MODEL_PARAMS": "p=2 il=unit"})
    assert values.model.params == {"h": "0.4", "k": "10", "p": "3", "il": "unit"}
    # --set and -P are both the command line: neither drops the other
    settings = resolve_settings(None, ["model.params=h=0.4,p=3"], extra={"model.params": {"k": "5"}})
    assert settings.model.params == {"h": "0.4", "p": "3", "k": "5"}


@pytest.mark.parametrize("override, name", [
    ("web.bind=not-an-address", "web.bind"),
    pytest.param("producer.compression=lz4", "producer.compression",
                 marks=pytest.mark.skipif(importlib.util.find_spec("cramjam") is not None, reason="cramjam is installed")),
])
def test_what_only_failed_after_start_is_refused_before(override, name):
    # Regression (QA as an operator): both were accepted, then the worker crashed with a traceback
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=[override], env={})
    assert info.value.name == name


def test_a_misspelt_variable_or_bootstrap_is_refused():
    with pytest.raises(ParameterError, match="did you mean SETVEIL_WINDOW_MAX_SECONDS") as info:
        load_settings(env={"SETVEIL_WINDOW_MAXSECONDS": "2"})
    assert info.value.name == "SETVEIL_WINDOW_MAXSECONDS"
    # variables of no settings section are not the settings' business
    assert load_settings(env={"SETVEIL_DATASETS": "/data"}).window.max_seconds == 5.0
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=["kafka.bootstrap=nohostport"], env={})
    assert info.value.name == "kafka.bootstrap"
    assert load_settings(overrides=["kafka.bootstrap=a:9092, [::1]:9093"], env={}).kafka.bootstrap
