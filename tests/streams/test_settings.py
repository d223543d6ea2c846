"""Operator settings: defaults, TOML file, SETVEIL_* variables, command line, the docs table."""

from __future__ import annotations

import errno
import gzip
import os
import re
import shutil
import socket
import subprocess
import tomllib
import typing
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner
import hypothesis
from hypothesis import strategies as st

from setveil.core.cli import _load_plugin_commands, cli
from setveil.core.errors import InputError, ParameterError, SetveilError
from setveil.core.formats import read_window
from setveil.core.cli import configure
from setveil.streams import commands, demo, worker
from setveil.streams import settings as settings_module
from setveil.streams.broker import Broker, docker_available, free_port, open_broker
from setveil.streams.codec import message_bytes
from setveil.streams.commands import configure_model, resolve_settings
from setveil.streams.preflight import check_data_dir, check_group_id, check_own_broker, check_web_listen
from setveil.streams.released import Released
from setveil.streams.replay import messages
from setveil.streams.worker import union_notes
from setveil.streams.settings import (SECTIONS, SETTINGS, Settings, as_toml, describe, fit_to_model,
                                      load_settings, settings_table)

from .deployfiles import configmap_toml, deployment_env

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


def test_the_typed_sections_declare_every_setting_as_it_parses():
    # what a type checker knows of settings.window and the others is written by hand; it must not drift
    declared = typing.get_type_hints(Settings)
    assert set(declared) == set(SECTIONS)
    parsed_as = {"int": int, "float": float, "bool": bool, "str": str, "path": str, "choice": str}
    for section in SECTIONS:
        hints = typing.get_type_hints(declared[section])
        assert set(hints) == {s.key for s in SETTINGS if s.section == section}, section
        for setting in (s for s in SETTINGS if s.section == section):
            hint = hints[setting.key]
            kinds = typing.get_args(hint) or (hint,)
            wanted = dict if setting.pairs else parsed_as[setting.parameter.kind]
            assert wanted in kinds or typing.get_origin(hint) is wanted, setting.name
            assert (type(None) in kinds) == (setting.default is None), setting.name


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


@pytest.mark.parametrize(("name", "value"), [
    ("topics.input", "in"), ("model.name", "coherence"), ("kafka.security_protocol", "PLAINTEXT"),
    ("window.max_seconds", "1.5"), ("window.merge_subjects", "true"), ("model.policy", "suppress"),
    ("kafka.bootstrap", "broker:9092"),
])
@pytest.mark.parametrize("blanks", [(" ", " "), ("", "\n"), ("\t", "\r\n")])
def test_a_value_padded_with_blanks_is_the_same_from_the_environment_and_set(name, value, blanks):
    # Regression (QA): --set trimmed the value, the environment did not, so a manifest's
    # "in\n" (a folded YAML value, a Secret written with echo) was another topic, or refused
    padded = blanks[0] + value + blanks[1]
    from_set = load_settings(None, [f"{name}={padded}"], env={})
    from_env = load_settings(None, env={f"SETVEIL_{name.replace('.', '_').upper()}": padded})
    assert from_env[name] == from_set[name] == load_settings(None, [f"{name}={value}"], env={})[name]


def test_bench_streams_cluster_is_the_bootstrap_as_the_setting_reads_it():
    assert open_broker(env={"SETVEIL_KAFKA_BOOTSTRAP": " 127.0.0.1:1\n"}).bootstrap == "127.0.0.1:1"


@pytest.mark.slow  # it starts a broker, which -m "not slow" is documented to leave out
def test_the_embedded_broker_writes_its_output_to_the_log_it_is_given(tmp_path):
    # the demo's broker.log and the tests' are where a broker that misbehaved is looked into
    if docker_available():
        pytest.skip("a Docker engine answers here: the broker would be a Kafka container, whose log Docker keeps")
    running = open_broker(env={}, log_path=tmp_path / "broker.log")
    try:
        assert running.kind == "tansu"
        assert f"listening on: tcp://{running.bootstrap}" in (tmp_path / "broker.log").read_text()
    finally:
        running.stop()


def test_a_files_value_with_blanks_around_it_is_not_passed_to_a_worker_changed(tmp_path):
    # the environment loses such a value (above), so a worker started with it would read another;
    # refused, the value not shown (a password)
    config = tmp_path / "sasl.toml"
    config.write_text('[kafka]\nsecurity_protocol = "SASL_PLAINTEXT"\nsasl_username = "u"\nsasl_password = "hunter2 "\n')
    settings = load_settings(config, env={})
    assert settings.kafka.sasl_password == "hunter2 "
    with pytest.raises(ParameterError) as refused:
        settings.as_env()
    assert str(refused.value) == (f"parameter 'kafka.sasl_password': cannot be passed to a worker in "
                                  f"$SETVEIL_KAFKA_SASL_PASSWORD (from {config}): the environment's values are taken "
                                  "without the blanks around them, and this one begins or ends with one")


_PAIR_TEXT = st.text(st.sampled_from("ab_9.=,'\" \t-"), max_size=6)


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.dictionaries(_PAIR_TEXT, _PAIR_TEXT, max_size=4))
def test_model_parameters_survive_the_trip_through_the_environment_or_are_refused(params):
    # Regression (review): as_env joined the pairs with commas, so a value holding a comma or a
    # blank came back split into other pairs (or refused as one) in the worker it started
    settings = load_settings(None, {"model.params": params}, env={})
    splits = [k for k, v in params.items() if not k or "=" in k or any(c in ", \t" for c in k + v)]
    try:
        env = settings.as_env()
    except ParameterError as exc:
        assert splits and exc.name == "model.params" and str(exc).startswith(f"parameter 'model.params': {splits[0]!r} ")
        assert "$SETVEIL_MODEL_PARAMS (from the command line): its pairs are separated by commas and blanks" in str(exc)
        return
    assert not splits and load_settings(env=env).model.params == params


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
        ({"SETVEIL_TOPICS_OUTPUT": "transactions"}, "topics.output"),
        ({"SETVEIL_MODEL_PARAMS": "h"}, "model.params"),
        ({"SETVEIL_TOPICS_INPUT": ""}, "topics.input"),
        ({"SETVEIL_TOPICS_DLQ": "a/b"}, "topics.dlq"),
        # regressions (QA as an operator): each passed the check and failed once connected, or
        # was ignored in silence
        ({"SETVEIL_KAFKA_SASL_USERNAME": "u", "SETVEIL_KAFKA_SASL_PASSWORD": "p"}, "kafka.sasl_username"),
    ],
)
def test_a_bad_value_names_the_setting_and_where_it_came_from(env, name):
    with pytest.raises(ParameterError) as info:
        load_settings(env=env)
    assert info.value.name == name


def test_a_consumer_group_faust_cannot_use_is_refused_before_connecting():
    # regression (QA as an operator): `--set consumer.group_id=` reached Faust ("App requires an
    # id!"); only the worker checks it (QA, adversarial: replay and tail refused it too)
    with pytest.raises(ParameterError, match="consumer.group_id.*the command line"):
        check_group_id(load_settings(overrides=["consumer.group_id="], env={}))
    for group in (" ", "a b", "g" * 230, "ü"):
        with pytest.raises(ParameterError, match="consumer.group_id"):
            check_group_id(load_settings(env={"SETVEIL_CONSUMER_GROUP_ID": group}))
    check_group_id(load_settings(env={"SETVEIL_CONSUMER_GROUP_ID": "g." * 114 + "g"}))  # 229 characters
    with pytest.raises(ParameterError, match=r"allowed: 1-229 of a-z, A-Z, 0-9, '\.', '_', '-'$"):
        check_group_id(load_settings(env={"SETVEIL_CONSUMER_GROUP_ID": "g" * 230}))


def test_a_data_dir_the_worker_cannot_use_is_refused_before_it_connects(tmp_path, monkeypatch):
    # regression (QA as an operator): Faust failed on it after connecting, with a traceback; the
    # check is the worker's alone (review: replay and tail refused a setting they never use)
    a_file = tmp_path / "file"
    a_file.write_text("")
    for path, problem in ((a_file, "is not a directory"), (a_file / "faust", f"cannot be created: {a_file} is not a directory")):
        settings = load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(path)})
        with pytest.raises(ParameterError, match=f"worker.data_dir.*SETVEIL_WORKER_DATA_DIR.*{problem}"):
            check_data_dir(settings)
    check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(tmp_path / "new")}))
    # QA re-check: Faust creates the directory but not its parents (a traceback after connecting)
    with pytest.raises(ParameterError, match="its parent .* does not exist"):
        check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(tmp_path / "new" / "dir")}))
    # QA (adversarial): a dangling link and a home that is a file passed, and Faust failed on them
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ParameterError, match="is a symbolic link to nothing"):
        check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(tmp_path / "dangling")}))
    monkeypatch.setenv("HOME", str(a_file))
    with pytest.raises(ParameterError, match=f"cannot be created: {a_file} is not a directory"):
        check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": "~/faust"}))
    # Regression (QA as an operator): root passes the access check in /proc, where Faust failed
    if os.path.isdir("/proc/self"):
        with pytest.raises(ParameterError, match="cannot be created in /proc"):
            check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": "/proc/setveil-nope"}))
        with pytest.raises(ParameterError, match="is not writable"):
            check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": "/proc/self"}))
        # as root where it passes (faked: a container's root may not pass it in /proc), the
        # directory is refused by the file the check tries to write in it
        with monkeypatch.context() as passes:
            passes.setattr("setveil.streams.preflight.os.access", lambda path, mode: True)
            with pytest.raises(ParameterError, match=r"'/proc/self' .* is not writable \("):
                check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": "/proc/self"}))
    assert not (tmp_path / "new").exists()  # the probes leave nothing behind
    # not writable (faked: root may write anywhere)
    monkeypatch.setattr("setveil.streams.preflight.os.access", lambda path, mode: False)
    with pytest.raises(ParameterError, match="is not writable"):
        check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(tmp_path)}))
    with pytest.raises(ParameterError, match=f"cannot be created: {tmp_path} is not writable"):
        check_data_dir(load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(tmp_path / "new")}))


def test_an_error_names_the_variable_that_held_the_bad_value():
    with pytest.raises(ParameterError, match=r"\$SETVEIL_WINDOW_MAX_TRANSACTIONS"):
        load_settings(env={"SETVEIL_WINDOW_MAX_TRANSACTIONS": "-3"})


@pytest.mark.parametrize("command", ["serve", "replay", "tail", "demo"])
def test_a_settings_file_that_is_not_there_names_where_its_path_came_from(tmp_path, command):
    # Regression (QA as an operator): a missing file in $SETVEIL_CONFIG was reported as
    # "Invalid value for '--config'", an option the operator never gave, and later as the path
    # alone, which did not say where the path came from
    missing = tmp_path / "missing.toml"
    args = [command] + (["data.dat"] if command == "replay" else [])
    from_variable = CliRunner().invoke(cli, args, env={"SETVEIL_CONFIG": str(missing)})
    assert from_variable.exit_code == 2
    assert from_variable.output == (f"setveil: error: {missing}: cannot read: No such file or directory "
                                    "(the settings file, from $SETVEIL_CONFIG)\n")
    a_folder = CliRunner().invoke(cli, args, env={"SETVEIL_CONFIG": str(tmp_path)})
    assert a_folder.exit_code == 2
    assert a_folder.output == (f"setveil: error: {tmp_path}: cannot read: Is a directory (the settings file, "
                               "from $SETVEIL_CONFIG)\n")
    # --config wins over the variable (docs/operations.md), and its refusal names the option
    from_option = CliRunner().invoke(cli, args + ["--config", str(missing)], env={"SETVEIL_CONFIG": str(tmp_path)})
    assert from_option.exit_code == 2
    assert from_option.output == (f"setveil: error: {missing}: cannot read: No such file or directory "
                                  "(the settings file, from --config)\n")


@pytest.mark.parametrize("command", [["replay", "missing.dat"], ["demo"]])
@pytest.mark.parametrize("rate", ["1e-320", "0.5", "0"])
def test_replay_and_demo_refuse_a_rate_below_one_by_the_option_and_its_range(command, rate):
    # Regression (QA): replay took any rate above 0, and --rate 1e-320 waited about forever,
    # where demo's --rate needed at least 1; refused before a file is read or a broker started
    result = CliRunner().invoke(cli, [*command, "--rate", rate], env={"SETVEIL_KAFKA_BOOTSTRAP": "127.0.0.1:1"})
    assert result.exit_code == 2
    assert "Invalid value for '--rate'" in result.output and "is not in the range x>=1." in result.output


def test_demo_refuses_a_message_the_kafka_client_would_refuse_before_any_broker():
    # Regression (review of rev65's replay check): records.max_message_bytes may equal
    # producer.max_request_bytes, and a record that fits the one by fewer bytes than the Kafka
    # client's framing passed demo's check, to be refused by its producer once a broker ran
    with demo.sample_files() as (data, _, _):
        sample = read_window(data)
    limit = 1024  # the least producer.max_request_bytes
    sizes = []
    for count in range(1, 100):
        [(_, key, _, value)] = messages(sample.take(list(range(count))), count)
        sizes.append((count, len(value), message_bytes(key, value, [])))
    count, _, framed = next(size for size in sizes if size[1] <= limit < size[2])
    # the first message is the first run of --batch records; 1,000 of them leave each partition a window
    result = CliRunner().invoke(cli, ["demo", "--count", "1000", "--batch", str(count),
                                      "--set", f"records.max_message_bytes={limit}",
                                      "--set", f"producer.max_request_bytes={limit}"],
                                env={"SETVEIL_KAFKA_BOOTSTRAP": "127.0.0.1:1"})
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: parameter 'producer.max_request_bytes': a message of {count} records "
                             f"would be {framed} bytes as the Kafka client counts it (with its key and framing), over "
                             f"producer.max_request_bytes={limit}, which the client refuses to send: give a smaller "
                             "--batch\n")


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
    # regression (QA as an operator): a whole float took an integer setting from a file alone
    # ("1e3" from the environment was refused), and a boolean was shown as Python's True
    for text, words in (("[window]\nmax_transactions = 1e3\n", "got '1e3', allowed: an integer in [1, inf)"),
                        ("[consumer]\nmax_poll_records = 10.0\n", "got '10.0', allowed: an integer"),
                        ("[window]\nmax_transactions = true\n", "expected a number, got a boolean"),
                        ("[window]\nmax_seconds = false\n", "expected a number, got a boolean")):
        typed.write_text(text)
        with pytest.raises(ParameterError) as refused:
            load_settings(typed, env={})
        assert words in str(refused.value) and "(from " in str(refused.value), text
    typed.write_text("[window]\nmax_transactions = 1000\nmax_seconds = 1e1\n")
    values = load_settings(typed, env={})
    assert (values.window.max_transactions, values.window.max_seconds) == (1000, 10.0)


@pytest.mark.parametrize("text, words", [
    ("[window]\nmax_transactions = 2024-01-02\n", "window.max_transactions': got a date, 2024-01-02, allowed: an integer"),
    ("[window]\nmax_seconds = 10:30:00.5\n", "window.max_seconds': got a time, 10:30:00.5, allowed: a number"),
    ("[model]\nseed = 1979-05-27T07:32:00.25-07:00\n",
     "model.seed': got a date-time, 1979-05-27T07:32:00.25-07:00, allowed: an integer"),
    ("[model]\nverify = 2024-01-02T10:00:00Z\n", "model.verify': got a date-time, 2024-01-02T10:00:00+00:00, allowed: true"),
    ('[window]\nmin_transactions = ["a", 1]\n', 'window.min_transactions\': got a list, ["a", 1], allowed: an integer'),
    ("[model.params]\nh = [0.4, 1]\n", "'h': expected text, a number or a boolean, got a list, [0.4, 1] (from"),
    ('[model.params]\nkeep = ["a.txt"]\n', "'keep': expected text, a number or a boolean, got a list, [\"a.txt\"] (from"),
    ('[model.params]\nh = {a = 1, "b c" = [1979-05-27], api_password = "hunter2"}\n',
     "'h': expected text, a number or a boolean, got a table, {a = 1, \"b c\" = [1979-05-27], api_password = ***}"),
    ("[model.params]\napi_token = 2024-01-02\n",
     "'api_token': expected text, a number or a boolean, got a date (the value is not shown: the name says"),
])
def test_a_toml_date_list_or_table_is_quoted_as_toml_writes_it(tmp_path, text, words):
    # Regression (QA): quoted as Python writes it, datetime.date(2024, 1, 2), or turned into text
    # no one wrote (['a.txt'], a table's a=1), which a text parameter took as it was
    config = tmp_path / "typed.toml"
    config.write_text(text)
    with pytest.raises(ParameterError) as refused:
        load_settings(config, env={})
    message = str(refused.value)
    assert words in message and message.endswith(f"(from {config})")
    assert "datetime" not in message and "hunter2" not in message and "'a.txt'" not in message


def test_a_config_file_that_is_not_utf8_is_refused_naming_its_line(tmp_path, monkeypatch):
    # regression (QA, hostile input files): tomllib's UnicodeDecodeError came out as a traceback,
    # exit 1, that quoted the bytes around the bad one
    config = tmp_path / "setveil.toml"
    config.write_bytes(b'[kafka]\nbootstrap = "127.0.0.1:1"\n[model]\nname = "SECRET\xff"\n')
    with pytest.raises(InputError) as refused:
        load_settings(config, env={})
    assert str(refused.value) == f"{config}:4: not valid UTF-8 (the settings file, from --config)"
    data = tmp_path / "data.dat"
    data.write_text("a b\n")
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    for command in (["serve"], ["replay", str(data)]):
        result = CliRunner().invoke(cli, [*command, "--config", str(config)])
        assert result.exit_code == 2, command
        assert result.output == f"setveil: error: {config}:4: not valid UTF-8 (the settings file, from --config)\n"
    # read as an item list is (QA: a gzipped or UTF-16 one was "not valid UTF-8" alone): UTF-16 is
    # refused as such, and gzip data is read, as every file setveil reads
    config.write_bytes('[window]\n'.encode("utf-16"))
    with pytest.raises(InputError, match=re.escape(f"{config}:1: UTF-16 (it starts with UTF-16's byte-order mark)")):
        load_settings(config, env={})
    config.write_bytes(gzip.compress(b'[window]\nmax_transactions = 7\n'))
    assert load_settings(config, env={}).window.max_transactions == 7


def test_a_config_file_may_start_with_a_byte_order_mark(tmp_path):
    # regression (QA, hostile input files): refused as "not valid TOML (Invalid statement (at line
    # 1, column 1))", while the data, item lists and hierarchies take one
    text = '[window]\nmax_transactions = 7\n[model]\nparams = { k = "5" }\n'
    plain, marked = tmp_path / "plain.toml", tmp_path / "marked.toml"
    plain.write_text(text)
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())
    for path in (plain, marked):
        values = load_settings(path, env={})
        assert (values.window.max_transactions, values.model.params) == (7, {"k": "5"}), path


def test_a_config_file_that_cannot_be_read_is_named_with_the_reason(tmp_path, monkeypatch):
    # regression (QA, hostile input files): click said "File '-' does not exist." of standard
    # input, and the same of a symbolic-link loop
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    for config, words in (("-", "standard input: not supported for this file ('-'); give a path"),
                          (str(loop), f"{loop}: cannot read: Too many levels of symbolic links"),
                          (str(tmp_path / "none.toml"), f"{tmp_path / 'none.toml'}: cannot read: No such file or directory")):
        result = CliRunner().invoke(cli, ["serve", "--config", config], input="[window]\n")
        assert result.exit_code == 2, config
        assert result.output == f"setveil: error: {words} (the settings file, from --config)\n"
    with pytest.raises(InputError, match="standard input"):
        load_settings(None, env={"SETVEIL_CONFIG": "-"})


def test_the_operations_guide_and_the_readme_hold_the_settings_table():
    # and no row of a setting beside it: one the code dropped or never had would still be read as
    # a setting (every setting's row is the table's, so only the rows outside it are counted)
    rows = settings_table().splitlines()[2:]
    for doc in (REPO / "docs" / "operations.md", REPO / "README.md"):
        text = doc.read_text()
        assert settings_table() in text, doc.name
        found = re.findall(r"^\| `[a-z_]+\.[a-z_]+` \| `SETVEIL_[A-Z_]+` \|.*$", text, flags=re.MULTILINE)
        assert found == rows, doc.name


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


def test_a_worker_takes_the_item_lists_its_settings_give(sample):
    # mutation pass: configure_model leaving model.public out survived: every item the sensitive
    # list leaves out was then public to the worker's model and its check, and the items neither
    # list names, which coherence keeps whole (R1), could be suppressed as an attacker's knowledge
    _, sensitive, public = sample
    settings = load_settings(None, {"model.name": "coherence", "model.sensitive": str(sensitive),
                                    "model.public": str(public), "model.params": "h=0.4,k=5,p=3"}, env={})
    schema = configure_model(settings).model.context.schema
    assert schema.private == frozenset(sensitive.read_text().split())
    assert schema.public == frozenset(public.read_text().split())


def test_a_worker_refuses_a_hierarchy_built_per_window(monkeypatch):
    # Regression (QA as a security reviewer): with --fanout each window's hierarchy named its
    # nodes after that window's items, and a verified batch showed a label only one transaction held
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    result = CliRunner().invoke(cli, ["serve", "--model", "kanonymity", "-P", "k=5", "--fanout", "3"])
    assert result.exit_code == 2 and "'fanout'" in result.output and "give --hierarchy" in result.output
    with pytest.raises(ParameterError, match="no setting has this environment variable"):
        load_settings(None, env={"SETVEIL_MODEL_FANOUT": "3"})


def test_a_worker_without_a_hierarchy_is_not_told_to_give_fanout(monkeypatch):
    # Regression (QA soak): `serve -m kanonymity` said "give --hierarchy FILE or --fanout N", and
    # --fanout is then refused
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    result = CliRunner().invoke(cli, ["serve", "--model", "kanonymity", "-P", "k=5"])
    assert result.exit_code == 2 and "'model.hierarchy'" in result.output
    assert "give --hierarchy FILE or set model.hierarchy (a worker takes no --fanout)" in result.output


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


def test_serve_refuses_a_request_size_too_small_for_a_windows_dead_letter_before_it_connects(tmp_path):
    # Regression (QA as a consumer): at 1,024 bytes, the smallest allowed, a window's dead letter
    # with the default names was larger; the client refused it and the worker stopped at that
    # window on every restart
    (tmp_path / "s.txt").write_text("a\n")
    args = ["serve", "--model", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3", "--sensitive",
            str(tmp_path / "s.txt"), "--bootstrap", "127.0.0.1:1", "--set", "records.max_message_bytes=1024"]
    result = CliRunner().invoke(cli, args + ["--set", "producer.max_request_bytes=1024"])
    assert result.exit_code == 2
    need = int(re.search(r"give at least (\d+)$", result.stderr.strip()).group(1))
    assert result.stderr == (f"setveil: error: parameter 'producer.max_request_bytes': 1024 (from the command line) is "
                             f"below the {need} bytes a window's dead letter may take with topic 'transactions' and "
                             f"model 'coherence'; give at least {need}\n")
    enough = CliRunner().invoke(cli, args + ["--set", f"producer.max_request_bytes={need}"])
    assert enough.exit_code == 1 and "no Kafka broker answers at 127.0.0.1:1" in enough.stderr  # past the check


@pytest.mark.parametrize("union_safe", [True, False])
def test_a_worker_warns_when_its_model_does_not_promise_the_union_of_windows_safe(union_safe):
    # QA as a plugin author: union_safe = False changed nothing but the kit's union test
    configured = SimpleNamespace(model=SimpleNamespace(name="minsupport", union_safe=union_safe))
    assert union_notes(configured) == ([] if union_safe else [
        "model 'minsupport' does not promise that the union of safe windows is safe: each batch is safe on its own, "
        "but batches joined by a consumer are not covered by its guarantee"])


def serve_check(sample, *more: str) -> list[str]:
    """The arguments of serve --check for coherence (h=0.4, k=5, p=3) over the sample's sensitive
    items, on a free web port, then ``more``."""
    return ["serve", "--check", "-m", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3", "--sensitive",
            str(sample[1]), "--set", f"web.port={free_port()}", *more]


def test_a_worker_warns_at_its_start_that_model_verify_false_releases_unchecked_windows(sample):
    # QA as an operator: SETVEIL_MODEL_VERIFY=false turned the fail-closed check off with nothing
    # said but "verify=false" among the settings lines
    args = serve_check(sample)
    warning = ("setveil: note: model.verify=false (from $SETVEIL_MODEL_VERIFY): windows are released without the "
               "model's independent check, so a release the model got wrong reaches the output (batches say "
               "verified: false)\n")
    result = CliRunner().invoke(cli, args, env={"SETVEIL_MODEL_VERIFY": "False"})
    assert result.exit_code == 0 and warning in result.stderr
    result = CliRunner().invoke(cli, args, env={"SETVEIL_MODEL_VERIFY": "true"})
    assert result.exit_code == 0 and "model.verify" not in result.stderr


def test_a_worker_notes_a_public_list_that_lists_no_items_and_no_other(sample, tmp_path):
    # as setveil anonymize notes it, with what it means; a public list with items must not be warned about
    public = sample[2]
    (tmp_path / "empty.txt").write_text("")
    args = serve_check(sample, "--public")
    result = CliRunner().invoke(cli, [*args, str(tmp_path / "empty.txt")], env={})
    assert result.exit_code == 0
    assert (f"setveil: note: {tmp_path / 'empty.txt'} (model.public, from the command line) lists no items, so no "
            "item would be public\n") in result.stderr
    result = CliRunner().invoke(cli, [*args, str(public)], env={})
    assert result.exit_code == 0 and "model.public" not in result.stderr


def test_serve_check_refuses_a_group_id_and_a_data_dir_the_worker_cannot_use(sample, tmp_path):
    # both are Faust's, which refused them only once the worker had connected
    (tmp_path / "a-file").write_text("")
    args = serve_check(sample, "--set")
    for setting, value in (("consumer.group_id", "g" * 230), ("worker.data_dir", str(tmp_path / "a-file"))):
        result = CliRunner().invoke(cli, [*args, f"{setting}={value}"], env={})
        assert result.exit_code == 2 and f"setveil: error: parameter '{setting}': " in result.stderr


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


def test_an_empty_model_params_drops_the_parameters_of_the_layers_below(tmp_path):
    # Regression (QA as an operator): a shared file's parameters merged into every later layer, so
    # a worker given another model by the environment or --set was refused for the file's h, and an
    # empty SETVEIL_MODEL_PARAMS or --set model.params= changed nothing
    (tmp_path / "s.txt").write_text("a\n")
    config = tmp_path / "setveil.toml"
    config.write_text(f'[model]\nname = "coherence"\nsensitive = "{tmp_path / "s.txt"}"\n'
                      "[model.params]\nh = 0.4\nk = 5\np = 3\n")
    settings = load_settings(config, env={"SETVEIL_MODEL_PARAMS": ""})
    assert settings.model.params == {}
    with pytest.raises(KeyError):
        settings.source("model.params.h")
    settings = load_settings(config, ["model.params="], env={"SETVEIL_MODEL_PARAMS": "k=7"},
                             options={"model.params": {"rho": "0.7"}})
    assert settings.model.params == {"rho": "0.7"}
    assert settings.source("model.params.rho") == "the command line"
    # a table, or -P, that names no parameter drops nothing
    assert load_settings(config, options={"model.params": {}}, env={}).model.params == {"h": "0.4", "k": "5", "p": "3"}
    # the refusal of a file's parameter under a model named later says how to drop it
    refused = load_settings(config, env={"SETVEIL_MODEL_NAME": "rho"})
    with pytest.raises(ParameterError, match=r"'h': .*\(from .*setveil.toml\); model.params merges .* model.name is "
                                             r"from \$SETVEIL_MODEL_NAME: an empty SETVEIL_MODEL_PARAMS or --set "
                                             r"model.params= drops"):
        configure_model(refused)
    assert configure_model(load_settings(config, ["model.params="], env={"SETVEIL_MODEL_NAME": "rho"},
                                         options={"model.params": {"rho": "0.7"}})).model.name == "rho"


@pytest.mark.parametrize("layer", ["the settings file", "$SETVEIL_MODEL_PARAMS", "the command line"])
def test_a_parameter_given_beside_model_name_is_refused_without_advice_to_drop_a_layer(tmp_path, layer):
    # the advice to empty model.params is for the parameters of a layer below model.name's, merged
    # in unseen; one given in model.name's own layer is the operator's to change there
    sensitive = tmp_path / "s.txt"
    sensitive.write_text("a\n")
    config = tmp_path / "setveil.toml"
    config.write_text(f'[model]\nname = "rho"\nsensitive = "{sensitive}"\n[model.params]\nh = 0.4\n')
    if layer == "the settings file":
        settings, source = load_settings(config, env={}), str(config)
    elif layer == "the command line":
        settings, source = load_settings(None, env={}, options={"model.name": "rho", "model.sensitive": str(sensitive),
                                                                "model.params": {"h": "0.4"}}), layer
    else:
        settings, source = load_settings(None, env={"SETVEIL_MODEL_NAME": "rho", "SETVEIL_MODEL_PARAMS": "h=0.4",
                                                    "SETVEIL_MODEL_SENSITIVE": str(sensitive)}), layer
    with pytest.raises(ParameterError) as refused:
        configure_model(settings)
    assert str(refused.value).startswith("parameter 'model.params': 'h': ")
    assert str(refused.value).endswith(f"(from {source})")


def test_a_model_parameter_in_toml_is_checked_as_written(tmp_path):
    # Regression (QA, degenerate shapes): TOML read 0.29999999999999999 as the float 0.3, so the
    # refusal of a decimal a float cannot hold as typed did not reach a worker's config file
    config = tmp_path / "setveil.toml"
    (tmp_path / "s.txt").write_text("x\n")
    config.write_text(f'[model]\nname = "rho"\nsensitive = "{tmp_path / "s.txt"}"\n[model.params]\n'
                      "rho = 0.29999999999999999\n[window]\nmax_seconds = 1_0.5\n")
    settings = load_settings(config, env={})
    assert settings.model.params == {"rho": "0.29999999999999999"} and settings.window.max_seconds == 10.5
    with pytest.raises(ParameterError) as info:
        configure_model(settings)
    assert info.value.name == "model.params" and "a float holds only as 0.3," in info.value.problem
    config.write_text(config.read_text().replace("0.29999999999999999", "3_0.0e-2"))
    assert load_settings(config, env={}).model.params == {"rho": "30.0e-2"}
    # a float setting too, as the same value given as text is (QA re-check)
    config.write_text("[window]\nmax_seconds = 0.29999999999999999\n")
    with pytest.raises(ParameterError, match="window.max_seconds.*a float holds only as 0.3,"):
        load_settings(config, env={})


def test_a_bind_address_that_only_failed_after_start_is_refused_before():
    # Regression (QA as an operator): it was accepted, then the worker crashed with a traceback
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=["web.bind=not-an-address"], env={})
    assert info.value.name == "web.bind"


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


@pytest.mark.parametrize(("variable", "closest"), [
    ("SETVEIL_TOPIC_INPUT", "SETVEIL_TOPICS_INPUT"),
    ("SETVEIL_WEBPORT", "SETVEIL_WEB_PORT"),
    ("SETVEIL_WINDW_MAX_SECONDS", "SETVEIL_WINDOW_MAX_SECONDS"),
    ("SETVEIL_CONFG", "SETVEIL_CONFIG"),
])
def test_a_variable_with_a_misspelt_section_is_refused_with_the_closest_name(variable, closest):
    # Regression (QA as an operator): only variables of a section spelt right were checked, so a
    # worker given SETVEIL_TOPIC_INPUT=orders started and consumed the default topic
    with pytest.raises(ParameterError, match=f"did you mean {closest}\\?") as info:
        load_settings(env={variable: "2"})
    assert info.value.name == variable
    with pytest.raises(ParameterError, match="no setting has this environment variable") as info:
        load_settings(env={"SETVEIL_XYZ": "2"})
    assert "did you mean" not in str(info.value)
    # the variables that are no setting still work
    assert load_settings(env={"SETVEIL_DATASETS": "/data"}).window.max_seconds == 5.0


def test_a_misspelt_key_in_the_file_or_set_gets_the_closest_name(tmp_path):
    # Regression (QA as an operator): one line of all 48 settings, without a "did you mean"
    for text, name, closest in (("[window]\nmax_transaction = 3\n", "window.max_transaction", "window.max_transactions"),
                                ("[windw]\nmax_seconds = 3\n", "windw.max_seconds", "window.max_seconds")):
        config = tmp_path / "misspelt.toml"
        config.write_text(text)
        with pytest.raises(ParameterError) as info:
            load_settings(config, env={})
        assert info.value.name == name
        assert f"(from {config}); did you mean {closest}?" in str(info.value)
        assert "kafka.bootstrap" not in str(info.value)  # not the whole list
    with pytest.raises(ParameterError, match=r"\(from the command line\); did you mean window.max_transactions\?"):
        load_settings(overrides=["window.max_transaction=3"], env={})
    with pytest.raises(ParameterError, match=r"\[window\] has: max_transactions, max_seconds"):
        load_settings(overrides=["window.zzz=3"], env={})


@pytest.mark.parametrize(("text", "name", "problem"), [
    ('name = "coherance"', "model.name", "unknown model 'coherance'"),
    ('name = "coherence"\npolicy = "mmil"', "model.policy", "unknown policy 'mmil'"),
])
def test_an_unknown_model_or_policy_names_the_setting_and_its_source(tmp_path, monkeypatch, text, name, problem):
    # Regression (QA as an operator): "unknown model 'coherance' (installed: ...)" named neither
    # model.name nor the file that gave it
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    config = tmp_path / "model.toml"
    config.write_text(f"[model]\n{text}\n")
    result = CliRunner().invoke(cli, ["serve", "--config", str(config)])
    assert result.exit_code == 2
    assert f"parameter '{name}': {problem}" in result.output and f"(from {config})" in result.output


def test_web_bind_and_port_are_tried_before_the_worker_connects(tmp_path, monkeypatch):
    # Regression (QA as an operator): 8.8.8.8 and a port another process held passed the check,
    # then the worker crashed after it connected with OSError 99 / 98
    with pytest.raises(ParameterError, match=r"'8\.8\.8\.8' \(from the command line\) is no address") as info:
        check_web_listen(load_settings(overrides=["web.bind=8.8.8.8", "web.port=19701"], env={}))
    assert info.value.name == "web.bind"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = load_settings(env={"SETVEIL_WEB_PORT": str(port), "SETVEIL_WEB_BIND": "127.0.0.1"})
        with pytest.raises(ParameterError, match=rf"{port} \(from \$SETVEIL_WEB_PORT\) is in use") as info:
            check_web_listen(settings)
        assert info.value.name == "web.port"
        monkeypatch.setenv("SETVEIL_WEB_PORT", str(port))
        (tmp_path / "s.txt").write_text("a\n")
        result = CliRunner().invoke(cli, ["serve", "--model", "rho", "-P", "rho=0.5", "--sensitive",
                                          str(tmp_path / "s.txt"), "--bootstrap", "127.0.0.1:1"])
        assert result.exit_code == 2 and "parameter 'web.port'" in result.stderr


def test_a_port_below_1024_without_the_privilege_is_refused_as_web_port(monkeypatch):
    # faked: root may listen anywhere
    def refused(sock, address):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(socket.socket, "bind", refused)
    with pytest.raises(ParameterError, match=r"80 \(from the command line\): not permitted to listen on it "
                       r"\(ports below 1024 need privileges\)") as info:
        check_web_listen(load_settings(overrides=["web.bind=127.0.0.1", "web.port=80"], env={}))
    assert info.value.name == "web.port"


def test_any_other_failure_to_listen_names_web_bind_and_port_and_the_systems_reason(monkeypatch):
    # the reason as the system words it, not the OSError's '[Errno 105] ...'
    def refused(sock, address):
        raise OSError(errno.ENOBUFS, "No buffer space available")

    monkeypatch.setattr(socket.socket, "bind", refused)
    with pytest.raises(ParameterError) as info:
        check_web_listen(load_settings(overrides=["web.bind=127.0.0.1", "web.port=8080"], env={}))
    assert str(info.value) == ("parameter 'web.bind': cannot listen on '127.0.0.1' (from the command line), port 8080 "
                               "(from the command line): No buffer space available")

def test_a_port_a_stopped_server_left_in_time_wait_is_not_refused():
    # the web server (asyncio's create_server) binds with SO_REUSEADDR, so a restarted worker may
    # bind the port its predecessor's connections left in TIME_WAIT; a check binding without it
    # would refuse that port
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        accepted.close()  # the server side closes first: its end of the connection stays in TIME_WAIT
        client.close()
    check_web_listen(load_settings(overrides=["web.bind=127.0.0.1", f"web.port={port}"], env={}))


def test_a_port_held_on_ipv4_alone_is_not_refused_to_an_ipv6_web_bind():
    # the web server (asyncio's create_server) binds an IPv6 address v6-only, so web.bind=:: may
    # share its port with a process listening on IPv4 alone; a check binding dual-stack refused it
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::", 0))
    except OSError:
        pytest.skip("no IPv6 on this machine")
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        check_web_listen(load_settings(overrides=["web.bind=::", f"web.port={port}"], env={}))


@pytest.mark.parametrize("model, given, problem", [
    # Regression (QA as an operator): SETVEIL_MODEL_HIERARCHY with coherence said "parameter
    # 'hierarchy': ... drop --hierarchy and --fanout", naming neither the setting nor its source
    ("coherence", "hierarchy", "does not generalize"),
    ("kanonymity", "sensitive", "does not classify items"),
    # QA re-check: a public list alone was told to come with a sensitive list, which is refused too
    ("kanonymity", "public", "does not classify items"),
])
def test_a_file_the_model_does_not_read_names_the_setting_and_its_source(tmp_path, model, given, problem):
    (tmp_path / "s.txt").write_text("a\n")
    (tmp_path / "h.txt").write_text("a,ALL\n")
    needed = ({"model.sensitive": str(tmp_path / "s.txt"), "model.params": {"h": "0.4", "k": "5", "p": "3"}}
              if model == "coherence" else {"model.hierarchy": str(tmp_path / "h.txt"), "model.params": {"k": "2"}})
    variable = f"SETVEIL_MODEL_{given.upper()}"
    settings = load_settings(None, {"model.name": model, **needed},
                             env={variable: str(tmp_path / ("h.txt" if given == "hierarchy" else "s.txt"))})
    with pytest.raises(ParameterError) as info:
        configure_model(settings)
    assert str(info.value) == (f"parameter 'model.{given}': model {model!r} {problem}: unset model.{given} "
                               f"(from ${variable})")


def test_model_parameter_errors_name_the_layer_that_gave_that_parameter(tmp_path, monkeypatch):
    # Regression (QA as an operator): every model.params error named the last layer that gave any
    (tmp_path / "s.txt").write_text("a\n")
    config = tmp_path / "setveil.toml"
    config.write_text(f'[model]\nname = "coherence"\nsensitive = "{tmp_path / "s.txt"}"\n[model.params]\nk = 0\n')
    settings = load_settings(config, env={"SETVEIL_MODEL_PARAMS": "h=0.4"}, options={"model.params": {"p": "3"}})
    assert settings.source("model.params.k") == str(config)
    assert settings.source("model.params.h") == "$SETVEIL_MODEL_PARAMS"
    assert settings.source("model.params.p") == "the command line"
    with pytest.raises(ParameterError, match=rf"'k': .*\(from {re.escape(str(config))}\)$"):
        configure_model(settings)
    monkeypatch.setenv("SETVEIL_MODEL_PARAMS", "h=2, p=3")
    result = CliRunner().invoke(cli, ["serve", "--config", str(config), "-P", "k=5", "--bootstrap", "127.0.0.1:1"])
    assert result.exit_code == 2 and "'h'" in result.stderr and "(from $SETVEIL_MODEL_PARAMS)" in result.stderr
    assert settings.replace(model__params={"k": "4"}).source("model.params.k") == "code"


@pytest.mark.parametrize("pairs, name", [
    ({"kafka.security_protocol": "SASL_SSL", "kafka.sasl_username": "setveil"}, "kafka.sasl_password"),
    ({"kafka.security_protocol": "SASL_PLAINTEXT", "kafka.sasl_mechanism": "SCRAM-SHA-512",
      "kafka.sasl_password": "pw"}, "kafka.sasl_username"),
])
def test_sasl_needs_a_user_name_and_a_password(pairs, name):
    # Regression (QA as an operator): a user name without a password ended in a traceback at connect
    with pytest.raises(ParameterError) as info:
        load_settings(None, pairs, env={})
    assert info.value.name == name and "(from the command line)" in str(info.value)
    assert load_settings(None, {**pairs, "kafka.sasl_username": "u", "kafka.sasl_password": "p"}, env={})


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    """A certificate, its key (plain and encrypted with "pw"), another key, and a file of no PEM."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    d = tmp_path_factory.mktemp("tls")
    for name in ("", "other-"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", d / f"{name}key.pem", "-out", d / f"{name}cert.pem", "-subj", "/CN=t",
                        "-days", "1"], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", d / "key.pem", "-aes256", "-passout", "pass:pw", "-out",
                    d / "encrypted-key.pem"], check=True, capture_output=True)
    (d / "junk.pem").write_text("no certificate here\n")
    return d


@pytest.mark.parametrize("pairs, name, problem", [
    ({"ssl_cafile": "junk.pem"}, "kafka.ssl_cafile", "holds no usable CA certificate"),
    # the system's reason, not the exception's type ("IsADirectoryError")
    ({"ssl_cafile": "."}, "kafka.ssl_cafile", r"holds no usable CA certificate \(PEM\): Is a directory$"),
    ({"ssl_certfile": "cert.pem"}, "kafka.ssl_keyfile", "holds no private key of its certificate"),
    ({"ssl_certfile": "junk.pem", "ssl_keyfile": "key.pem"}, "kafka.ssl_certfile", "holds no certificate"),
    ({"ssl_certfile": "cert.pem", "ssl_keyfile": "other-key.pem"}, "kafka.ssl_keyfile", "KEY_VALUES_MISMATCH"),
    ({"ssl_certfile": "cert.pem", "ssl_keyfile": "junk.pem"}, "kafka.ssl_keyfile", "not readable as PEM"),
    # the file and setting of the key, not of the certificate
    ({"ssl_certfile": "cert.pem", "ssl_keyfile": "encrypted-key.pem"}, "kafka.ssl_password",
     r"encrypted-key\.pem' \(kafka\.ssl_keyfile, from the command line\) is encrypted"),
    ({"ssl_certfile": "cert.pem", "ssl_keyfile": "encrypted-key.pem", "ssl_password": "wrong"}, "kafka.ssl_password",
     "does not decrypt"),
    ({"ssl_keyfile": "key.pem"}, "kafka.ssl_keyfile", "without kafka.ssl_certfile"),
    # QA as an operator: ignored, as a key without its certificate was
    ({"ssl_cafile": "cert.pem", "ssl_password": "wrong"}, "kafka.ssl_password", "without kafka.ssl_certfile"),
])
def test_the_tls_context_is_built_before_anything_connects(tls_files, pairs, name, problem):
    # Regression (QA as an operator): a CA file without a certificate or a certificate without its
    # key passed the check and ended in an ssl.SSLError traceback at the first connection
    given = {f"kafka.{k}": v if k == "ssl_password" else str(tls_files / v) for k, v in pairs.items()}
    with pytest.raises(ParameterError, match=problem) as info:
        load_settings(None, {"kafka.security_protocol": "SSL", **given}, env={})
    assert info.value.name == name and "from the command line" in str(info.value)
    assert "no certificate here" not in str(info.value) and "wrong" not in str(info.value)


def test_a_good_tls_setup_passes(tls_files):
    for given in ({"kafka.ssl_cafile": "cert.pem", "kafka.ssl_certfile": "cert.pem", "kafka.ssl_keyfile": "key.pem"},
                  {"kafka.ssl_certfile": "cert.pem", "kafka.ssl_keyfile": "encrypted-key.pem",
                   "kafka.ssl_password": "pw"}):
        paths = {k: v if k.endswith("password") else str(tls_files / v) for k, v in given.items()}
        assert load_settings(None, {"kafka.security_protocol": "SASL_SSL", "kafka.sasl_username": "u",
                                    "kafka.sasl_password": "p", **paths}, env={})


@pytest.mark.parametrize("env, shown", [
    ({"SETVEIL_WINDOW_MIN_TRANSACTIONS": "600", "SETVEIL_WINDOW_MAX_TRANSACTIONS": "500"},
     "600 (from $SETVEIL_WINDOW_MIN_TRANSACTIONS) is more than window.max_transactions=500 "
     "(from $SETVEIL_WINDOW_MAX_TRANSACTIONS)"),
    ({"SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "4"},
     "4.0 (from $SETVEIL_CONSUMER_HEARTBEAT_INTERVAL) must be at most a third of "
     "consumer.session_timeout=10.0 (from default), so at most 3.333"),
    ({"SETVEIL_RECORDS_MAX_MESSAGE_BYTES": "4096", "SETVEIL_PRODUCER_MAX_REQUEST_BYTES": "2048"},
     "4096 (from $SETVEIL_RECORDS_MAX_MESSAGE_BYTES) must not exceed producer.max_request_bytes=2048 "
     "(from $SETVEIL_PRODUCER_MAX_REQUEST_BYTES)"),
])
def test_a_rule_over_two_settings_shows_both_values_and_their_sources(env, shown):
    # Regression (QA as an operator): these named the other setting but neither value nor source
    with pytest.raises(ParameterError) as info:
        load_settings(env=env)
    assert shown in str(info.value)


def test_a_rebalance_timeout_shorter_than_the_lease_is_refused():
    # a group that formed without a paused worker before its lease ran out would move its
    # partitions while the worker still counted as confirmed (streams.lease)
    env = {"SETVEIL_CONSUMER_SESSION_TIMEOUT": "30", "SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "3"}
    with pytest.raises(ParameterError) as info:
        load_settings(env=env)
    assert info.value.name == "consumer.rebalance_timeout" and "10.0 (from default) is less than the lease" in str(
        info.value) and "= 27 s; allowed: at least that" in str(info.value)
    assert load_settings(env={**env, "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": "27"}).consumer.rebalance_timeout == 27


@pytest.mark.parametrize("override, name, allowed", [
    ("consumer.fetch_max_bytes=2147483648", "consumer.fetch_max_bytes", "[1024, 2147483647]"),
    ("producer.max_request_bytes=3000000000", "producer.max_request_bytes", "[1024, 2147483647]"),
    ("topics.partitions=3000000000", "topics.partitions", "[1, 2147483647]"),
    ("topics.replication_factor=40000", "topics.replication_factor", "[1, 32767]"),
])
def test_a_setting_the_kafka_protocol_cannot_carry_is_refused_before_connecting(override, name, allowed):
    # Regression (QA as an operator): fetch_max_bytes=2**31 passed, the worker connected, its
    # fetcher died on struct's int32 and it fetched nothing more while /healthz said 200; the
    # topic settings crashed with a traceback after connecting
    with pytest.raises(ParameterError, match=re.escape(allowed)) as info:
        load_settings(overrides=[override], env={})
    assert info.value.name == name
    assert load_settings(overrides=[override.split("=")[0] + "=" + allowed[1:-1].split(", ")[1]], env={})


@pytest.mark.parametrize("overrides, name", [
    (["consumer.session_timeout=3000000", "consumer.rebalance_timeout=3000000"], "consumer.session_timeout"),
    (["consumer.rebalance_timeout=2147483.648"], "consumer.rebalance_timeout"),
    (["producer.request_timeout=3000000"], "producer.request_timeout"),
])
def test_a_timeout_the_kafka_protocol_cannot_carry_in_milliseconds_is_refused(overrides, name):
    # Regression (QA as an operator): a session and rebalance timeout of 3,000,000 s passed and the
    # worker's JoinGroup failed on struct's int32 of milliseconds, healthy and never ready; a
    # request timeout as long passed and stopped the worker at its first Produce request
    with pytest.raises(ParameterError, match=re.escape("allowed: a number in [1, 2147483.647]")) as info:
        load_settings(overrides=overrides, env={})
    assert info.value.name == name
    longest = load_settings(overrides=[f"{key}=2147483.647" for key in (
        "consumer.session_timeout", "consumer.rebalance_timeout", "producer.request_timeout")], env={})
    for seconds in (longest.consumer.session_timeout, longest.consumer.rebalance_timeout,
                    longest.producer.request_timeout):
        assert int(seconds * 1000) == (1 << 31) - 1


def test_a_linger_longer_than_half_the_lease_margin_is_refused():
    # Regression (QA as an operator): linger_ms=40000 was taken; a window's sends start under the
    # lease, and a send that lingers past the lease's margin may reach the broker after another
    # worker took the partition
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=["producer.linger_ms=1501"], env={})
    assert info.value.name == "producer.linger_ms"
    assert "1501 (from the command line) is more than half the lease's margin" in str(info.value)
    assert "= 3 s; allowed: at most 1500" in str(info.value)
    assert load_settings(overrides=["producer.linger_ms=1500"], env={}).producer.linger_ms == 1500
    env = {"SETVEIL_CONSUMER_SESSION_TIMEOUT": "60", "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": "60"}
    assert load_settings(overrides=["producer.linger_ms=3000"], env=env).producer.linger_ms == 3000
    # QA re-check: the margin taken as session less term, and truncated, refused half of it
    for session, heartbeat, most in (("1", "0.1", 50), ("10.3", "3.1", 1550)):
        env = {"SETVEIL_CONSUMER_SESSION_TIMEOUT": session, "SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": heartbeat,
               "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": session}
        assert load_settings(overrides=[f"producer.linger_ms={most}"], env=env).producer.linger_ms == most
        with pytest.raises(ParameterError, match=f"allowed: at most {most}$"):
            load_settings(overrides=[f"producer.linger_ms={most + 1}"], env=env)


def test_a_key_password_without_tls_is_refused():
    # Regression (QA as an operator): ssl_password was ignored under PLAINTEXT, the key files refused
    with pytest.raises(ParameterError, match="uses no TLS") as info:
        load_settings(env={"SETVEIL_KAFKA_SSL_PASSWORD": "x"})
    assert info.value.name == "kafka.ssl_password"


@pytest.mark.parametrize("bootstrap", ["kafka://h:1", "127.0.0.1:1;x:1", "::1:9092", "h :1"])
def test_a_bootstrap_host_that_is_no_host_name_or_address_is_refused(bootstrap):
    # Regression (QA as an operator): these passed and failed only at connecting
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=[f"kafka.bootstrap={bootstrap}"], env={})
    assert info.value.name == "kafka.bootstrap"


@pytest.mark.parametrize("host", [
    "-", "kafka-", "-kafka.svc", "kafka..svc", ".kafka", "kafka_0-", "a" * 64, ".".join(["a" * 63] * 4) + ".b",
    "999.1.1.1", "10.0.0", "[zz]", "[10.0.0.1]", "[]", "[::1",
])
def test_a_bootstrap_host_is_a_host_name_an_ipv4_address_or_an_ipv6_one_in_brackets(host):
    # Regression (QA re-check): "-:9092" and "[zz]:1" passed the old pattern and failed only at connecting
    with pytest.raises(ParameterError) as info:
        load_settings(env={"SETVEIL_KAFKA_BOOTSTRAP": f"localhost:9092,{host}:9092"})
    assert info.value.name == "kafka.bootstrap"
    assert info.value.problem.startswith(f"host {host!r} of {host + ':9092'!r} is not a host name (")
    assert info.value.problem.endswith("(from $SETVEIL_KAFKA_BOOTSTRAP)")


@pytest.mark.parametrize("port", ["0", "65536", "99999999999999999999"])
def test_a_bootstrap_port_outside_1_to_65535_is_refused_with_its_range(port):
    with pytest.raises(ParameterError, match=rf"port {port} of 'h:{port}' is not in 1-65535") as info:
        load_settings(overrides=[f"kafka.bootstrap=h:{port}"], env={})
    assert info.value.name == "kafka.bootstrap"


@pytest.mark.parametrize("bootstrap", [
    "localhost:9092", "kafka-0.kafka.svc:9092", "10.0.0.1:9092", "[::1]:9092", "[fe80::1%eth0]:9092",
    "kafka.example.com.:9092", "0kafka:1", ".".join(["a" * 63] * 3) + "." + "b" * 61 + ":65535",
    "localhost:9092, [::1]:9093", "setveil_kafka_1:9092", "_kafka._tcp.example.com:9092",
])
def test_valid_bootstrap_servers_keep_working(bootstrap):
    assert load_settings(overrides=[f"kafka.bootstrap={bootstrap}"], env={}).kafka.bootstrap == bootstrap


def test_exactly_a_third_of_the_session_timeout_is_a_valid_heartbeat():
    assert load_settings(env={"SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "3", "SETVEIL_CONSUMER_SESSION_TIMEOUT": "9"})


def test_the_startup_log_shows_every_setting_its_source_and_no_secret(tmp_path):
    # Regression (QA as an operator): the worker never logged the settings it ended up with
    config = tmp_path / "setveil.toml"
    config.write_text('[kafka]\nsecurity_protocol = "SASL_PLAINTEXT"\nsasl_username = "svc"\n'
                      '[model.params]\nh = 0.4\n')
    settings = load_settings(config, ["model.params=k=5"], env={"SETVEIL_KAFKA_SASL_PASSWORD": "hunter2",
                                                                "SETVEIL_MODEL_PARAMS": "api_token=t0k3n"})
    lines = describe(settings)
    text = "\n".join(lines)
    assert len(lines) == len(SECTIONS) and "hunter2" not in text and "t0k3n" not in text
    assert f"security_protocol=SASL_PLAINTEXT (from {config})" in text
    assert "sasl_password=*** (from $SETVEIL_KAFKA_SASL_PASSWORD)" in text
    params = f"h=0.4 (from {config}), api_token=*** (from $SETVEIL_MODEL_PARAMS), k=5 (from the command line)"
    assert f"params={{{params}}}" in text
    assert "ssl_password=(none)," in text and "max_transactions=5000," in text  # defaults: no source
    for setting in SETTINGS:
        assert f"{setting.key}=" in text


def test_the_settings_in_force_as_toml_read_back_to_the_same_values_and_no_secret(tmp_path):
    config = tmp_path / "setveil.toml"
    config.write_text('[kafka]\nsecurity_protocol = "SASL_PLAINTEXT"\nsasl_username = "svc"\n'
                      '[model.params]\nh = 0.4\n[window]\nmax_seconds = 1_0.5\n')
    # a path may hold anything a TOML string must escape, and a character JSON would write as a surrogate pair
    odd = 'a"b\\c\x01\x7f\tz é😀'
    secrets = {"SETVEIL_KAFKA_SASL_PASSWORD": "hunter2", "SETVEIL_MODEL_PARAMS": "api_token=t0k3n"}
    settings = load_settings(config, ["model.params=k=5", f"worker.data_dir={odd}"],
                             env={**secrets, "SETVEIL_CONSUMER_COMMIT_INTERVAL": "1e-1"})
    text = as_toml(settings)
    assert "hunter2" not in text and "t0k3n" not in text
    assert "# sasl_password: set (from $SETVEIL_KAFKA_SASL_PASSWORD), not shown" in text
    assert "# api_token: set (from $SETVEIL_MODEL_PARAMS), not shown" in text
    assert f'security_protocol = "SASL_PLAINTEXT"  # from {config}' in text
    assert "max_transactions = 5000\n" in text and "# ssl_cafile: not set" in text  # defaults: no source
    again = tmp_path / "again.toml"
    again.write_text(text)
    # the secrets come from where a deployment keeps them, as before
    read_back = load_settings(again, env=secrets)
    for setting in SETTINGS:
        assert read_back[setting.name] == settings[setting.name], setting.name
    assert read_back.worker.data_dir == odd and read_back.consumer.commit_interval == 0.1


@pytest.mark.parametrize("name, escaped", [('a\n[kafka]\nbootstrap = "evil:1"\n\x01.toml', "a\\u000a[kafka]"),
                                           ("a\x7fb.toml", "a\\u007fb.toml")], ids=["line-break", "delete"])
def test_the_settings_as_toml_read_back_from_a_config_whose_path_holds_a_control_character(tmp_path, name, escaped):
    # Regression (QA): the path, named in each value's comment, ended the comment at its line
    # break, and the rest of it was read as TOML: not valid, or a setting of its own. TOML takes
    # DEL (U+007F) in no comment either, and its comment made the whole text one --config refuses
    # (mutation pass)
    config = tmp_path / name
    config.write_text("[window]\nmax_seconds = 2\n")
    text = as_toml(load_settings(config, env={}))
    again = tmp_path / "again.toml"
    again.write_text(text)
    read_back = load_settings(again, env={})
    assert read_back.window.max_seconds == 2.0 and read_back.kafka.bootstrap == "localhost:9092"
    assert "max_seconds = 2.0  # from " + str(tmp_path) + "/" + escaped in text


def test_the_settings_as_toml_are_utf_8_from_a_config_whose_path_is_not(tmp_path):
    # Regression (QA): a config path of Latin-1 bytes was written into its comment as those
    # bytes, and --config refused the whole text as not UTF-8
    config = tmp_path / os.fsdecode(b"caf\xe9.toml")
    config.write_text("[window]\nmax_seconds = 2\n")
    text = as_toml(load_settings(config, env={}))
    again = tmp_path / "again.toml"
    again.write_bytes(os.fsencode(text))
    assert load_settings(again, env={}).window.max_seconds == 2.0
    assert "max_seconds = 2.0  # from " + str(tmp_path) + "/caf\\udce9.toml" in text


def test_the_settings_as_toml_name_a_value_that_is_not_utf_8_and_read_back(tmp_path):
    # Regression (QA): a data_dir of Latin-1 bytes from the environment was written as those
    # bytes, and --config refused the whole text; no TOML string can hold them
    odd = os.fsdecode(b"/var/lib/caf\xe9")
    env = {"SETVEIL_WORKER_DATA_DIR": odd}
    text = as_toml(load_settings(None, ["window.max_seconds=3"], env=env))
    assert ("# data_dir: set (from $SETVEIL_WORKER_DATA_DIR) to bytes that are not UTF-8, "
            "which a settings file cannot hold") in text
    again = tmp_path / "again.toml"
    again.write_bytes(text.encode("utf-8"))
    read_back = load_settings(again, env=env)
    assert read_back.worker.data_dir == odd and read_back.window.max_seconds == 3.0


def test_serve_check_prints_the_settings_in_force_and_connects_nothing(tmp_path, monkeypatch):
    def refused(*args):
        raise AssertionError("the worker was started")

    monkeypatch.setattr(worker, "run_worker", refused)
    (tmp_path / "s.txt").write_text("x\n")
    args = ["serve", "--check", "--model", "rho", "-P", "rho=0.7", "--sensitive", str(tmp_path / "s.txt"),
            "--bootstrap", "127.0.0.1:1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith("setveil: serve --check: every check passed; nothing was connected\n")
    settings = tomllib.loads(result.stdout)
    assert settings["kafka"]["bootstrap"] == "127.0.0.1:1" and settings["model"]["params"] == {"rho": "0.7"}
    # as the worker would run: min_transactions auto is resolved for the model
    assert "min_transactions = 1  # from the auto value for model 'rho'" in result.stdout
    # a check only a worker makes (serve's, not load_settings'): the web port another process holds
    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        held.listen()
        result = CliRunner().invoke(cli, [*args, "--set", f"web.port={held.getsockname()[1]}"])
    assert result.exit_code == 2 and "web.port" in result.stderr and result.stdout == ""


def test_replay_and_tail_need_not_find_the_workers_item_files(tmp_path, monkeypatch):
    # Regression (QA as an operator): both refused deploy/setveil.toml, whose item files
    # (/etc/setveil/items/...) only the workers mount, though neither opens them
    config = tmp_path / "setveil.toml"
    config.write_text('[model]\nname = "coherence"\nsensitive = "/nowhere/sensitive.txt"\n'
                      'public = "/nowhere/public.txt"\nhierarchy = "/nowhere/hierarchy.csv"\n')
    data = tmp_path / "data.dat"
    data.write_text("a b\n")

    def connect(coroutine, on_stop=None):
        coroutine.close()
        raise SetveilError("would connect now")

    monkeypatch.setattr(commands, "run", connect)
    runner = CliRunner()
    for args in (["replay", str(data)], ["tail"]):
        result = runner.invoke(cli, [*args, "--config", str(config), "--bootstrap", "127.0.0.1:1"])
        assert result.exit_code == 1 and "would connect now" in result.stderr, result.output
        # what they do use is still checked
        result = runner.invoke(cli, [*args, "--config", str(config), "--set", "kafka.bootstrap=nohostport"])
        assert result.exit_code == 2 and "kafka.bootstrap" in result.stderr
    result = runner.invoke(cli, ["serve", "--config", str(config), "-P", "h=0.4", "-P", "k=5", "-P", "p=3",
                                 "--bootstrap", "127.0.0.1:1"])
    assert result.exit_code == 2 and "'model.sensitive'" in result.stderr


@pytest.fixture
def no_broker(monkeypatch):
    """The demo in an environment of no SETVEIL_ variables, failing the test if it starts a broker."""
    def refused(*args, **kwargs):
        raise AssertionError("a broker was started")

    monkeypatch.setattr(demo, "open_broker", refused)
    for key in [k for k in os.environ if k.startswith("SETVEIL_")]:
        monkeypatch.delenv(key)


def test_demo_checks_its_settings_before_it_starts_a_broker(no_broker):
    # Regression (QA as an operator): "broker: tansu at ..." came before the settings error
    echoed: list[str] = []
    for override, name in (({"window.max_transactions": "0"}, "window.max_transactions"),
                           ({"window.max_transactions": "abc"}, "window.max_transactions"),
                           ({"window.min_transactions": "2"}, "window.min_transactions"),
                           ({"web.bind": "192.0.2.1"}, "web.bind")):
        with pytest.raises(ParameterError) as info:
            demo.run_demo(echoed.append, 1000, 20, None, 1000, None, override)
        assert info.value.name == name
    assert echoed == []


def test_demo_refuses_a_batch_the_workers_would_dead_letter_before_it_starts_a_broker(no_broker):
    # Regression (QA as an operator): the demo started a broker and a worker, replayed nothing,
    # and named the message only after its wait for batches that never came
    with pytest.raises(ParameterError) as info:
        demo.run_demo(print, 1000, 100, None, 1000, None, {"records.max_message_bytes": "1024"})
    assert info.value.name == "batch"
    assert re.fullmatch(r"a message of 100 records would be \d+ bytes, over records.max_message_bytes=1024, "
                        "which the workers dead-letter: give a smaller --batch", info.value.problem)


def test_demo_refuses_a_count_a_partition_would_hold_before_it_starts_a_broker(no_broker):
    # Regression (QA as a new user): --count 5 started a broker and a worker and ended after the
    # idle wait with "5 transactions did not come back": the 5 went to partition 0, fewer than the
    # 100 a worker holds until a window has. 20 at a time to each of 2 partitions, partition 1
    # has 100 once partition 0 has had 5 messages: 200 transactions
    echoed: list[str] = []
    with pytest.raises(ParameterError) as info:
        demo.run_demo(echoed.append, 1000, 20, 5, 1000)
    assert (info.value.name, echoed) == ("count", [])
    assert info.value.problem == ("--count 5 leaves 5 transactions on partition 0 (the demo deals them --batch 20 at "
                                  "a time to each of its 2 partitions in turn), fewer than the 100 a worker holds until "
                                  "a window has (window.min_transactions), so they would not come back: give --count "
                                  "200 or more")
    with pytest.raises(ParameterError, match="leaves 90 transactions on partition 1 "):
        demo.run_demo(echoed.append, 1000, 20, 190, 1000)
    # --window sets the minimum too, and the partitions are the settings', not the demo's 2
    with pytest.raises(ParameterError, match="fewer than the 50 a worker holds .* give --count 110 or more$"):
        demo.run_demo(echoed.append, 1000, 20, 60, 50)
    with pytest.raises(ParameterError, match="to each of its 3 partitions in turn.* give --count 300 or more$"):
        demo.run_demo(echoed.append, 1000, 20, 250, 1000, None, {"topics.partitions": "3"})
    # a --count above the sample's 20,000 replays the sample, which every partition's minimum passes
    with pytest.raises(AssertionError, match="a broker was started"):
        demo.run_demo(echoed.append, 1000, 20, 30_000, 1000)
    assert echoed == ["starting a broker ..."]


@hypothesis.given(st.integers(1, 30), st.integers(1, 4), st.integers(2, 60))
def test_the_count_the_demo_asks_for_is_the_fewest_from_which_every_count_comes_back(batch, partitions, least):
    with pytest.raises(ParameterError) as info:
        demo.refuse_held_count(1, 20_000, batch, partitions, least)
    enough = int(re.search(r"give --count (\d+) or more$", info.value.problem)[1])
    with pytest.raises(ParameterError):
        demo.refuse_held_count(enough - 1, 20_000, batch, partitions, least)
    for count in range(enough, enough + 2 * batch * partitions):
        demo.refuse_held_count(count, 20_000, batch, partitions, least)


def test_the_demo_says_when_no_count_of_its_sample_comes_back():
    with pytest.raises(ParameterError, match="even the sample's 20000 are too few: give a smaller --batch, "
                                             "window.min_transactions or topics.partitions$"):
        demo.refuse_held_count(20_000, 20_000, 20, 300, 100)
    with pytest.raises(ParameterError, match="on partition 0 .* even the sample's 20000 are too few"):
        demo.refuse_held_count(30_000, 20_000, 20, 300, 100)
    # a sample of just the count it takes is enough
    with pytest.raises(ParameterError, match="give --count 200 or more$"):
        demo.refuse_held_count(5, 200, 20, 2, 100)
    demo.refuse_held_count(200, 200, 20, 2, 100)


def test_a_tail_the_worker_holds_is_not_counted_as_lost_by_the_demo():
    # Regression (adversarial pass): --count 1060 on one partition at windows of 100 to 1,000
    # leaves the last 60 held, as a service holds a window's tail for more input; the demo failed
    # the run, exit 1, saying "60 transactions did not come back (held or dead-lettered)"
    with demo.sample_files() as (data, sensitive, public):
        configured = demo.coherence(sensitive, public)
        original = demo.read_window(data).take(list(range(1060)))
    window = original.take(list(range(1000)))
    released = configured.model.anonymize(window, configured.policy, np.random.default_rng(0)).window
    batch = [{"tid": tid, "items": items} for tid, items in enumerate(released)]
    release = Released()
    release.add("in/0/0-999", batch)
    echoed: list[str] = []
    assert demo._check_union(echoed.append, original, release, configured, held=60, least=100) == 0
    assert echoed == [
        "60 transactions are held by the worker in an open window of fewer than window.min_transactions=100, as a "
        "service holds a window's tail until more input fills it: not lost, not checked",
        "the union of all 1000 released transactions satisfies coherence (h=0.4, k=5, p=3), as `setveil verify` "
        "checks it"]
    echoed.clear()
    assert demo._check_union(echoed.append, original, release, configured, held=20, least=100) == 1
    assert echoed[1] == "40 transactions did not come back (dead-lettered)"
    echoed.clear()
    more = Released()
    more.add("in/0/0-1000", [*batch, {"tid": 1000, "items": ["HIV"]}])
    assert demo._check_union(echoed.append, original, more, configured, held=59, least=100) == 1
    assert echoed[1] == ("the union of the batches FAILS coherence: added-item: 1 released occurrence is not in the "
                         "original transaction at the same position (a release keeps the window's order)")
    # the check is the model's own: the sample released as it came fails it
    echoed.clear()
    unchanged = Released()
    unchanged.add("in/0/0-999", [{"tid": tid, "items": items} for tid, items in enumerate(window)])
    assert demo._check_union(echoed.append, original, unchanged, configured, held=60, least=100) == 1
    assert echoed[1] == "the union of the batches FAILS coherence: small-cohort: 43 public items have support below k=5"


@pytest.mark.parametrize("size", ["1", "4"])
def test_demo_names_a_window_size_below_its_models_k_as_a_worker_does(no_broker, size):
    # QA: --set window.max_transactions=3 was refused as window.min_transactions, a setting the
    # user never gave (the demo derived it from the size); `serve` names window.max_transactions
    with pytest.raises(ParameterError) as info:
        demo.run_demo(print, 1000, 20, None, 1000, None, {"window.max_transactions": size})
    assert info.value.name == "window.max_transactions"
    assert f"{size} (from the command line) is fewer than the 5 transactions" in info.value.problem


@pytest.mark.parametrize(("args", "size"), [(["--window", "50"], 50), ([], 500), (["--window", "1000"], 1000)])
def test_demos_window_option_wins_over_set_as_serves_options_do(no_broker, monkeypatch, args, size):
    # Regression (helper opts73): --set window.max_transactions=500 was taken and --window 50,
    # given with it, ignored in silence
    used = []

    def broker_refused(settings, *rest):
        used.append(settings.window.max_transactions)
        raise SetveilError("no broker in this test")

    monkeypatch.setattr(demo, "open_demo_broker", broker_refused)
    result = CliRunner().invoke(cli, ["demo", *args, "--set", "window.max_transactions=500"])
    assert result.output == "setveil: error: no broker in this test\n" and used == [size]


@pytest.mark.parametrize("name", demo.DEMO_MODEL)
def test_demo_refuses_to_be_set_another_model(no_broker, name):
    # Regression (QA as a plugin author): `demo --set model.name=kmsup` ran coherence and said nothing
    with pytest.raises(ParameterError, match="the demo runs its own model") as info:
        demo.run_demo(print, 1000, 20, None, 1000, None, {name: "x"})
    assert info.value.name == name


def test_demo_takes_the_model_settings_that_are_the_operators_and_no_other_model(no_broker, tmp_path):
    # Regression (QA as a plugin author): a config's model reached the demo's worker through its
    # environment, merged with the demo's (its model.hierarchy, missing, stopped the worker)
    config = tmp_path / "km.toml"
    config.write_text('[model]\nname = "kanonymity"\nhierarchy = "/nonexistent/h.csv"\ntime_limit = 30\n'
                      "[model.params]\nk = 5\nm = 2\n")
    settings = demo.demo_settings(1000, str(config), {"model.memory_limit": "256", "model.seed": "4"},
                                  env={"SETVEIL_MODEL_POLICY": "top-down"})
    assert (settings.model.time_limit, settings.model.memory_limit, settings.model.seed) == (30, 256, 4)
    env = settings.as_env()
    assert not {"SETVEIL_MODEL_NAME", "SETVEIL_MODEL_POLICY", "SETVEIL_MODEL_PARAMS", "SETVEIL_MODEL_HIERARCHY"} & set(env)
    assert settings.model.params == {} and settings.source("model.params") == "default"


def test_two_demos_share_no_topic_group_or_web_port_and_serve_their_metrics_to_this_machine_only():
    # a run never mixes with another one, on a cluster or on one machine (streams/demo.py)
    first, second = (demo.demo_settings(1000, None, {}, env={}) for _ in range(2))
    for name in ("topics.input", "topics.output", "topics.dlq", "topics.windows", "consumer.group_id", "web.port"):
        assert first[name] != second[name], name
    assert first.web.bind == second.web.bind == "127.0.0.1"


def test_a_cluster_security_setting_without_its_cluster_is_refused_before_a_broker_starts(no_broker, monkeypatch):
    # Regression (QA of the docs): with SETVEIL_KAFKA_SECURITY_PROTOCOL=SSL and no bootstrap, the demo
    # started the embedded broker, connected over TLS, and said no broker answered
    monkeypatch.setenv("SETVEIL_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
    monkeypatch.setenv("SETVEIL_KAFKA_SASL_USERNAME", "u")
    monkeypatch.setenv("SETVEIL_KAFKA_SASL_PASSWORD", "p")
    with pytest.raises(ParameterError, match=r"SASL_PLAINTEXT \(from \$SETVEIL_KAFKA_SECURITY_PROTOCOL\) is for the "
                       "cluster kafka.bootstrap names, and none is set"):
        demo.run_demo(print, 1000, 20, None, 1000)
    result = CliRunner().invoke(cli, ["bench", "stream", str(REPO / "streams" / "data" / demo.SAMPLE), "--count", "10"])
    assert result.exit_code == 2 and "kafka.bootstrap names, and none is set" in result.output
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "kafka.example:9092")
    check_own_broker(load_settings(env=dict(os.environ)))  # the cluster's own


def test_demo_uses_the_cluster_kafka_bootstrap_names_however_it_was_set(monkeypatch):
    # Regression (QA as an operator): `demo --set kafka.bootstrap=...` started Tansu anyway,
    # where $SETVEIL_KAFKA_BOOTSTRAP is used as the cluster
    started = []

    def tansu(env=None, log_path=None):
        started.append(env)
        return Broker("127.0.0.1:19799", "tansu")

    asked = []

    async def answers(settings):  # the cluster is asked before a worker starts
        asked.append(settings.kafka.bootstrap)

    monkeypatch.setattr(demo, "open_broker", tansu)
    monkeypatch.setattr(demo, "answers", answers)
    for settings in (demo.demo_settings(1000, None, {"kafka.bootstrap": "kafka.example:9092"}, env={}),
                     demo.demo_settings(1000, None, {}, env={"SETVEIL_KAFKA_BOOTSTRAP": "kafka.example:9092"})):
        broker, used = demo.open_demo_broker(settings, Path("broker.log"), print)
        assert (broker.kind, broker.bootstrap, used.kafka.bootstrap) == ("external", "kafka.example:9092",
                                                                         "kafka.example:9092")
    assert started == [] and asked == ["kafka.example:9092"] * 2
    broker, used = demo.open_demo_broker(demo.demo_settings(1000, None, {}, env={}), Path("broker.log"), print)
    assert broker.kind == "tansu" and used.kafka.bootstrap == "127.0.0.1:19799" and len(started) == 1
    assert len(asked) == 2


@pytest.mark.parametrize("variable", ["SETVEIL_WINDOW_MAXSECONDS", "SETVEIL_TOPIC_INPUT", "SETVEIL_KAFKA_BOOTSTRAPS"])
def test_bench_stream_refuses_a_misspelt_variable_as_serve_does(tmp_path, variable):
    # Regression (QA): bench stream reads only the SETVEIL_KAFKA_* variables, and a misspelt
    # other one was ignored in silence, where serve and serve --check refuse it
    data = tmp_path / "d.dat"
    data.write_text("a b\n" * 10)
    env = {"SETVEIL_KAFKA_BOOTSTRAP": "127.0.0.1:1", variable: "3"}
    bench = CliRunner().invoke(cli, ["bench", "stream", str(data)], env=env)
    serve = CliRunner().invoke(cli, ["serve", "--check"], env=env)
    assert bench.exit_code == serve.exit_code == 2
    assert bench.output == serve.output and f"parameter '{variable}': no setting has this" in bench.output


def test_a_bootstrap_variable_that_is_no_host_port_names_the_variable_where_it_is_read():
    # Regression (QA as an operator): `bench stream` said "(from the command line)"
    from setveil.streams.broker import open_broker

    with pytest.raises(ParameterError, match=r"'nohostport' is not host:port .*from \$SETVEIL_KAFKA_BOOTSTRAP\)"):
        open_broker(env={"SETVEIL_KAFKA_BOOTSTRAP": "nohostport"})


@pytest.mark.parametrize("empty", ["", " \n"])
def test_an_empty_bootstrap_variable_is_refused_by_the_tests_broker_as_serve_refuses_it(monkeypatch, empty):
    # Regression (helper opts73): an empty SETVEIL_KAFKA_BOOTSTRAP counted as unset, so the test
    # suite started a broker of its own, where serve, replay, tail and demo refuse it
    from setveil.streams import broker as broker_module

    def started(*args, **kwargs):
        raise AssertionError("a broker was started")

    monkeypatch.setattr(broker_module, "docker_available", lambda: False)
    monkeypatch.setattr(broker_module, "start_tansu", started)
    with pytest.raises(ParameterError) as refused:
        open_broker(env={"SETVEIL_KAFKA_BOOTSTRAP": empty})
    serve = CliRunner().invoke(cli, ["serve", "--check"], env={"SETVEIL_KAFKA_BOOTSTRAP": empty})
    assert serve.exit_code == 2 and serve.output == f"setveil: error: {refused.value}\n"
    assert "from $SETVEIL_KAFKA_BOOTSTRAP" in str(refused.value)


def test_the_model_seed_setting_takes_what_every_seed_option_takes():
    # Regression (QA re-check): model.seed=-1 was taken, and drew what seed 2**64-1 draws
    for value in ("-1", str(2**32)):
        with pytest.raises(ParameterError, match=r"allowed: an integer in \[0, 4294967295\]") as info:
            load_settings(overrides=[f"model.seed={value}"], env={})
        assert info.value.name == "model.seed"


@pytest.mark.parametrize("args, problem", [
    (["--seed", "-1"], "0<=x<=4294967295"),
    (["--sensitive", "EMPTY"], "lists no items, so nothing would be protected"),
])
def test_bench_stream_refuses_a_bad_seed_or_an_empty_sensitive_list_before_a_broker_starts(tmp_path, args, problem):
    # Regression (QA re-check): a negative seed ended in a traceback after the broker started, and
    # an empty sensitive list in "the worker exited with status 2"
    data = tmp_path / "d.dat"
    data.write_text("a b\n" * 10)
    (tmp_path / "empty.txt").write_text("\n")
    args = [str(tmp_path / "empty.txt") if a == "EMPTY" else a for a in args]
    result = CliRunner().invoke(cli, ["bench", "stream", str(data), *args], env={"SETVEIL_KAFKA_BOOTSTRAP": "127.0.0.1:1"})
    assert result.exit_code == 2 and problem in result.stderr


def test_a_worker_refuses_a_parameter_file_its_batches_cannot_name(tmp_path):
    # QA: a pipe (-P restrictive=<(...)) gave batches no digest, so two workers given different
    # patterns emitted the same model block; and one with no writer held the worker as it started
    read, write = os.pipe()
    os.write(write, b"a b\n")
    os.close(write)
    settings = load_settings(None, {"model.name": "sanitize",
                                    "model.params": {"restrictive": f"/proc/self/fd/{read}", "psi": "0"}})
    try:
        with pytest.raises(ParameterError) as refused:
            configure_model(settings)
    finally:
        os.close(read)
    assert str(refused.value) == (f"parameter 'model.params': 'restrictive': '/proc/self/fd/{read}' is no regular "
                                  "file: a worker's batches name the file by digest, so give one (from the command line)")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    settings = load_settings(None, {"model.name": "sanitize", "model.params": {"restrictive": str(fifo)}})
    with pytest.raises(ParameterError, match="is no regular file"):
        configure_model(settings)  # refused before the model opens it, which would wait for a writer
    patterns = tmp_path / "p.txt"
    patterns.write_text("a b\n")
    settings = load_settings(None, {"model.name": "sanitize", "model.params": {"restrictive": str(patterns)}})
    assert set(configure_model(settings).files) == {"restrictive"}


def test_a_memory_limit_needs_a_time_limit():
    # a process short of memory can spin in the standard library's queues rather than fail (seen:
    # the rho pool's submit, 10 minutes at 100% CPU); only the time limit is sure to end the window
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=["model.memory_limit=512"], env={"SETVEIL_MODEL_TIME_LIMIT": "0"})
    assert info.value.name == "model.memory_limit"
    # QA: where the time limit of 0 came from was not said (a file set 5, the command line 0)
    assert ("512 (from the command line) needs model.time_limit too, which is 0.0 (from $SETVEIL_MODEL_TIME_LIMIT)"
            in str(info.value))
    # QA: a ρ pool under 16 MiB could not start its threads (8 MiB stacks count), and waited out
    # the time limit instead of failing
    with pytest.raises(ParameterError, match=r"^parameter 'model.memory_limit': 63 \(from the command line\) is "
                                             r"less than 64 MiB \(every thread .*; allowed: 0 \(no limit\) or at "
                                             r"least 64$"):
        load_settings(overrides=["model.memory_limit=63", "model.time_limit=300"], env={})
    assert load_settings(overrides=["model.memory_limit=64", "model.time_limit=300"], env={}).model.memory_limit == 64
    settings = load_settings(overrides=["model.memory_limit=512", "model.time_limit=300"], env={})
    assert (settings.model.memory_limit, settings.model.time_limit) == (512, 300.0)
    assert load_settings(env={}).model.memory_limit == 0


def test_the_config_option_wins_over_setveil_config(tmp_path):
    # docs/operations.md: "--config file (or $SETVEIL_CONFIG)": the variable names the file only
    # when no --config does
    given, other = tmp_path / "given.toml", tmp_path / "other.toml"
    given.write_text("[window]\nmax_transactions = 300\n")
    other.write_text("[window]\nmax_transactions = 400\n")
    values = load_settings(given, env={"SETVEIL_CONFIG": str(other)})
    assert values.window.max_transactions == 300 and values.source("window.max_transactions") == str(given)
    values = load_settings(env={"SETVEIL_CONFIG": str(other)})
    assert values.window.max_transactions == 400 and values.source("window.max_transactions") == str(other)


def test_a_commands_own_option_wins_over_set_of_the_same_setting():
    # docs/operations.md: --set, then the command's own options (serve's model options, --bootstrap)
    values = load_settings(None, ["kafka.bootstrap=a:1", "model.name=rho", "model.params=k=5,h=0.4"], env={},
                           options={"kafka.bootstrap": "b:2", "model.name": "coherence", "model.params": {"k": "7"}})
    assert (values.kafka.bootstrap, values.model.name) == ("b:2", "coherence")
    assert values.model.params == {"k": "7", "h": "0.4"}


@pytest.fixture
def coherence_k5(tmp_path):
    (tmp_path / "s.txt").write_text("a\n")
    return configure("coherence", None, ["h=0.4", "k=5", "p=3"], tmp_path / "s.txt", None, None, None).model


def test_the_window_limits_may_meet(coherence_k5):
    # docs: a least number of transactions more than the most is refused; as many is a window of one size
    fixed = load_settings(overrides=["window.min_transactions=5", "window.max_transactions=5"], env={})
    assert fit_to_model(fixed, coherence_k5).window.min_transactions == 5
    # auto takes exactly what the model needs, which the most may equal
    assert fit_to_model(load_settings(overrides=["window.max_transactions=5"], env={}),
                        coherence_k5).window.min_transactions == 5
    with pytest.raises(ParameterError, match="^parameter 'window.min_transactions': 4 is fewer than the 5 "):
        fit_to_model(load_settings(overrides=["window.min_transactions=4"], env={}), coherence_k5)
    with pytest.raises(ParameterError, match="^parameter 'window.min_transactions': 6 .* is more than "
                                             "window.max_transactions=5 "):
        load_settings(overrides=["window.min_transactions=6", "window.max_transactions=5"], env={})


def test_the_auto_window_minimum_names_its_source_in_the_startup_log(coherence_k5):
    settings = fit_to_model(load_settings(env={}), coherence_k5)
    assert settings.source("window.min_transactions") == "the auto value for model 'coherence'"
    assert "min_transactions=5 (from the auto value for model 'coherence')" in "\n".join(describe(settings))


def test_a_linger_of_exactly_half_the_margin_is_taken_where_the_float_product_falls_short():
    # a heartbeat of 2.01 s leaves a margin of 2.01 s, half of it 1005 ms; 2.01 * 500 is
    # 1004.9999999999999 as a float, which must not refuse the 1005 the docs allow
    env = {"SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "2.01"}
    assert load_settings(overrides=["producer.linger_ms=1005"], env=env).producer.linger_ms == 1005
    with pytest.raises(ParameterError, match="allowed: at most 1005$"):
        load_settings(overrides=["producer.linger_ms=1006"], env=env)


@pytest.mark.parametrize("topic", [".", ".."])
def test_dot_and_dot_dot_are_no_topic_names(topic):
    # Kafka refuses them though they match the characters it allows
    with pytest.raises(ParameterError) as info:
        load_settings(env={"SETVEIL_TOPICS_WINDOWS": topic})
    assert info.value.name == "topics.windows" and info.value.problem.startswith(f"{topic!r} (from $SETVEIL")


@pytest.mark.parametrize("env, name, other", [
    ({"SETVEIL_TOPICS_DLQ": "transactions"}, "topics.dlq", "topics.input"),
    ({"SETVEIL_TOPICS_WINDOWS": "transactions"}, "topics.windows", "topics.input"),
    ({"SETVEIL_TOPICS_WINDOWS": "transactions.anonymized"}, "topics.windows", "topics.output"),
])
def test_every_two_of_the_four_topics_differ(env, name, other):
    with pytest.raises(ParameterError) as info:
        load_settings(env=env)
    assert info.value.name == name and f"is {other} too; input, output, dlq and windows must be four" in str(info.value)


@pytest.mark.parametrize("bind", ["x..y", "a" * 64])
def test_a_bind_address_the_resolver_cannot_encode_is_refused_by_name(bind):
    # getaddrinfo raises UnicodeError, not gaierror, for an empty or overlong label
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=[f"web.bind={bind}"], env={})
    assert str(info.value) == (f"parameter 'web.bind': {bind!r} (from the command line) is no address of this "
                               "machine to listen on")


def test_a_bracketed_ipv6_bind_address_is_refused_with_the_address_to_give():
    # Regression (QA as an operator): web.bind=[::1], written as kafka.bootstrap writes IPv6, was only
    # "no address of this machine", as if IPv6 were not taken
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=["web.bind=[::1]"], env={})
    assert str(info.value) == ("parameter 'web.bind': '[::1]' (from the command line) is no address of this machine "
                               "to listen on; give an IPv6 address without brackets, ::1")


def test_a_bootstrap_host_name_of_254_characters_is_refused():
    # docs/operations.md: each label at most 63 characters, 253 in all (the trailing dot aside)
    longest = ".".join(["a" * 63] * 3) + "." + "b" * 61
    assert load_settings(overrides=[f"kafka.bootstrap={longest}.:1"], env={}).kafka.bootstrap == f"{longest}.:1"
    with pytest.raises(ParameterError, match="^parameter 'kafka.bootstrap': host ") as info:
        load_settings(overrides=[f"kafka.bootstrap={longest}b:1"], env={})
    assert info.value.problem.startswith(f"host {longest + 'b'!r} of")


@pytest.mark.parametrize("session, heartbeat", [("1.2", "0.4"), ("6.3", "2.1"), ("9.6", "3.2")])
def test_exactly_a_third_of_the_session_timeout_as_typed_is_a_valid_heartbeat(session, heartbeat):
    # Regression (mutation testing): 0.4 * 3 is 1.2000000000000002 as floats, so a heartbeat of
    # exactly a third, which docs/operations.md allows, was refused for these sessions
    env = {"SETVEIL_CONSUMER_SESSION_TIMEOUT": session, "SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": heartbeat,
           "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": session}
    assert load_settings(env=env).consumer.heartbeat_interval == float(heartbeat)


def test_the_most_heartbeat_a_refusal_gives_is_allowed():
    # Regression (mutation testing): a third of 2 s was given as "at most 0.6667", which is more
    # than a third, and refused
    env = {"SETVEIL_CONSUMER_SESSION_TIMEOUT": "2", "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": "2"}
    with pytest.raises(ParameterError, match=r"so at most 0\.6666$"):
        load_settings(env={**env, "SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "0.7"})
    assert load_settings(env={**env, "SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "0.6666"})


def test_the_least_rebalance_timeout_a_refusal_gives_is_the_lease_exactly():
    # Regression (mutation testing): the lease of 10 - 3.3328 = 6.6672 s was given as "= 6.667 s;
    # allowed: at least that", and 6.667 was refused
    env = {"SETVEIL_CONSUMER_SESSION_TIMEOUT": "10", "SETVEIL_CONSUMER_HEARTBEAT_INTERVAL": "3.3328"}
    with pytest.raises(ParameterError, match=r"= 6\.6672 s; allowed: at least that$"):
        load_settings(env={**env, "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": "6.667"})
    assert load_settings(env={**env, "SETVEIL_CONSUMER_REBALANCE_TIMEOUT": "6.6672"}).consumer.rebalance_timeout == 6.6672


def test_a_model_parameter_named_like_a_secret_is_masked_in_any_case():
    # parameter names are identifiers, and an API_Token is as secret as an api_token
    settings = load_settings(overrides=["model.params=API_Token=t0k3n,Db_PASSWORD=hunter2"], env={})
    text = "\n".join(describe(settings))
    assert "t0k3n" not in text and "hunter2" not in text
    assert "API_Token=*** (from the command line), Db_PASSWORD=*** (from the command line)" in text


@pytest.mark.parametrize("source, layer", [
    ("$SETVEIL_MODEL_PARAMS", {"env": {"SETVEIL_MODEL_PARAMS": "k=2,api_token=hun ter2"}}),
    ("the command line", {"overrides": ["model.params=k=2,Db_PASSWORD=hun,ter2"], "env": {}}),
])
def test_a_secrets_value_cut_by_a_comma_or_a_blank_in_model_params_is_refused_unshown(source, layer):
    # Regression (QA): the rest of the value, after the blank, was refused as a pair of its own,
    # quoted: "'ter2': expected NAME=VALUE"
    with pytest.raises(ParameterError) as info:
        load_settings(**layer)
    message = str(info.value)
    assert info.value.name == "model.params" and "ter2" not in message
    assert "its value holds a comma or a blank, which separate the pairs here" in message
    assert message.endswith(f"(from {source})")


@pytest.mark.parametrize("value, shown", [("2,api_token=hunter2", "'2,api_token=***'"),
                                          ("2 api_token hunter2", "'2 api_token ***'")],
                         ids=["comma syntax", "a secret's name without '='"])
def test_a_model_parameter_holding_another_is_refused_from_a_file_without_the_secret(tmp_path, value, shown):
    # Regression (QA): serve --check quoted m's whole value, secret included, and advised -P, which
    # a file has not, where the operator wrote a TOML table
    config = tmp_path / "worker.toml"
    config.write_text(f'[model]\nname = "km-anonymity"\n[model.params]\nk = 2\nm = "{value}"\n')
    result = CliRunner().invoke(cli, ["serve", "--check", "--config", str(config)], env={})
    assert result.exit_code == 2 and "hunter2" not in result.output and "-P" not in result.output
    assert (f"parameter 'model.params': 'm': got {shown}, which holds what looks like another parameter (api_token): "
            f"give each parameter its own key in the TOML table [model.params] (from {config})\n") in result.output


@pytest.mark.parametrize("env, options, source, advice", [
    ({"SETVEIL_MODEL_PARAMS": "k=2,m=api_token=hunter2"}, [], "$SETVEIL_MODEL_PARAMS",
     "give each parameter its own NAME=VALUE, the pairs separated by commas or blanks"),
    ({}, ["-P", "k=2", "-P", "m=api_token=hunter2"], "the command line",
     "give each parameter its own NAME=VALUE (-P takes one each)"),
], ids=["environment", "command line"])
def test_a_model_parameter_holding_another_is_advised_in_the_terms_of_its_source(env, options, source, advice):
    # a file's advice is in the test above
    result = CliRunner().invoke(cli, ["serve", "--check", "--model", "km-anonymity", *options], env=env)
    assert result.exit_code == 2 and "hunter2" not in result.output
    assert (f"'m': got 'api_token=***', which holds what looks like another parameter (api_token): {advice} "
            f"(from {source})\n") in result.output


def test_a_secrets_value_cut_in_a_files_model_params_is_advised_as_the_toml_table(tmp_path):
    # Regression (QA): a file's params = "…" was advised to give the value with -P, which a file has not
    config = tmp_path / "worker.toml"
    config.write_text('[model]\nparams = "k=2,api_token=hun ter2"\n')
    with pytest.raises(ParameterError) as info:
        load_settings(config, env={})
    assert "ter2" not in str(info.value) and "-P" not in str(info.value)
    assert "; give it in the TOML table [model.params] (the value is not shown" in info.value.problem


@pytest.mark.parametrize("name", ["$team.toml", "default", "the command line"])
def test_a_settings_file_is_known_as_the_file_whatever_its_name(tmp_path, monkeypatch, name):
    # Regression (review): the file was told by elimination (a source not "$…", the command line or
    # the default), so a file named like another source was advised in that source's terms, and a
    # source code adds (the auto value of window.min_transactions) counted as the file
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text('[model]\nname = "km-anonymity"\n[model.params]\nk = 2\nm = "2,api_token=x"\n')
    result = CliRunner().invoke(cli, ["serve", "--check", "--config", name], env={})
    assert result.exit_code == 2
    assert result.output.endswith("give each parameter its own key in the TOML table [model.params] "
                                  f"(from {name})\n")
    (tmp_path / name).write_text('[model]\nparams = "k=2,api_token=hun ter2"\n')
    with pytest.raises(ParameterError, match=r"; give it in the TOML table \[model.params\] \(the value"):
        load_settings(name, env={})
    # the file's parameters under a model the environment names: the hint to drop them
    (tmp_path / name).write_text('[model]\nname = "coherence"\n[model.params]\nh = 0.4\nk = 5\np = 3\n')
    refused = load_settings(name, env={"SETVEIL_MODEL_NAME": "rho"})
    with pytest.raises(ParameterError, match=r"\(from .*\); model.params merges the parameters of every source"):
        configure_model(refused)
    (tmp_path / "s.txt").write_text("a\n")
    model = configure("coherence", None, ["h=0.4", "k=5", "p=3"], "s.txt", None, None, None).model
    fitted = fit_to_model(load_settings(env={}), model)
    assert fitted.source("window.min_transactions") == "the auto value for model 'coherence'"
    assert not settings_module._a_file(fitted.source("window.min_transactions"))


def test_a_settings_file_named_default_is_no_default(tmp_path, monkeypatch):
    # Regression (review): a setting was left at its default when its source was "default", so
    # the cluster a file of that name gave was taken for none (the demo and bench stream start a
    # broker of their own then), and no comment or log said where the values came from
    monkeypatch.chdir(tmp_path)
    (tmp_path / "default").write_text('[kafka]\nbootstrap = "kafka.example:9092"\nsecurity_protocol = "SASL_PLAINTEXT"\n'
                                      'sasl_username = "u"\nsasl_password = "p"\n')
    settings = load_settings("default", env={})
    assert "bootstrap=kafka.example:9092 (from default)" in describe(settings)[0]
    assert 'bootstrap = "kafka.example:9092"  # from default\n' in as_toml(settings)
    check_own_broker(settings)  # the cluster's own protocol
    assert settings.given("kafka.bootstrap") and not settings.given("topics.input")


def test_a_malformed_model_parameter_pair_is_named_with_its_source():
    with pytest.raises(ParameterError) as info:
        load_settings(env={"SETVEIL_MODEL_PARAMS": "h=0.4 k"})
    assert str(info.value) == "parameter 'model.params': 'k': expected NAME=VALUE (from $SETVEIL_MODEL_PARAMS)"


def test_a_memory_limit_is_refused_off_linux(monkeypatch):
    # the limit is RLIMIT_DATA as Linux counts it (docs/operations.md: "Linux")
    monkeypatch.setattr("setveil.streams.settings.sys.platform", "darwin")
    with pytest.raises(ParameterError, match=r"^parameter 'model.memory_limit': 512 \(from the command line\) needs "
                                             r"Linux, .*\(this is darwin\); allowed here: 0$"):
        load_settings(overrides=["model.memory_limit=512", "model.time_limit=300"], env={})
    assert load_settings(overrides=["model.time_limit=300"], env={}).model.memory_limit == 0


@pytest.mark.parametrize("server", ["h:", "h:x", "h:90 92", "h:٩٠٩٢", "h:+1", "h"])
def test_a_bootstrap_port_that_is_no_ascii_number_is_no_host_port(server):
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=[f"kafka.bootstrap=localhost:9092,{server}"], env={})
    assert str(info.value) == (f"parameter 'kafka.bootstrap': {server!r} is not host:port (a comma-separated list of "
                               "them; from the command line)")


def test_a_toml_integer_beyond_a_floats_range_is_refused_naming_the_setting_and_file(tmp_path):
    # Regression (mutation testing): float() of it raised OverflowError, a traceback from serve
    config = tmp_path / "setveil.toml"
    config.write_text(f"[window]\nmax_seconds = {10**400}\n")
    with pytest.raises(ParameterError) as info:
        load_settings(config, env={})
    assert info.value.name == "window.max_seconds"
    assert info.value.problem.endswith(f", allowed: a number in [0.01, inf) (from {config})")


@pytest.mark.parametrize("node", ['"SECRET\\u0000"', '"a\\u0000"'])
def test_a_hierarchy_node_labelled_with_a_nul_is_refused_before_serve_connects(tmp_path, node):
    # Regression: anonymize refused such a node above a file's items, but serve started and would
    # have put it into a batch, which no consumer could feed back (no record may hold a NUL). A
    # worker cannot know which nodes its windows reach, so an inner node and a leaf are both refused.
    tree = tmp_path / "h.csv"
    tree.write_text(f"a,ALL\nb,ALL\n{node},ALL\n" if node.startswith('"a') else f"a,{node}\nb,{node}\n")
    line = 3 if node.startswith('"a') else 1
    result = CliRunner().invoke(cli, ["serve", "-m", "kanonymity", "-P", "k=2", "--hierarchy", str(tree),
                                      "--bootstrap", "127.0.0.1:1"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr == (f"setveil: error: parameter 'model.hierarchy': {tree}:{line}: a node has a label with a "
                             "NUL, which no record may hold, so a batch holding it would not read back (from the "
                             "command line)\n")


def _service_links(service: str, port: int) -> dict[str, str]:
    """The variables the kubelet gives a pod, unless its spec turns service links off, for a
    Service of its namespace that has a cluster IP (Kubernetes, "Environment variables" of Services)."""
    name = service.upper().replace("-", "_")
    url = f"tcp://10.96.0.7:{port}"
    return {f"{name}_SERVICE_HOST": "10.96.0.7", f"{name}_SERVICE_PORT": str(port), f"{name}_PORT": url,
            f"{name}_PORT_{port}_TCP": url, f"{name}_PORT_{port}_TCP_PROTO": "tcp",
            f"{name}_PORT_{port}_TCP_PORT": str(port), f"{name}_PORT_{port}_TCP_ADDR": "10.96.0.7"}


DEPLOY = REPO / "deploy"


def _configmap_config(tmp_path) -> Path:
    """The Kubernetes ConfigMap's setveil.toml, its item files made in ``tmp_path``."""
    config = tmp_path / "setveil.toml"
    config.write_text(configmap_toml().replace("/etc/setveil/items", str(tmp_path)))
    for name in ("sensitive.txt", "public.txt"):
        (tmp_path / name).write_text(f"{name}\n")
    return config


def test_the_kubernetes_workers_start_whatever_services_their_namespace_holds(tmp_path):
    # Regression (QA as an operator): in the Deployment's namespace, setveil, a Service named
    # setveil-web (the workers' port behind a cluster IP) gave every pod SETVEIL_WEB_PORT=tcp://...,
    # refused as web.port, and one named setveil-kafka SETVEIL_KAFKA_PORT, refused as no setting:
    # every worker stopped at its start, exit status 2, for as long as the Service was there
    config = _configmap_config(tmp_path)
    links = re.search(r"^ +enableServiceLinks: (\S+)$", (DEPLOY / "kubernetes" / "deployment.yaml").read_text(),
                      re.MULTILINE)
    env = {} if links is not None and links.group(1) == "false" else {
        **_service_links("setveil-web", 6066), **_service_links("setveil-kafka", 9092)}
    assert load_settings(config, env=env).web.port == 6066


def _endpoints() -> set[str]:
    """The paths docs/operations.md's Endpoints table lists."""
    section = (REPO / "docs" / "operations.md").read_text().split("## Endpoints", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(/[a-z]+)` \|", section, flags=re.MULTILINE))


def _serve_check_passes(monkeypatch, config: Path, env: dict[str, str]) -> None:
    """``serve --check`` of ``config`` under ``env`` alone, every check a worker makes before it
    connects (the model's smallest window among them, which loading the settings does not make),
    on a free web port: the deploy files' own may be held on the machine the tests run on."""
    for name in [name for name in os.environ if name.startswith("SETVEIL_")]:
        monkeypatch.delenv(name)
    result = CliRunner().invoke(cli, ["serve", "--check", "--config", str(config), "--set", f"web.port={free_port()}"],
                                env=env)
    assert result.exit_code == 0, result.stderr


def test_the_kubernetes_probes_and_scrape_reach_the_port_and_paths_the_workers_serve(tmp_path, monkeypatch):
    # operator walkthrough: the Deployment's variables, ports, probes and Prometheus annotations
    # against the ConfigMap's settings as a worker loads them, and the paths the docs list
    kubernetes = DEPLOY / "kubernetes"
    deployment = (kubernetes / "deployment.yaml").read_text()
    env = deployment_env()
    assert env  # the pairs are read, as a change of their layout would otherwise pass unseen
    config = _configmap_config(tmp_path)
    _serve_check_passes(monkeypatch, config, env)
    port = load_settings(config, env=env).web.port
    assert re.findall(r"containerPort: (\d+)", deployment) == [str(port)]
    assert re.search(r'prometheus\.io/port: "(\d+)"', deployment).group(1) == str(port)
    assert re.search(r"prometheus\.io/path: (\S+)", deployment).group(1) == "/metrics"
    probes = dict(re.findall(r"^ +(startup|liveness|readiness)Probe:\n(?: +#.*\n)* +httpGet: \{path: (\S+), "
                             r"port: metrics\}", deployment, flags=re.MULTILINE))
    assert probes == {"startup": "/healthz", "liveness": "/healthz", "readiness": "/readyz"}
    assert set(probes.values()) | {"/metrics"} <= _endpoints()
    assert "targetPort: metrics}" in (kubernetes / "service.yaml").read_text()


def test_the_compose_workers_load_their_settings_and_serve_where_ports_and_healthcheck_point(monkeypatch):
    # operator walkthrough: every SETVEIL_ variable docker-compose sets, over the setveil.toml it
    # mounts, as a worker loads them (the item files at the paths the image copies them to)
    compose = (DEPLOY / "docker-compose.yml").read_text()
    assert "\nCOPY streams/data ./streams/data\n" in (DEPLOY / "Dockerfile").read_text()  # under WORKDIR /app
    env = {name: value.strip('"').replace("/app/", f"{REPO}/")
           for name, value in re.findall(r"^ +(SETVEIL_[A-Z_]+): (.*)$", compose, flags=re.MULTILINE)}
    _serve_check_passes(monkeypatch, DEPLOY / "setveil.toml", env)
    settings = load_settings(DEPLOY / "setveil.toml", env=env)
    assert (settings.kafka.bootstrap, settings.window.max_transactions) == ("kafka:9092", 1000)
    assert {inside for _, inside in re.findall(r'ports: \["(\d+):(\d+)"\]', compose)} == {str(settings.web.port)}
    healthcheck = re.findall(r"urlopen\('http://127\.0\.0\.1:(\d+)(/\w+)'\)", compose)
    assert healthcheck == [(str(settings.web.port), "/healthz")]


def test_the_deployments_give_a_stopping_worker_longer_than_its_own_stop_limit():
    # Regression (operator walkthrough): docker-compose left its workers Docker's default grace of
    # 10 s, the worker's own limit for a stop that hangs, so Docker's SIGKILL could end the worker
    # before its line saying what still stopped (the Deployment gave 30 s)
    compose = re.search(r"^  stop_grace_period: (\d+)s$", (DEPLOY / "docker-compose.yml").read_text(), re.MULTILINE)
    deployment = (DEPLOY / "kubernetes" / "deployment.yaml").read_text()
    kubernetes = re.search(r"terminationGracePeriodSeconds: (\d+)", deployment)
    assert compose is not None and int(compose.group(1)) > worker.STOP_SECONDS
    assert int(kubernetes.group(1)) > worker.STOP_SECONDS


@pytest.mark.parametrize("command", ["serve", "replay", "tail", "demo"])
def test_setveil_config_is_taken_without_the_blanks_around_it(tmp_path, command):
    # Regression (QA as an operator): the path in $SETVEIL_CONFIG kept a manifest's trailing line
    # end, and was refused as "…\n: cannot read", where a setting's variable is taken stripped
    config = tmp_path / "given.toml"
    config.write_text("[window]\nmax_transactions = 300\n")
    for blanked in (f"{config}\n", f"  {config}\t"):
        values = load_settings(env={"SETVEIL_CONFIG": blanked})
        assert values.window.max_transactions == 300
        assert values.source("window.max_transactions") == str(config)
    missing = tmp_path / "missing.toml"
    args = [command] + (["data.dat"] if command == "replay" else [])
    result = CliRunner().invoke(cli, args, env={"SETVEIL_CONFIG": f" {missing}\n"})
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: {missing}: cannot read: No such file or directory "
                             "(the settings file, from $SETVEIL_CONFIG)\n")


@pytest.mark.parametrize("command", ["serve", "replay", "tail", "demo"])
@pytest.mark.parametrize("blank", ["", " ", "\n"])
def test_an_empty_settings_file_path_is_refused_naming_the_option_or_the_variable(command, blank):
    # Regression (QA as an operator): --config "" said "error: : cannot read", naming no file, and
    # SETVEIL_CONFIG="" was passed over in silence where an empty setting variable is refused
    args = [command] + (["data.dat"] if command == "replay" else [])
    from_option = CliRunner().invoke(cli, args + ["--config", blank], env={"SETVEIL_CONFIG": None})
    assert from_option.exit_code == 2
    assert from_option.output == "setveil: error: parameter '--config': empty: give the settings file's path\n"
    from_variable = CliRunner().invoke(cli, args, env={"SETVEIL_CONFIG": blank})
    assert from_variable.exit_code == 2
    assert from_variable.output == ("setveil: error: parameter 'SETVEIL_CONFIG': empty: give the settings "
                                    "file's path, or unset the variable\n")


def test_serve_reads_a_hierarchy_given_as_a_pipe_once(tmp_path):
    # Regression (QA): `serve --hierarchy <(cat h.csv) --check` said "no edges", where anonymize
    # read the same pipe: the NUL-node check parsed the file again, and a pipe is empty the second time
    read_end, write_end = os.pipe()
    os.write(write_end, b"a,ALL\nb,ALL\n")
    os.close(write_end)
    try:
        result = CliRunner().invoke(cli, ["serve", "--check", "-m", "kanonymity", "-P", "k=2",
                                          "--hierarchy", f"/dev/fd/{read_end}"], env={})
    finally:
        os.close(read_end)
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith("setveil: serve --check: every check passed; nothing was connected\n")


@pytest.mark.parametrize("text, line, words", [
    ("[window]\nmax_transactions = 7\nmax_seconds = = 3\n", 3, "not valid TOML (Invalid value at column 15)"),
    ("[window]\nmax_transactions = 7\n[model\n", 3, "not valid TOML (Expected ']' at the end of a table declaration "
                                                  "at column 7)"),
    ('[window]\nmax_transactions = 7\nmax_seconds = 3\nmax_seconds = 4\n', 4,
     "not valid TOML (Cannot overwrite a value at column 16)"),
    # past the last character: the last line of the file, however many line ends follow it
    ('[model]\nname = "unterminated', 2, "not valid TOML (Unterminated string at the end of the file)"),
    ('[model]\nname = """unterminated\n\n', 2, "not valid TOML (Unterminated string at the end of the file)"),
    ("[window]\nmax_transactions =", 2, "not valid TOML (Invalid value at the end of the file)"),
    ("\ufeff[window\n", 1, "not valid TOML (Expected ']' at the end of a table declaration at column 8)"),
])
def test_a_broken_config_file_is_named_at_its_line_as_every_file_is(tmp_path, monkeypatch, text, line, words):
    # regression (review): tomllib's line was inside its own words, "not valid TOML (Invalid value
    # (at line 3, column 15))", where every other file setveil reads is refused as FILE:LINE: problem
    config = tmp_path / "setveil.toml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    for command, env in ((["serve", "--config", str(config)], {}), (["serve"], {"SETVEIL_CONFIG": str(config)})):
        result = CliRunner().invoke(cli, command, env=env)
        given_by = "--config" if env == {} else "$SETVEIL_CONFIG"
        assert result.exit_code == 2, command
        assert result.output == f"setveil: error: {config}:{line}: {words} (the settings file, from {given_by})\n"
    with pytest.raises(InputError) as refused:
        load_settings(config, env={})
    assert (refused.value.path, refused.value.line) == (str(config), line)


def test_a_config_file_that_is_a_folder_or_empty(tmp_path, monkeypatch):
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    result = CliRunner().invoke(cli, ["serve", "--config", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {tmp_path}: cannot read: Is a directory (the settings file, from --config)\n"
    # an empty file sets nothing, as an empty TOML document does: the defaults hold
    empty = tmp_path / "empty.toml"
    empty.write_bytes(b"")
    assert load_settings(empty, env={}).window.max_transactions == load_settings(None, env={}).window.max_transactions


def test_a_toml_refusal_worded_otherwise_is_said_whole(tmp_path, monkeypatch):
    # another Python's tomllib may put where otherwise than "(at line L, column C)": its words are
    # then given whole, without a line, rather than a traceback
    class OtherwiseWorded(tomllib.TOMLDecodeError):
        def __init__(self, words):
            # words alone: Python 3.14's TOMLDecodeError deprecates a call without (msg, doc, pos)
            ValueError.__init__(self, words)

    def refuse(text, **options):
        raise OtherwiseWorded("Invalid value, line 3")

    monkeypatch.setattr(tomllib, "loads", refuse)
    config = tmp_path / "setveil.toml"
    config.write_text("[window]\n")
    with pytest.raises(InputError) as refused:
        load_settings(config, env={})
    assert str(refused.value) == f"{config}: not valid TOML (Invalid value, line 3) (the settings file, from --config)"
