"""Operator settings of the streaming service: defaults, ``SETVEIL_*`` variables, a TOML file.

Every setting is named ``section.key``; its environment variable is ``SETVEIL_SECTION_KEY``
and its place in the TOML file is ``key`` under ``[section]``. Precedence, lowest first:
default, config file, environment, command line (``--set section.key=value`` and the model
options of ``setveil serve``). Values are parsed and range-checked by the core's
:class:`~setveil.core.params.Parameter` before any connection is made; an error names the
setting and where the bad value came from. ``docs/operations.md`` holds the table that
:func:`settings_table` renders (a test keeps the two equal).
"""

from __future__ import annotations

import datetime
import difflib
import ipaddress
import math
import os
import re
import socket
import sys
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Context, Decimal
from types import SimpleNamespace
from typing import Any, Literal, Protocol

from setveil.core.clitypes import SEED_MAX
from setveil.core.errors import InputError, ParameterError
from setveil.core.labeltext import read_utf8
from setveil.core.model import PrivacyModel
from setveil.core.params import AnotherParameterInside, Parameter, names_a_secret, parse_assignments, shown_value
from setveil.core.plugins import smallest_window_of

from .lease import lease_margin, lease_term
from .preflight import check_tls


MiB = 1 << 20
#: the largest INT32 and INT16 of the Kafka protocol, which carries these settings
INT32_MAX = (1 << 31) - 1
INT16_MAX = (1 << 15) - 1
#: the longest timeout, in seconds, that the protocol's INT32 of milliseconds carries (the group's
#: session and rebalance timeouts in JoinGroup, the producer's in every Produce request)
INT32_MAX_MS = INT32_MAX / 1000
TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")
#: the model's item files: only the worker opens them (``replay`` and ``tail`` share its config)
MODEL_FILES = ("model.sensitive", "model.public", "model.hierarchy")
#: ``SETVEIL_*`` variables that are no setting: the settings file (``--config``) and the folder
#: of the benchmark datasets (``setveil bench rho --datasets``, the tests)
CONFIG_VARIABLE = "SETVEIL_CONFIG"
OTHER_VARIABLES = (CONFIG_VARIABLE, "SETVEIL_DATASETS")
#: the source of what ``--set`` and a command's own options give, as errors name it
COMMAND_LINE = "the command line"
#: the source of a setting no one gave (:func:`_by_default` tells it from a file of that name)
DEFAULT = "default"
#: where the path of a settings file given to :func:`load_settings` came from, as errors name it
CONFIG_OPTION = "--config"


class SettingsFile(str):
    """The source of the values a settings file gave: its path, as errors name it, of a kind of its
    own, so that the file is known as the file whatever its name (``$team.toml``, ``default``)
    and whatever other sources code adds (``the auto value for model 'rho'``)."""


@dataclass(frozen=True)
class Setting:
    section: str
    parameter: Parameter
    secret: bool = False
    #: NAME=VALUE pairs merged key by key across the sources (``model.params``): a kind the core's
    #: Parameter has not, parsed here
    pairs: bool = False

    @property
    def key(self) -> str:
        return self.parameter.name

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    @property
    def env(self) -> str:
        return f"SETVEIL_{self.section}_{self.key}".upper()

    @property
    def default(self) -> Any:
        return self.parameter.default

    def parse(self, raw: Any, source: str, must_exist: bool = True) -> Any:
        """The value of ``raw`` from ``source`` (:func:`load_settings` parses only the value in
        force: a file's path may be overridden by the environment or the command line, when a
        container mounts the item files elsewhere, and only that one must exist). A path with
        ``must_exist`` false is checked as text only: the command never opens that file."""
        if self.pairs:
            return _parse_params(self.name, raw, source)
        if raw is None or (isinstance(raw, str) and raw == "" and self.default is None):
            return None
        if self.parameter.kind in ("str", "path", "choice") and not isinstance(raw, str):
            # TOML can give a number, a list or a table where text is meant; str() would turn it
            # into a topic named "['a']" or a bind address of 0.0.0.12
            raise ParameterError(self.name, f"expected text, got {_toml_kind(raw)} (from {source})")
        if self.parameter.kind == "path" and not must_exist:
            return raw
        if self.parameter.kind in ("int", "float") and isinstance(raw, bool):
            raise ParameterError(self.name, f"expected a number, got a boolean (from {source})")
        if isinstance(raw, _TOML_NON_SCALARS):
            # a TOML date, time, list or table: quoted by the core it read as Python's
            # datetime.date(2024, 1, 2), where the operator wrote 2024-01-02 (QA)
            raise ParameterError(self.name, f"got {_toml_kind(raw)}, {_toml_text(raw)}, allowed: "
                                 f"{self.parameter.allowed()} (from {source})")
        if self.parameter.kind in ("int", "float") and isinstance(raw, _TomlFloat):
            # checked as written, as the same value given as text is (QA: max_transactions = 1e3
            # ran as 1000 from a file, and was refused from the environment)
            raw = raw.text
        try:
            return self.parameter.parse(raw)
        except ParameterError as exc:
            raise ParameterError(self.name, f"{exc.problem} (from {source})") from None


#: the values tomllib reads that are no text, number or boolean
_TOML_NON_SCALARS = (list, Mapping, datetime.date, datetime.time)


def _toml_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, datetime.datetime):  # before date, which it subclasses
        return "a date-time"
    return f"a {type(value).__name__}"


def _toml_text(value: Any) -> str:
    """``value``, as tomllib reads it (text, a number, a boolean, a date or time, a list or a
    table), written as TOML writes it: what the operator wrote, up to spelling (a date-time's ``Z``
    is ``+00:00``). A table's value under a name that says it may be a secret is masked, as a model
    parameter's is."""
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (bool, int, float)):
        return _env_text(value)
    if isinstance(value, (datetime.date, datetime.time)):
        # isoformat writes a fraction of a second in six digits: 07:32:00.5 as 07:32:00.500000
        return re.sub(r"(\.[0-9]*?)0+\b", r"\1", value.isoformat())
    if isinstance(value, list):
        return "[" + ", ".join(_toml_text(item) for item in value) + "]"
    pairs = (f"{_toml_key(key)} = {shown_value(key, _toml_text(item))}" for key, item in value.items())
    return "{" + ", ".join(pairs) + "}"


def _p(name, help, kind="str", default=None, **bounds) -> Parameter:
    return Parameter(name, help, kind, default, **bounds)


#: the least model.memory_limit, in MiB: below it a model's threads could not start, and a ρ pool
#: that could not start its queue's thread waited for model.time_limit instead of failing (QA)
MEMORY_LIMIT_FLOOR = 64
MEMORY_LIMIT_RATIONALE = "every thread a model starts maps an 8 MiB stack within the limit"

SETTINGS: tuple[Setting, ...] = (
    # -- the broker and its security (passed to every Kafka client) ---------------------------
    Setting("kafka", _p("bootstrap", "Kafka bootstrap servers, comma-separated host:port", default="localhost:9092")),
    Setting("kafka", _p("security_protocol", "how clients reach the brokers", "choice", "PLAINTEXT",
                        choices=("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"))),
    Setting("kafka", _p("ssl_cafile", "CA bundle that verifies the brokers (SSL, SASL_SSL)", "path")),
    Setting("kafka", _p("ssl_certfile", "client certificate for mutual TLS", "path")),
    Setting("kafka", _p("ssl_keyfile", "private key of the client certificate", "path")),
    Setting("kafka", _p("ssl_password", "password of the private key"), secret=True),
    Setting("kafka", _p("sasl_mechanism", "SASL mechanism (with SASL_* protocols)", "choice", "PLAIN",
                        choices=("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"))),
    Setting("kafka", _p("sasl_username", "SASL user name")),
    Setting("kafka", _p("sasl_password", "SASL password"), secret=True),
    # -- topics -------------------------------------------------------------------------------
    Setting("topics", _p("input", "topic the records are read from", default="transactions")),
    Setting("topics", _p("output", "topic the anonymized batches are written to", default="transactions.anonymized")),
    Setting("topics", _p("dlq", "dead-letter topic: bad records and rejected windows", default="transactions.dlq")),
    Setting("topics", _p("windows", "window log: where each window ends, so a re-delivered window is cut the same",
                         default="transactions.windows")),
    Setting("topics", _p("partitions", "partitions of the topics the service creates when they are missing", "int", 4,
                         low=1, high=INT32_MAX)),
    Setting("topics", _p("replication_factor", "replication factor of the topics the service creates", "int", 1, low=1,
                         high=INT16_MAX)),
    # -- consumer -----------------------------------------------------------------------------
    Setting("consumer", _p("group_id", "consumer group (and Faust app id) shared by all workers; it names the topic "
                                               "<group>-__assignor-__leader, so 1-229 of a-z, A-Z, 0-9, '.', '_', '-'",
                                               default="setveil")),
    Setting("consumer", _p("fetch_max_bytes", "most bytes fetched per partition and request", "int", 4 * MiB, low=1024,
                           high=INT32_MAX)),
    Setting("consumer", _p("max_poll_records", "most input messages (Kafka records, each of any number of "
                           "transaction records) handed over per fetch", "int", 10_000, low=1)),
    Setting("consumer", _p("buffer_maxsize", "messages buffered per partition before fetching pauses", "int", 4096,
                           low=1)),
    Setting("consumer", _p("commit_interval", "seconds between offset commits", "float", 1.0, low=0.05)),
    Setting("consumer", _p("session_timeout", "seconds without heartbeat before a worker is considered dead", "float",
                           10.0, low=1.0, high=INT32_MAX_MS)),
    Setting("consumer", _p("heartbeat_interval", "seconds between heartbeats (at most a third of session_timeout)",
                           "float", 3.0, low=0.1)),
    Setting("consumer", _p("rebalance_timeout", "seconds workers get to rejoin the group in a rebalance; at least "
                           "consumer.session_timeout less consumer.heartbeat_interval (at least a tenth of the "
                           "session timeout), so that a worker left out of a rebalance has lost its lease first",
                           "float", 10.0, low=1.0, high=INT32_MAX_MS)),
    # -- producer -----------------------------------------------------------------------------
    Setting("producer", _p("max_request_bytes", "largest batch message (raise the topic's max.message.bytes with it)",
                           "int", 16 * MiB, low=1024, high=INT32_MAX)),
    Setting("producer", _p("compression", "compression of produced messages", "choice", "none",
                           choices=("none", "gzip", "snappy", "lz4", "zstd"))),
    Setting("producer", _p("linger_ms", "milliseconds the producer waits to fill a request; each window waits it "
                           "twice (its window log record, then its batch), and a send must reach the broker within the "
                           "lease's margin, so at most half of that (consumer.heartbeat_interval, at least a tenth of "
                           "consumer.session_timeout)", "int", 0, low=0)),
    Setting("producer", _p("request_timeout", "seconds the broker has to acknowledge a batch, dead letter or window "
                           "log record, or to answer a read of the window log, and the group to confirm a worker whose "
                           "lease lapsed before a window's sends (\"Fenced\"); past either the worker stops with exit status 1 (/healthz 503 meanwhile) so that a "
                           "restart re-delivers the window (`setveil replay` stops, exit status 1)", "float", 30.0,
                           low=1.0, high=INT32_MAX_MS)),
    # -- windows ------------------------------------------------------------------------------
    Setting("window", _p("max_transactions", "a window holds at most this many transactions, cut at a message "
                         "boundary (more only when one message takes it from below min_transactions past this)",
                         "int", 5000, low=1)),
    Setting("window", _p("max_seconds", "or when this many seconds passed without a full window", "float", 5.0,
                         low=0.01)),
    Setting("window", _p("min_transactions", "smaller windows are held and merged with the next; auto: the fewest the "
                         "model needs (k for coherence and the k-anonymity models, else 1)", "int", "auto", low=1,
                         choices=("auto",))),
    Setting("window", _p("merge_subjects", "merge a subject's transactions of one window into one (the subject is not released); the window limits then count transactions after merging, one per subject", "bool", False)),
    Setting("records", _p("max_message_bytes", "larger input messages are dead-lettered", "int", MiB, low=16)),
    # -- the model ----------------------------------------------------------------------------
    Setting("model", _p("name", "privacy model (see `setveil plugins`)")),
    Setting("model", _p("policy", "suppression/generalization policy; the model's default if empty")),
    Setting("model", _p("params", "model and policy parameters: NAME=VALUE pairs (a table in TOML)", "str", {}),
            pairs=True),
    Setting("model", _p("sensitive", "file of sensitive (private) items, one per line", "path")),
    Setting("model", _p("public", "file of public items, one per line; default: all non-sensitive", "path")),
    Setting("model", _p("hierarchy", "generalization hierarchy file (child,parent lines)", "path")),
    Setting("model", _p("seed", "seed of every random choice (per window: seed and window id)", "int", 0, low=0,
                        high=SEED_MAX)),
    Setting("model", _p("verify", "run the model's independent check on every window", "bool", True)),
    Setting("model", _p("time_limit", "seconds a window may take to anonymize and check, in a child process; past "
                        "it the window fails closed as a timeout. 0: no limit, in the worker's own thread", "float",
                        0.0, low=0)),
    Setting("model", _p("memory_limit", "MiB of memory a window may take to anonymize and check, in the child process "
                        "of model.time_limit (Linux; private memory beyond what the child maps as it takes the window; "
                        "each process the model starts has at least as much); past it the window fails closed as an "
                        "error. 0: no limit; else at least 64", "int", 0, low=0, high=2**40)),
    # -- operations ---------------------------------------------------------------------------
    Setting("web", _p("port", "port of /healthz, /readyz and /metrics", "int", 6066, low=1, high=65535)),
    Setting("web", _p("bind", "address the web server binds", default="0.0.0.0")),
    Setting("worker", _p("log_level", "log level", "choice", "info", choices=("debug", "info", "warn", "error"))),
    Setting("worker", _p("data_dir", "Faust's data directory (a directory the worker may write, or "
                                             "create); a temporary one when empty")),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(s.section for s in SETTINGS))


# The sections of Settings as a type checker sees them: each is a SimpleNamespace of its settings'
# values (Settings.__init__), an attribute per key, as parsed (None where a setting without a
# default is not given).
class KafkaSettings(Protocol):
    bootstrap: str
    security_protocol: str
    ssl_cafile: str | None
    ssl_certfile: str | None
    ssl_keyfile: str | None
    ssl_password: str | None
    sasl_mechanism: str
    sasl_username: str | None
    sasl_password: str | None


class TopicSettings(Protocol):
    input: str
    output: str
    dlq: str
    windows: str
    partitions: int
    replication_factor: int


class ConsumerSettings(Protocol):
    group_id: str
    fetch_max_bytes: int
    max_poll_records: int
    buffer_maxsize: int
    commit_interval: float
    session_timeout: float
    heartbeat_interval: float
    rebalance_timeout: float


class ProducerSettings(Protocol):
    max_request_bytes: int
    compression: str
    linger_ms: int
    request_timeout: float


class WindowSettings(Protocol):
    max_transactions: int
    max_seconds: float
    #: "auto" until :func:`fit_to_model` resolves it
    min_transactions: int | Literal["auto"]
    merge_subjects: bool


class RecordSettings(Protocol):
    max_message_bytes: int


class ModelSettings(Protocol):
    name: str | None
    policy: str | None
    params: dict[str, str]
    sensitive: str | None
    public: str | None
    hierarchy: str | None
    seed: int
    verify: bool
    time_limit: float
    memory_limit: int


class WebSettings(Protocol):
    port: int
    bind: str


class WorkerSettings(Protocol):
    log_level: str
    data_dir: str | None


class Settings:
    """Resolved values: ``settings.window.max_transactions`` or ``settings["window.max_transactions"]``."""

    kafka: KafkaSettings
    topics: TopicSettings
    consumer: ConsumerSettings
    producer: ProducerSettings
    window: WindowSettings
    records: RecordSettings
    model: ModelSettings
    web: WebSettings
    worker: WorkerSettings

    def __init__(self, values: Mapping[str, Any], sources: Mapping[str, str]):
        self._values = dict(values)
        self._sources = dict(sources)
        for section in SECTIONS:
            fields = {s.key: self._values[s.name] for s in SETTINGS if s.section == section}
            setattr(self, section, SimpleNamespace(**fields))

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def source(self, name: str) -> str:
        """Where the value came from: ``default``, the file, the variable or the command line.
        ``model.params.NAME`` is where model parameter NAME came from (the layers merge key by
        key); ``model.params`` itself, the last layer that gave any."""
        return self._sources[name]

    def given(self, name: str) -> bool:
        """Whether setting ``name`` was given by some source, not left at its default."""
        return not _by_default(self._sources[name])

    def replace(self, source: str = "code", /, **changes: Any) -> Settings:
        """A copy with some values replaced, from ``source``; keys use ``__`` for the dot
        (``window__max_seconds``)."""
        values = dict(self._values)
        sources = dict(self._sources)
        for key, raw in changes.items():
            name = key.replace("__", ".")
            values[name] = _setting(name).parse(raw, source)
            sources[name] = source
            if name == "model.params":
                sources = {k: v for k, v in sources.items() if not k.startswith("model.params.")}
                sources.update({f"model.params.{k}": source for k in values[name]})
        return Settings(values, sources)

    def reset(self, *names: str) -> Settings:
        """A copy with the settings ``names`` back at their defaults, for a command that gives them
        itself and must not pass the operator's on to its worker."""
        values = dict(self._values)
        sources = {k: v for k, v in self._sources.items()
                   if not any(k == name or k.startswith(f"{name}.") for name in names)}
        for name in names:
            values[name] = BY_NAME[name].default
            sources[name] = DEFAULT
        return Settings(values, sources)

    def as_env(self) -> dict[str, str]:
        """The non-default values as ``SETVEIL_*`` variables (to start a worker in a subprocess),
        which :func:`load_settings` reads back to the same values. The variable of NAME=VALUE pairs
        separates them by commas and blanks and has no escape, so a pair whose name or value holds
        one, or whose name holds ``=`` or is empty, is refused rather than split; so is a value
        with blanks around it, which the variable would lose."""
        out = {}
        for setting in SETTINGS:
            value = self._values[setting.name]
            if value == setting.default or value is None:
                continue
            if setting.pairs:
                for key, text in value.items():
                    if not key or "=" in key or any(c == "," or c.isspace() for c in key + text):
                        raise ParameterError(setting.name, f"{key!r} cannot be passed to a worker in ${setting.env} "
                                             f"(from {self.source(f'{setting.name}.{key}')}): its pairs are separated "
                                             "by commas and blanks, so a name or value holding one, or a name "
                                             "holding '=' or none, would be split; give it with -P")
            text = _env_text(value)
            if text != text.strip():
                # only a settings file gives one (a quoted string): the worker would read another value
                raise ParameterError(setting.name, f"cannot be passed to a worker in ${setting.env} (from "
                                     f"{self.source(setting.name)}): the environment's values are taken without "
                                     "the blanks around them, and this one begins or ends with one")
            out[setting.env] = text
        return out


def fit_to_model(settings: Settings, model: PrivacyModel) -> Settings:
    """The settings with ``window.min_transactions`` resolved for ``model``: auto becomes the fewest
    transactions the model needs of a window; fewer than that is refused, since every such window
    would have no safe release and be dead-lettered."""
    need = smallest_window_of(model)
    value = settings.window.min_transactions
    if value != "auto":
        if value < need:
            raise ParameterError("window.min_transactions", f"{value} is fewer than the {need} transactions model "
                                 f"{model.name!r} needs of a window (from {settings.source('window.min_transactions')}): "
                                 "a smaller window has no safe release and would be dead-lettered; give auto or more")
        return settings  # not above window.max_transactions: load_settings checked that
    if need > settings.window.max_transactions:
        raise ParameterError("window.max_transactions", f"{settings.window.max_transactions} "
                             f"(from {settings.source('window.max_transactions')}) is fewer than the {need} "
                             f"transactions a window needs under model {model.name!r}; give {need} or more")
    return settings.replace(f"the auto value for model {model.name!r}", window__min_transactions=need)


def load_settings(
    config: str | os.PathLike | None = None,
    overrides: Sequence[str] | Mapping[str, Any] = (),
    env: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
    unused_files: Collection[str] = (),
) -> Settings:
    """Resolve every setting from the defaults, the TOML file, the environment and the command
    line: ``overrides``, ``section.key=value`` strings (the ``--set`` option) or a mapping, then
    ``options``, the settings a command's own options give (``serve``'s ``--model``, ``-P``, …).
    The path settings in ``unused_files`` name files the command never opens (``replay`` and
    ``tail`` with a worker's config, :data:`MODEL_FILES`): they need not exist."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {s.name: s.default for s in SETTINGS}
    sources: dict[str, str] = {s.name: DEFAULT for s in SETTINGS}
    given: dict[str, Any] = {}

    def assign(setting: Setting, raw: Any, source: str) -> None:
        if setting.pairs:
            # model parameters merge key by key across the sources, later ones winning per key;
            # each keeps its own source, so an error names the layer that gave that parameter
            parsed = setting.parse(raw, source)
            if not parsed and isinstance(raw, str):
                # an empty text drops the parameters of the layers below: merged, a shared file's
                # could not be taken away by the environment or --set, and a worker given another
                # model there was refused for the file's parameters, however it was set (QA)
                values[setting.name] = {}
                for key in [k for k in sources if k.startswith(f"{setting.name}.")]:
                    del sources[key]
            values[setting.name] = {**values[setting.name], **parsed}
            sources.update({f"{setting.name}.{key}": source for key in parsed})
        else:
            # only the value in force is parsed (below): a source of higher precedence overrides
            # a bad value of a lower one, as it overrides a good one
            given[setting.name] = raw
        sources[setting.name] = source

    given_by = CONFIG_OPTION
    if config is None and CONFIG_VARIABLE in env:
        # stripped as a setting's variable is (below), and refused when blank as theirs are: a
        # manifest's "" would otherwise leave the workers on the defaults in silence
        config, given_by = env[CONFIG_VARIABLE].strip(), f"${CONFIG_VARIABLE}"
        if not config:
            raise ParameterError(CONFIG_VARIABLE, "empty: give the settings file's path, or unset the variable")
    elif config is not None and not os.fspath(config).strip():
        raise ParameterError(CONFIG_OPTION, "empty: give the settings file's path")
    if config is not None:
        file = SettingsFile(os.fspath(config))
        for name, raw in _read_toml(config, given_by).items():
            assign(_setting(name, file), raw, file)
    refuse_unknown_variables(env)
    for setting in SETTINGS:
        if setting.env in env:
            # without the blanks around it, as --set takes it (core.params.parse_assignments): a
            # manifest's folded value, or a Secret written with echo, ends in a line end
            assign(setting, env[setting.env].strip(), f"${setting.env}")
    pairs = parse_assignments(list(overrides)) if not isinstance(overrides, Mapping) else dict(overrides)
    for layer in (pairs, options or {}):
        for name, raw in layer.items():
            assign(_setting(name, COMMAND_LINE), raw, COMMAND_LINE)
    for name, raw in given.items():
        values[name] = BY_NAME[name].parse(raw, sources[name], must_exist=name not in unused_files)
    _check(values, sources)
    return Settings(values, sources)


def refuse_unknown_variables(env: Mapping[str, str]) -> None:
    """A misspelt variable (SETVEIL_WINDOW_MAXSECONDS, or a misspelt section: SETVEIL_TOPIC_INPUT,
    SETVEIL_WEBPORT) would be ignored in silence, where the same key misspelt in the TOML file is
    refused. Only the section's spelling was checked once, so a worker given SETVEIL_TOPIC_INPUT
    consumed the default topic (found by a QA pass as an operator)."""
    known = sorted({s.env for s in SETTINGS} | set(OTHER_VARIABLES))
    prefix = "SETVEIL_"
    for name in sorted(env):
        if name.startswith(prefix) and name not in known:
            # compared without the prefix, which every name shares: SETVEIL_XYZ is like none
            close = difflib.get_close_matches(name[len(prefix):], [k[len(prefix):] for k in known], n=1)
            hint = f"; did you mean {prefix}{close[0]}?" if close else " (docs/operations.md lists the settings)"
            raise ParameterError(name, f"no setting has this environment variable{hint}")


def _setting(name: str, source: str | None = None) -> Setting:
    """The setting ``name``; an unknown one is refused with the closest name (``source``: the
    file or the command line that gave it)."""
    setting = BY_NAME.get(name)
    if setting is None:
        where = f" (from {source})" if source is not None else ""
        close = difflib.get_close_matches(name, list(BY_NAME), n=1)
        section = name.partition(".")[0]
        if close:
            hint = f"did you mean {close[0]}?"
        elif section in SECTIONS:
            hint = f"[{section}] has: {', '.join(s.key for s in SETTINGS if s.section == section)}"
        else:
            hint = f"the sections are {', '.join(SECTIONS)}"
        raise ParameterError(name, f"no such setting{where}; {hint}")
    return setting


def _read_toml(path: str | os.PathLike, given_by: str = CONFIG_OPTION) -> dict[str, Any]:
    """The settings of a TOML file, ``section.key`` to value; a refusal of the file says it is the
    settings file and ``given_by`` (``--config`` or ``$SETVEIL_CONFIG``): an operator who never
    typed the path cannot tell otherwise where it came from (QA). The file may start with a UTF-8
    byte-order mark, as the data and the item lists may: editors that save "UTF-8 with BOM" write
    one, and tomllib alone calls it an invalid statement at line 1."""
    try:
        return _toml_settings(path)
    except InputError as exc:
        raise InputError(exc.path, f"{exc.problem} (the settings file, from {given_by})", exc.line) from None


#: tomllib's refusal: its problem, then where, "(at line 3, column 15)" or "(at end of document)"
_TOML_WHERE = re.compile(r"(?P<problem>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)",
                         re.DOTALL)


def _toml_settings(path: str | os.PathLike) -> dict[str, Any]:
    # read as an item list is (gzip data unzipped): '-', a file that cannot be read and one that is
    # not UTF-8 (UTF-16) are each refused for what they are, where tomllib.load let a traceback out (QA)
    text = read_utf8(path)
    try:
        data = tomllib.loads(text, parse_float=_TomlFloat)
    except tomllib.TOMLDecodeError as exc:
        # tomllib puts where in its own words, "Invalid value (at line 3, column 15)": the line is
        # taken out to name the file as every file setveil reads is, FILE:LINE: problem (review)
        found = _TOML_WHERE.fullmatch(str(exc))
        if found is None:  # worded otherwise by another Python's tomllib: said whole, the line unknown
            raise InputError(path, f"not valid TOML ({exc})") from None
        if found["line"] is None:  # past the last character: the last line, whatever line ends follow it
            line, where = text.rstrip("\n").count("\n") + 1, "at the end of the file"
        else:
            line, where = int(found["line"]), f"at column {found['column']}"
        raise InputError(path, f"not valid TOML ({found['problem']} {where})", line) from None
    out: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise InputError(path, f"'{section}' must be a table ([{section}]), one of: {', '.join(SECTIONS)}")
        for key, value in table.items():
            out[f"{section}.{key}"] = value
    return out


class _TomlFloat(float):
    """A TOML float that keeps the decimal it was written as: a model parameter is then checked
    as typed (``rho = 0.29999999999999999`` is refused, not loosened to 0.3)."""

    text: str

    def __new__(cls, text: str) -> _TomlFloat:
        value = super().__new__(cls, text)
        value.text = text.replace("_", "")  # TOML puts underscores between digits only
        return value


def _parse_params(name: str, raw: Any, source: str) -> dict[str, str]:
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            if isinstance(value, _TOML_NON_SCALARS):
                # as text, a list or a date-time would be a value no one wrote (['a'], a blank for
                # the T), which a text parameter takes as it is
                shown = (" (the value is not shown: the name says it may be a secret)" if names_a_secret(key)
                         else f", {_toml_text(value)}")
                raise ParameterError(name, f"{key!r}: expected text, a number or a boolean, got "
                                           f"{_toml_kind(value)}{shown} (from {source})")
        return {str(k): _env_text(v) for k, v in raw.items()}
    if isinstance(raw, str):
        pairs = [p for p in raw.replace(",", " ").split() if p]
        for pair, after in zip(pairs, pairs[1:]):
            key = pair.partition("=")[0].strip()
            if "=" not in after and names_a_secret(key):
                # the rest of that parameter's value, cut at a comma or a blank: refused as a pair
                # of its own it was quoted (QA)
                where = "in" if _a_file(source) else "with -P or in"  # a file's operator has no -P at hand
                raise ParameterError(name, f"{key!r}: its value holds a comma or a blank, which separate the pairs "
                                           f"here; give it {where} the TOML table [model.params] (the value is "
                                           f"not shown: the name says it may be a secret) (from {source})")
        try:
            return parse_assignments(pairs)
        except ParameterError as exc:
            raise ParameterError(name, f"{exc.name!r}: {exc.problem} (from {source})") from None
    raise ParameterError(name, f"expected NAME=VALUE pairs or a table, got {_toml_kind(raw)} (from {source})")


def one_pair_each(refused: ParameterError, source: str) -> str:
    """The problem of ``refused``, the refusal of a model parameter set in ``source``, advising,
    when the value holds another parameter, how to give each in that source (QA: a TOML file's
    was told that -P takes one each)."""
    if not isinstance(refused, AnotherParameterInside):
        return refused.problem
    if _a_file(source):
        advice = "its own key in the TOML table [model.params]"
    elif _layer(source) == 2:
        advice = "its own NAME=VALUE, the pairs separated by commas or blanks"
    else:  # the command line, whose -P the advice names already
        return refused.problem
    return f"{refused.found}: give each parameter {advice}"


def dropping_hint(settings: Settings, source: str) -> str:
    """How to drop a parameter set in ``source`` that the model does not take, when ``model.name``
    came from a later layer: the layers' parameters merge, so a shared file's stay under a model
    named in the environment or on the command line, which takes others (QA as an operator)."""
    model_source = settings.source("model.name")
    if _layer(source) >= _layer(model_source):
        return ""
    return (f"; model.params merges the parameters of every source and model.name is from {model_source}: an "
            "empty SETVEIL_MODEL_PARAMS or --set model.params= drops those of the sources below it")


#: the sources of the environment's values
_VARIABLES = frozenset(f"${s.env}" for s in SETTINGS)


def _layer(source: str) -> int:
    """The precedence of ``source``: 0 the default or code (a value a command sets itself), 1 the
    settings file, 2 the environment, 3 the command line. Each is known by what the sources
    record, not by elimination: a file named ``$team.toml`` was taken for the environment, and
    ``the auto value for model 'rho'`` for the file."""
    if _a_file(source):
        return 1
    if source in _VARIABLES:
        return 2
    return 3 if source == COMMAND_LINE else 0


def _a_file(source: str) -> bool:
    """Whether ``source``, where a setting came from, is the settings file."""
    return isinstance(source, SettingsFile)


def _by_default(source: str) -> bool:
    """Whether ``source`` is the default, no one's: a settings file named ``default`` is not (review:
    the demo took its kafka.bootstrap for none, and started a broker of its own)."""
    return source == DEFAULT and not _a_file(source)


def _env_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _TomlFloat):
        return value.text
    if isinstance(value, Mapping):
        return ",".join(f"{k}={_env_text(v)}" for k, v in value.items())
    return str(value)


def _typed(value: float) -> Decimal:
    """A float setting as the decimal it was typed as, which its float's shortest decimal is (core.params
    refuses any other): the rules that tie settings together compare what the operator wrote, where
    floats refused a heartbeat of exactly a third (0.4 * 3 is 1.2000000000000002)."""
    return Decimal(repr(value))


def _decimal_text(value: Decimal) -> str:
    """``value`` in plain digits, without trailing zeros (27, not 27.0 or 2.7E+1)."""
    return format(value.normalize(), "f")


#: a label of a host name (RFC 1123): letters, digits and hyphens, no hyphen first or last; and
#: underscores, which RFC 1123 lacks but resolvers take and Docker puts in its containers' names
#: (Compose v1's project_kafka_1)
_LABEL = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
#: what a bootstrap host may be (QA: "kafka://h:1", "a:1;b:2", "-:9092" and "[zz]:1" passed)
_HOST_FORMS = ("a host name (labels of letters, digits, hyphens and underscores, no hyphen first or last in a "
               "label, each at most 63 characters, 253 in all), an IPv4 address or an IPv6 address in brackets")


def _is_host(host: str) -> bool:
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    if re.fullmatch(r"[0-9.]+", host):
        # the resolver reads a name of digits and dots as an IPv4 address (999.1.1.1 is none)
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return False
        return True
    # a trailing dot makes the name absolute (DNS's root label), which resolvers accept
    name = host[:-1] if host.endswith(".") else host
    return len(name) <= 253 and all(_LABEL.fullmatch(label) for label in name.split("."))


def _check(values: Mapping[str, Any], sources: Mapping[str, str]) -> None:
    """Rules that tie settings together; an error shows each value involved and where it came from."""

    def given(name: str) -> str:
        return f"{_env_text(values[name])} (from {sources[name]})"

    if values["window.min_transactions"] != "auto" and values["window.min_transactions"] > values["window.max_transactions"]:
        raise ParameterError("window.min_transactions", f"{given('window.min_transactions')} is more than "
                             f"window.max_transactions={given('window.max_transactions')}; allowed: at most that")
    session, heartbeat = _typed(values["consumer.session_timeout"]), _typed(values["consumer.heartbeat_interval"])
    if heartbeat * 3 > session:
        # rounded down, so that the value suggested is allowed (a third of 2 is not at most 0.6667)
        most = Context(prec=4, rounding=ROUND_FLOOR).divide(session, 3)
        raise ParameterError("consumer.heartbeat_interval", f"{given('consumer.heartbeat_interval')} must be at most a "
                             f"third of consumer.session_timeout={given('consumer.session_timeout')}, so at most "
                             f"{_decimal_text(most)}")
    term = lease_term(session, heartbeat)
    if _typed(values["consumer.rebalance_timeout"]) < term:
        # a group that forms without a paused worker after rebalance_timeout would move its
        # partitions while its lease still runs, and the lease would not fence it
        raise ParameterError("consumer.rebalance_timeout", f"{given('consumer.rebalance_timeout')} is less than the "
                             f"lease, consumer.session_timeout less max(consumer.heartbeat_interval, a tenth of it) "
                             f"= {_decimal_text(term)} s; allowed: at least that")
    margin = lease_margin(session, heartbeat)
    longest = math.floor(margin * 500)  # in whole milliseconds, of the decimals typed
    if values["producer.linger_ms"] > longest:
        # a window's sends start under the lease and must reach the broker within its margin; a
        # producer that lingers longer sends after another worker may own the partition
        raise ParameterError("producer.linger_ms", f"{given('producer.linger_ms')} is more than half the lease's "
                             f"margin for a send, max(consumer.heartbeat_interval, a tenth of "
                             f"consumer.session_timeout) = {_decimal_text(margin)} s; allowed: at most {longest}")
    protocol = values["kafka.security_protocol"]
    if protocol.startswith("SASL"):
        # PLAIN and both SCRAM mechanisms (all that are offered) need a user name and a password;
        # aiokafka notices a missing one only when it connects, with a traceback
        for key in ("sasl_username", "sasl_password"):
            if values[f"kafka.{key}"] is None:
                raise ParameterError(f"kafka.{key}", "needed with kafka.security_protocol="
                                     f"{given('kafka.security_protocol')} and kafka.sasl_mechanism="
                                     f"{values['kafka.sasl_mechanism']}")
    else:
        for key in ("sasl_username", "sasl_password"):
            if values[f"kafka.{key}"] is not None:
                # ignored, the worker would connect without authenticating and say nothing
                raise ParameterError(f"kafka.{key}", f"given (from {sources[f'kafka.{key}']}), but "
                                     f"kafka.security_protocol={given('kafka.security_protocol')} uses no SASL")
    if protocol.endswith("SSL"):
        check_tls(values, sources)
    else:
        for key in ("ssl_cafile", "ssl_certfile", "ssl_keyfile", "ssl_password"):
            if values[f"kafka.{key}"] is not None:
                raise ParameterError(f"kafka.{key}", f"given (from {sources[f'kafka.{key}']}), but "
                                     f"kafka.security_protocol={given('kafka.security_protocol')} uses no TLS")
    for server in values["kafka.bootstrap"].split(","):
        host, colon, port = server.strip().rpartition(":")
        if not (colon and re.fullmatch(r"[0-9]+", port)):
            raise ParameterError("kafka.bootstrap", f"{server.strip()!r} is not host:port (a comma-separated list of "
                                 f"them; from {sources['kafka.bootstrap']})")
        if not _is_host(host):
            raise ParameterError("kafka.bootstrap", f"host {host!r} of {server.strip()!r} is not {_HOST_FORMS} "
                                 f"(from {sources['kafka.bootstrap']})")
        if not 0 < int(port) < 65536:
            raise ParameterError("kafka.bootstrap", f"port {port} of {server.strip()!r} is not in 1-65535 (from "
                                 f"{sources['kafka.bootstrap']})")
    bind = values["web.bind"]
    try:
        socket.getaddrinfo(bind, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):
        # the brackets of kafka.bootstrap's [::1]:9092 are no part of the address (QA as an operator)
        bare = f"; give an IPv6 address without brackets, {bind[1:-1]}" if bind[:1] == "[" and bind[-1:] == "]" else ""
        raise ParameterError("web.bind", f"{bind!r} (from {sources['web.bind']}) is no address of this machine to "
                             f"listen on{bare}") from None
    if values["records.max_message_bytes"] > values["producer.max_request_bytes"]:
        raise ParameterError("records.max_message_bytes", f"{given('records.max_message_bytes')} must not exceed "
                             f"producer.max_request_bytes={given('producer.max_request_bytes')}, or a rejected record "
                             "could not be dead-lettered")
    if values["model.memory_limit"] and not values["model.time_limit"]:
        # a process short of memory may also hang (the standard library's queues and locks spin
        # on failed allocations): only the time limit is sure to end its window
        raise ParameterError("model.memory_limit", f"{given('model.memory_limit')} needs model.time_limit too, which "
                             f"is {given('model.time_limit')} (a window short of memory can hang rather than fail); "
                             "set both, or neither")
    if 0 < values["model.memory_limit"] < MEMORY_LIMIT_FLOOR:
        raise ParameterError("model.memory_limit", f"{given('model.memory_limit')} is less than {MEMORY_LIMIT_FLOOR} "
                             f"MiB ({MEMORY_LIMIT_RATIONALE}); allowed: 0 (no limit) or at least {MEMORY_LIMIT_FLOOR}")
    if values["model.memory_limit"] and sys.platform != "linux":
        raise ParameterError("model.memory_limit", f"{given('model.memory_limit')} needs Linux, whose RLIMIT_DATA "
                             f"counts the memory a process maps (this is {sys.platform}); allowed here: 0")
    topics = [values[f"topics.{t}"] for t in ("input", "output", "dlq", "windows")]
    for kind, topic in zip(("input", "output", "dlq", "windows"), topics):
        # Kafka's own rule; window ids also rely on a topic name holding no "/"
        if not TOPIC_NAME.fullmatch(topic) or topic in (".", ".."):
            raise ParameterError(f"topics.{kind}", f"{topic!r} (from {sources[f'topics.{kind}']}) is not a Kafka "
                                 "topic name (1-249 of a-z, A-Z, 0-9, '.', '_', '-')")
    for later, kind in enumerate(("output", "dlq", "windows"), start=1):
        if topics[later] in topics[:later]:
            other = ("input", "output", "dlq")[topics.index(topics[later])]
            raise ParameterError(f"topics.{kind}", f"{topics[later]!r} (from {sources[f'topics.{kind}']}) is "
                                 f"topics.{other} too; input, output, dlq and windows must be four different topics")


def describe(settings: Settings) -> list[str]:
    """The settings in force, one line per section, each value that is not a default followed
    by where it came from; secrets masked. Paths are shown, never the contents of any file."""
    lines = []
    for section in SECTIONS:
        shown = []
        for setting in (s for s in SETTINGS if s.section == section):
            if setting.pairs:
                params = ", ".join(f"{key}={shown_value(key, value)}{_from(settings, f'{setting.name}.{key}')}"
                                   for key, value in settings[setting.name].items())
                shown.append(f"{setting.key}={{{params}}}")
                continue
            value = settings[setting.name]
            text = "(none)" if value is None else "***" if setting.secret else _env_text(value)
            shown.append(f"{setting.key}={text}{_from(settings, setting.name)}")
        lines.append(f"settings [{section}] " + ", ".join(shown))
    return lines


def as_toml(settings: Settings) -> str:
    """The settings in force as a settings file that ``--config`` reads back to the same values,
    each value not at its default followed by a comment naming its source. A secret (a password,
    a model parameter named like one) is never written, nor a setting that is not set, nor a value
    that is not UTF-8: a comment names it instead, so that the text is safe to paste into a ticket."""
    lines = ["# the settings in force; a comment names where each value not at its default came from"]
    for section in SECTIONS:
        lines.append(f"\n[{section}]")
        tables = []
        for setting in (s for s in SETTINGS if s.section == section):
            if setting.pairs:
                tables.append(f"\n[{setting.name}]")
                tables += [_toml_line(key, value, names_a_secret(key), settings.source(f"{setting.name}.{key}"))
                           for key, value in settings[setting.name].items()]
            else:
                lines.append(_toml_line(setting.key, settings[setting.name], setting.secret,
                                        settings.source(setting.name)))
        lines += tables
    return "\n".join(lines) + "\n"


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_line(key: str, value: Any, secret: bool, source: str) -> str:
    key = _toml_key(key)
    # a comment ends at a line break and takes no other control character: a config path with
    # one would end the comment early and leave the rest of the path as a line of TOML; a path's
    # bytes that are not UTF-8 (surrogates here) would make the whole text a file --config refuses
    default = _by_default(source)
    source = re.sub(r"[\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", source)
    if value is None:
        return f"# {key}: not set"
    comment = "" if default else f"  # from {source}"
    if secret:
        return f"# {key}: set (from {source}), not shown"
    if isinstance(value, str) and re.search(r"[\ud800-\udfff]", value):
        # a value of bytes that are not UTF-8 (a path, from the environment or --set) is one the
        # worker takes, but no TOML file can hold it: written as it is, --config refused the text
        return f"# {key}: set (from {source}) to bytes that are not UTF-8, which a settings file cannot hold"
    if isinstance(value, (bool, int, float)):
        return f"{key} = {_env_text(value)}{comment}"
    return f"{key} = {_toml_string(str(value))}{comment}"


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: TOML takes no control character but tab unescaped, and
    only whole code points in ``\\u`` escapes (JSON's surrogate pairs are not TOML)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif (char < " " and char != "\t") or char == "\x7f":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _from(settings: Settings, name: str) -> str:
    source = settings.source(name)
    return "" if _by_default(source) else f" (from {source})"


def settings_table(settings: Iterable[Setting] = SETTINGS) -> str:
    """The Markdown table of every setting (docs/operations.md holds a copy)."""
    rows = ["| setting (TOML `[section]` key) | environment variable | default | meaning |", "|---|---|---|---|"]
    for s in settings:
        kind = s.parameter.kind
        allowed = "" if kind == "str" else f" ({s.parameter.allowed()})"
        rows.append(f"| `{s.name}` | `{s.env}` | {_default_text(s)} | {s.parameter.help}{allowed} |")
    return "\n".join(rows) + "\n"


def _default_text(setting: Setting) -> str:
    value = setting.default
    if value is None or value == {}:
        return "(none)"
    return f"`{_env_text(value)}`"


