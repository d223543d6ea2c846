"""The :class:`ConformanceSuite` test base class."""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import pickle
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, ClassVar, TypedDict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.engine import independent_copies, overriders_note
from setveil.core.errors import (NOT_PLUGIN_ERRORS, Infeasible, InputError, ParameterError, PluginError,
                                 UnknownPluginError, wrote_read_only)
from setveil.core.hierarchy import Hierarchy
from setveil.core.model import Context, PrivacyModel, Release, Violation
from setveil.core.params import Parameter
from setveil.core.plugins import Configured, get_plugin_manager, get_registry, smallest_window_of
from setveil.core.reportjson import json_value, report_text
from setveil.core.schema import ItemSchema
from setveil.core.verify import release_violations
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window, detached

from . import other_process
from .deadline import OutOfTime, time_bound
from .strategies import PRIVATE_PREFIX, random_window, windows

# Every model's suite runs these same methods from its own subclass, which hypothesis would
# otherwise flag as differing executors.
_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors]
)


def checked(who: str, model: PrivacyModel, original: Window, release: Window, context: Context,
            first: bool = False) -> list[Violation]:
    """Every violation :func:`~setveil.core.verify.release_violations` finds (the first alone with
    ``first``: the check stops there, as it may be slow on a window it finds unsafe); a checker that raises
    fails the test naming ``who`` and the window's size, as the pipeline fails the window closed
    as a checker error (QA attacking the kit: a violations() that crashed on an empty window
    showed a bare traceback, under hypothesis's)."""
    try:
        found = release_violations(model, original, release, context)
        return list(islice(found, 1) if first else found)
    except (*NOT_PLUGIN_ERRORS, OutOfTime):
        raise
    except BaseException as exc:
        if wrote_read_only(exc):
            pytest.fail(f"{who}: violations wrote into a window it was given, which is read-only ({exc})")
        raise AssertionError(f"{who}: the check raised {type(exc).__name__}: {exc} (a window of {len(original)} "
                             "transactions); the pipeline fails every such window closed as a checker error") from exc


def _violation_texts(configured: Configured, window: Window) -> list[str]:
    return [f"{v.rule}: {v.summary}" for v in release_violations(configured.model, window, window, configured.context)]


def _refusals(configured: Configured, window: Window, seed: int) -> list[str]:
    try:
        get_plugin_manager().hook.setveil_anonymize_window(
            model=configured.model, policy=configured.policy, window=detached(window)[0], rng=np.random.default_rng(seed))
    except Infeasible as exc:
        return [exc.reason]
    return []


def assert_release_ok(model: PrivacyModel, original: Window, release: Window, policy: str | None = None,
                      context: Context | None = None) -> None:
    """The release passes the check every release gets: aligned with the original, nothing
    added by a suppression model, every label a node above its items in ``context``'s hierarchy
    (the model's own context when None) for a generalizing one, and the model's own check."""
    who = model.name if policy is None else f"{model.name} with policy {policy!r}"
    problems = [v.describe() for v in checked(who, model, original, release, model.context if context is None else context)]
    assert not problems, (
        f"a release of {who} fails the check: {problems[:5]}{overriders_note(get_plugin_manager().hook)}")


#: a whole number of this many digits or more is read as a label: no count, parameter or id of a
#: message on the kit's small windows is one by chance. The kit's integer probe relabels items with
#: numbers of exactly this many digits (:meth:`ConformanceSuite.test_messages_name_no_integer_label`)
DISTINCTIVE_DIGITS = 12

#: the transactions of the kit's large probe windows: past the 64 bits of a machine word, the 127 of
#: an int8 and the random windows' sizes, as a service's windows are (window.max_transactions: 5,000)
LARGE_WINDOW = 1000

#: a label written as a number ("17", "0.4", "-3", "1e5"), which a message's counts and parameters
#: could spell out without naming it
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def labels_named(text: str, window: Window) -> list[str]:
    """The labels of ``window`` that ``text`` names, not inside a longer run of letters and digits
    ("p0-p1" and "p10_s1" name two each, "x+a" names "+a", "x.y.z" does not name "x.y"). Labels
    written as numbers are left out, but for whole numbers of at least :data:`DISTINCTIVE_DIGITS`
    digits: a message gives counts and parameters, and "support 1 < k=5, h=0.4" would name items
    1, 5 and 0.4 of numeric data. The kit covers numeric labels instead by relabeling its probe
    windows with distinctive integers, which a message holds only if it names an item. Both are
    compared in NFC, so a combining accent belongs to the letter before it."""
    text = unicodedata.normalize("NFC", text)
    named = []
    for label in window.vocab.labels:
        composed = unicodedata.normalize("NFC", label)
        if composed and composed in text and _readable(composed) and re.search(_named(composed), text):
            named.append(label)
    return named


def _readable(label: str) -> bool:
    """Whether a message that holds ``label`` as a name of its own can be taken to name the item."""
    if not _NUMBER.fullmatch(label):
        return True
    return label.isdigit() and len(label) >= DISTINCTIVE_DIGITS


def _named(label: str) -> str:
    """A pattern for ``label`` where it stands as a name of its own. An end of the label that is a
    letter or digit must not run on into more of them, nor, through a dot, into a longer dotted
    name; an end that is punctuation is a boundary already (QA: "x+a" hid the label "+a"). A label
    of punctuation alone is named only between blanks ("." is in every sentence)."""
    if not any(_word(char) for char in label):
        return rf"(?<!\S){re.escape(label)}(?!\S)"
    before = r"(?<![^\W_])(?<![^\W_]\.)" if _word(label[0]) else ""
    after = r"(?![^\W_])(?!\.[^\W_])" if _word(label[-1]) else ""
    return before + re.escape(label) + after


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _out_of_range(parameter: Parameter) -> list[tuple[str, str]]:
    """Values, as ``-P`` gives them, that ``parameter`` (an int or a float) must refuse, with why:
    not a number, no finite one, too large for the kind, below a finite low, and -1 when it
    declares no range at all. A parameter that takes any number says so with ``low=-math.inf``; one
    with a high alone (a log-probability, at most 0) is not held to refuse negative values."""
    values = [("many", "not a number"), ("nan", "not a number"), ("inf", "infinite"), ("-inf", "infinite"),
              (str(2**63) if parameter.kind == "int" else "1e999", "beyond what the kind holds")]
    if parameter.kind == "int":
        values.append(("2.5", "not a whole number"))
    if parameter.low is not None and math.isfinite(parameter.low):
        below = math.floor(parameter.low) - 1 if parameter.low_inclusive else parameter.low
        values.append((repr(below) if parameter.kind == "float" else str(int(below)), "below its low"))
    elif parameter.low is None and parameter.high is None:
        values.append(("-1", "negative, and no range is declared"))
    return values


def stats_problem(stats: Any, window: Window, where: str = "stats") -> str | None:
    """What is wrong with a release's ``stats`` for ``--report`` and the observers, or None: it must
    be a dict keyed by text; a key, or a text value, that names an item of ``window`` puts
    transaction contents in a report that holds none; a number that is not finite stops
    ``anonymize --report`` (JSON holds none)."""
    if not isinstance(stats, Mapping):
        return f"{where} is {type(stats).__name__}, not a dict (anonymize --report reads its items)"
    for key, value in stats.items():
        if not isinstance(key, str):
            return f"{where} has a key of type {type(key).__name__}, not str"
        if named := labels_named(key, window):
            return f"{where} has a key that names items of the window ({', '.join(named[:3])})"
        problem = _stat_value_problem(value, window, f"{where}[{key!r}]")
        if problem is not None:
            return problem
    return None


def _stat_value_problem(value: Any, window: Window, where: str) -> str | None:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (set, frozenset)):  # the report writes it as a list (kit power pass: a set of labels passed)
        value = list(value)
    if isinstance(value, Mapping):
        return stats_problem(value, window, where)
    if isinstance(value, (list, tuple)):
        return next((problem for position, each in enumerate(value)
                     if (problem := _stat_value_problem(each, window, f"{where}[{position}]")) is not None), None)
    if isinstance(value, str) and (named := labels_named(value, window)):
        return f"{where} is text that names items of the window ({', '.join(named[:3])})"
    # an integer label as a number, which only the integer probe's distinctive labels can show
    if isinstance(value, numbers.Integral) and (named := labels_named(str(value), window)):
        return f"{where} is a number that is an item of the window ({', '.join(named[:3])})"
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        return f"{where} is {value}, not a finite number, which anonymize --report cannot write"
    if value is None or isinstance(value, (str, numbers.Number)):
        return None
    # anything else as anonymize --report writes it (kit power pass: a deque of the dropped items
    # passed, and every report held the text "deque(['p1', ...])")
    try:
        written = json_value(value)
    except TypeError:
        return (f"{where} is a value of type {type(value).__name__} whose text cannot be made, which anonymize "
                "--report cannot write")
    return None if type(written) is type(value) else _stat_value_problem(written, window, where)


def given_copies(who: str, method: Callable[[Window, Window], Any], original: Window, release: Window) -> Any:
    """``method(original, release)`` on read-only copies, as the pipeline and ``anonymize`` call
    the loss and the metrics: the release is written or emitted after them."""
    name = getattr(method, "__name__", "the method")
    try:
        return method(*detached(original, release))
    except (*NOT_PLUGIN_ERRORS, OutOfTime):
        raise
    except BaseException as exc:
        if wrote_read_only(exc):
            pytest.fail(f"{who}: {name} wrote into a window it was given, which is read-only ({exc}): the "
                        "release is emitted after it; compute on a copy")
        raise AssertionError(f"{who}: {name} raised {type(exc).__name__}: {exc}") from exc


class _ReadsRecorded(dict[str, Any]):
    """A model's parameters that note which of them its check reads."""

    def __init__(self, params: Mapping[str, Any]):
        super().__init__(params)
        self.read: set[str] = set()

    def __getitem__(self, name: str) -> Any:
        self.read.add(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:
        self.read.add(name)
        return super().get(name, default)


class WindowArgs(TypedDict, total=False):
    """The arguments of :func:`~setveil.testing.windows` a suite may set."""

    max_transactions: int
    public_items: int
    private_items: int
    max_length: int


def _no_private_label(window: Window, context: Context) -> str:
    """Why an unsafe window of a model that reads an item schema may pass its check: none of its
    labels is private there (QA as a plugin author: a rho suite's window of "hiv" passed the check,
    as the suite's schema makes private only the labels that start with "s")."""
    if context.schema is None or context.schema.private & set(window.vocab.labels):
        return ""
    return (f"; none of its labels is private in the suite's context() (by default, those starting with "
            f"{PRIVATE_PREFIX!r}: {PRIVATE_PREFIX}0, {PRIVATE_PREFIX}1, …): name its sensitive items so, or override "
            "context()")


def _cause(broken: PluginError) -> str:
    """What the plugin raised, for its author: the command line names its type alone."""
    raised = broken.__cause__ or broken.__context__
    return "" if raised is None else f" ({raised!r})"


class ConformanceSuite:
    """Inherit, set ``model``, ``params``, ``safe_windows`` and ``unsafe_windows``; override
    :meth:`context` if the model needs more than an item schema (sensitive items are the labels
    starting with ``s``; a model that does not set ``needs_schema`` gets none)."""

    model: ClassVar[str]
    #: parameters every run gets (the model's, and any every policy shares)
    params: ClassVar[Mapping[str, Any]] = {}
    #: extra parameters of single policies, by policy name
    policy_params: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: parameter sets to refuse, each merged over ``params``; they may name a policy's parameters
    invalid_params: ClassVar[Sequence[Mapping[str, Any]]] = ()
    #: the policies to exercise; every installed policy of the model by default
    policies: ClassVar[Sequence[str] | None] = None
    #: windows (lists of transactions, each a list of labels) the check must accept as they are
    safe_windows: ClassVar[Sequence[Sequence[list[str] | tuple[str, ...]]]] = ()
    #: windows the check must reject as they are: they show that the check can fail at all
    unsafe_windows: ClassVar[Sequence[Sequence[list[str] | tuple[str, ...]]]] = ()
    #: arguments of the :func:`~setveil.testing.windows` strategy for the random windows
    window_args: ClassVar[WindowArgs] = {}
    #: seconds a probe window may take with a parameter at the largest value its range admits
    largest_value_seconds: ClassVar[float] = 60.0

    # -- hooks for subclasses -------------------------------------------------------------
    @classmethod
    def prepare(cls, folder: Path) -> None:
        """Called once per test class, before its tests, with an empty folder of its own: write
        the files that parameters or the context name (pattern lists, hierarchies) and set
        ``params`` / ``invalid_params`` (or any other attribute) on ``cls``. Does nothing by default."""

    @pytest.fixture(autouse=True, scope="class")
    @classmethod
    def _prepared(cls, tmp_path_factory: pytest.TempPathFactory) -> None:
        cls.prepare(tmp_path_factory.mktemp(cls.model))

    @pytest.fixture(autouse=True)
    def _params_taken(self) -> None:
        # Every test configures the model with ``params``: refused, each would fail on its own,
        # and those under hypothesis only after shrinking (QA as a plugin author: 47 s to say it).
        # A plugin setveil cannot load fails them all too, in one line each, not in a traceback.
        try:
            get_registry().model_class(self.model)
            policies = self.policy_names()
        except (PluginError, UnknownPluginError) as broken:
            pytest.fail(f"{type(self).__name__}: {broken}", pytrace=False)
        if not policies:  # every test would pass without running the model (QA as a plugin author)
            pytest.fail(f"{type(self).__name__}.policies is empty: list the policies to exercise, or leave it unset "
                        "for every installed policy of the model", pytrace=False)
        # a misspelled policy here left that policy on the suite's params alone, silently (QA as
        # a plugin author: the value the suite was written to test was never run)
        installed = get_registry().policies[self.model]
        # so does one in policies, which errored every test with the kit's fixture's traceback (QA as
        # a plugin author)
        for attribute, named in (("policies", policies), ("policy_params", self.policy_params)):
            unknown = sorted(set(named) - set(installed))
            if unknown:
                pytest.fail(f"{type(self).__name__}.{attribute} names policy {', '.join(map(repr, unknown))}, which "
                            f"model {self.model!r} does not have (its policies: {', '.join(sorted(installed))})",
                            pytrace=False)
        for policy in policies:
            try:
                configured = self.configured(policy)
            except ParameterError as refused:
                pytest.fail(f"policy {policy!r} refuses the suite's parameters {self.params_for(policy)} ({refused}): "
                            "set params (and policy_params) to values the model and each policy take", pytrace=False)
            except PluginError as broken:  # an __init__ that raised, or left self.params unset: it names the class
                pytest.fail(f"{type(self).__name__}: {broken}{_cause(broken)}", pytrace=False)
            # every command and a worker's start-up size windows by it before reading any (QA
            # attacking the kit: a smallest_window that returned 0 or raised passed the kit, and
            # every command stopped on it)
            try:
                smallest_window_of(configured.model)
            except PluginError as broken:
                pytest.fail(f"policy {policy!r}: {broken}{_cause(broken)}; every command stops on it before reading a "
                            "window", pytrace=False)

    def context(self) -> Context:
        """The context every run gets; by default, as the command line and the service give it,
        an item schema only to models that need one (the labels starting with ``s`` private: those
        of the random windows and of the example windows) and :meth:`hierarchy` only to models
        that generalize. A model that reads a schema it did not ask for fails here, as it would
        on every window there (QA: it passed the kit)."""
        cls = get_registry().model_class(self.model)
        drawn = max(64, self.window_args.get("private_items", 0))
        private = frozenset(f"{PRIVATE_PREFIX}{i}" for i in range(drawn)) | {
            label for label in self.example_labels() if label.startswith(PRIVATE_PREFIX)}
        return Context(schema=ItemSchema(private=private) if cls.needs_schema else None,
                       hierarchy=self.hierarchy() if cls.needs_hierarchy else None)

    def hierarchy(self) -> Hierarchy:
        """A generalization hierarchy over every label the random windows and the example windows
        use (fan-out 3). One fixed hierarchy for all windows, so releases of different windows are
        comparable. The example windows' labels are leaves too (QA as a plugin author: a safe window
        of "apple" and "bread" failed the check as labels outside the hierarchy, and an unsafe one
        was rejected for that alone, whatever the check looked at)."""
        # as many as window_args draws from, when more than 64 (QA: public_items=80 drew p64..p79,
        # outside the hierarchy, as context() had found for private_items)
        public = max(64, self.window_args.get("public_items", 0))
        private = max(64, self.window_args.get("private_items", 0))
        labels = [f"p{i}" for i in range(public)] + [f"{PRIVATE_PREFIX}{i}" for i in range(private)]
        return Hierarchy.balanced([*labels, *self.example_labels()], 3)

    # -- helpers ----------------------------------------------------------------------------
    def policy_names(self) -> list[str]:
        if self.policies is not None:
            return list(self.policies)
        return sorted(get_registry().policies[self.model])

    def params_for(self, policy: str | None) -> dict[str, Any]:
        name = get_registry().model_class(self.model).default_policy if policy is None else policy
        return {**self.params, **self.policy_params.get(name, {})}

    def configured(self, policy: str | None = None, params: dict[str, Any] | None = None) -> Configured:
        params = self.params_for(policy) if params is None else params
        return get_registry().configure(self.model, policy, params, self.context())

    def release_or_refusal(self, configured: Configured, window: Window, seed: int = 0) -> Window | None:
        """The release of ``window``, checked, or None when the model refused it; a refusal must
        say why, and the check must reject the window as it is (had it been safe, releasing it
        unchanged would have been a safe release)."""
        who = f"{configured.model.name} with policy {configured.policy.name!r}"
        try:
            # through the hook, as the pipeline asks for a release, so that an installed
            # setveil_anonymize_window implementation is tested too; read-only, as the pipeline
            # hands it over: the check compares against ``window``
            release = get_plugin_manager().hook.setveil_anonymize_window(
                model=configured.model, policy=configured.policy, window=detached(window)[0],
                rng=np.random.default_rng(seed))
        except Infeasible as exc:
            assert exc.reason, f"{who}: Infeasible must say why"
            named = self.named_as_items(labels_named(exc.reason, window), configured, window,
                                        lambda again, probe: _refusals(again, probe, seed))
            assert not named, (
                f"{who}: Infeasible's reason names items of the window ({', '.join(named[:3])}); it is logged and "
                "sent with the dead letter, so say why in counts and parameters"
            )
            assert self.check_finds_something(configured, window), (
                f"{who} refused a window that its own check accepts unchanged ({len(window)} transactions): "
                "either the refusal or the check is wrong"
            )
            return None
        except (*NOT_PLUGIN_ERRORS, OutOfTime):
            raise
        except BaseException as exc:  # SystemExit too: the pipeline takes it as the model's error
            if wrote_read_only(exc):
                pytest.fail(f"{who}: anonymize wrote into its input window, which is read-only ({exc}); build a new Window")
            # the pipeline would fail the window closed; here the failure says whose it is
            raise AssertionError(f"{who}: anonymize raised {type(exc).__name__}: {exc}") from exc
        assert isinstance(release, Release) and isinstance(release.window, Window), (
            f"{who}: anonymize (or a setveil_anonymize_window hook) must return a Release of a Window, "
            f"not {type(release).__name__}"
        )
        released = detached(window, release.window)[1]  # what the pipeline checks and emits
        # the pipeline copies both before the check, and fails every window closed whose copy fails
        # (kit power pass: a generator of the dropped items in details passed the kit)
        try:
            independent_copies(release.details, 1)
            independent_copies(release.stats, 1)
        except (*NOT_PLUGIN_ERRORS, OutOfTime):
            raise
        except BaseException as exc:
            raise AssertionError(
                f"{who}: the Release's details or stats cannot be copied ({type(exc).__name__}: {exc}); the pipeline "
                "copies them when anonymize returns and fails every such window closed: hold lists, dicts, numbers "
                "and text, not generators, locks or open files"
            ) from exc
        problem = stats_problem(release.stats, window)
        assert problem is None, (
            f"{who}: Release.{problem}; the stats go into --report and to observers, which hold no transaction "
            "contents: key them by what they measure, give numbers, and put the items in details"
        )
        # against the context the kit built, as the pipeline checks against setveil's: a model
        # may have set or changed its own (review: the kit checked against the model's)
        assert_release_ok(configured.model, window, released, configured.policy.name, configured.context)
        # The pipeline asks the model that made the release; ``setveil verify`` asks one configured
        # afresh. A model that relaxed its own parameters in anonymize passed the first and wrote
        # the window unchanged (QA attacking the kit), so the kit asks both.
        afresh = get_registry().configure(configured.model.name, configured.policy.name, configured.params,
                                          configured.context)
        problems = [v.describe() for v in checked(who, afresh.model, window, released, configured.context)]
        assert not problems, (
            f"{who}: a release passes the check of the model that made it but not of the model configured "
            f"afresh, as setveil verify checks it: {problems[:5]}; anonymize changed the parameters or other "
            "state its check reads (keep what one window needs in local variables)"
        )
        loss = given_copies(who, configured.model.information_loss, window, released)
        assert isinstance(loss, numbers.Real) and math.isfinite(loss), (
            f"{who}: information_loss must be a finite number, not {loss!r}"
        )
        # the report, a batch's metrics and the service's loss histogram read it as a share
        # (QA attacking the kit: a loss of -0.5 or 7 passed)
        assert 0 <= float(loss) <= 1, (
            f"{who}: information_loss must be a share in [0, 1] (the report and the service read it as one), "
            f"not {loss!r}"
        )
        return released

    def probe_windows(self) -> list[Window]:
        """The example windows, a few seeded random ones, of sizes up to ``max_transactions``, and each
        unsafe example window after empty transactions, a window of :data:`LARGE_WINDOW`. The
        random ones are windows of one file as ``anonymize --window`` cuts it: each over the file's
        vocabulary, labels it does not hold included, its transactions numbered by their positions
        in the file (kit power pass: a model that hashed its tids as text, and one that counted
        supports with np.bincount, one per id up to the last one held, passed the kit and failed
        every such window)."""
        args: WindowArgs = {"max_transactions": 40, "public_items": 10, "private_items": 3, "max_length": 6,
                            **self.window_args}
        rng = np.random.default_rng(DISTINCTIVE_DIGITS)
        labels = [f"p{i}" for i in range(args["public_items"])] + [
            f"{PRIVATE_PREFIX}{i}" for i in range(args["private_items"])]
        cut, position = [], 0
        for n in sorted({min(n, args["max_transactions"]) for n in (1, 2, 5, 10, 20, 40)}):
            drawn = random_window(rng, n, args["public_items"], args["private_items"], args["max_length"] / 2)
            cut.append(Window.from_transactions(list(drawn), tids=list(range(position, position + n)),
                                                vocab=Vocabulary(labels)))
            position += n
        # and each unsafe example as the last transactions of a window of LARGE_WINDOW, the others
        # empty: a shortcut past the kit's small windows shows there (kit power pass: a model that
        # truncated only the first 64 transactions, one bit each of a uint64, passed the kit)
        large = [Window.from_transactions([[]] * (LARGE_WINDOW - len(window)) + list(window))
                 for window in self.example_windows("unsafe_windows") if len(window) < LARGE_WINDOW]
        return self.example_windows("unsafe_windows") + self.example_windows("safe_windows") + cut + large

    def integer_probe(self) -> tuple[list[Window], Context, dict[str, str]]:
        """The :meth:`probe_windows` with every item relabeled as a distinct random whole number of
        :data:`DISTINCTIVE_DIGITS` digits, the context relabeled to match (item schema and
        hierarchy leaves), and what each number stands for."""
        return self.relabeled(self.probe_windows())

    def relabeled(self, drawn: list[Window]) -> tuple[list[Window], Context, dict[str, str]]:
        """``drawn`` with every item relabeled as a distinct random whole number of
        :data:`DISTINCTIVE_DIGITS` digits, the suite's context relabeled to match, and what each
        number stands for."""
        rng = np.random.default_rng(DISTINCTIVE_DIGITS)
        labels = sorted({label for window in drawn for label in window.vocab.labels})
        numbers: list[str] = []
        while len(numbers) < len(labels):
            number = str(rng.integers(10 ** (DISTINCTIVE_DIGITS - 1), 10 ** DISTINCTIVE_DIGITS))
            if number not in numbers:
                numbers.append(number)
        relabel = dict(zip(labels, numbers))
        context = self.context()
        schema = context.schema
        if schema is not None:
            public = None if schema.public is None else frozenset(relabel.get(label, label) for label in schema.public)
            schema = ItemSchema(frozenset(relabel.get(label, label) for label in schema.private), public)
        hierarchy = context.hierarchy if context.hierarchy is not None else context.file_hierarchy
        if hierarchy is not None:
            hierarchy = Hierarchy([relabel.get(label, label) for label in hierarchy.labels], hierarchy.parent)
        context = dataclasses.replace(context, schema=schema, hierarchy=hierarchy, hierarchy_file=None)
        probes = [Window.from_transactions([[relabel[label] for label in row] for row in window]) for window in drawn]
        return probes, context, {number: label for label, number in relabel.items()}

    def named_as_items(self, named: list[str], configured: Configured, window: Window,
                       messages: Callable[[Configured, Window], list[str]]) -> list[str]:
        """Those of the labels ``named`` in a message about ``window`` that ``messages`` does not
        give again once the window's items are relabeled as integers, by a model configured alike:
        the others are words of the message's own, "a" of "a pair" or "k" of "k=2", not the items
        (QA as a plugin author: a coherence policy's suite whose windows held items a, b and c
        failed on setveil's own checker and refusal)."""
        if not named:
            return named
        probes, context, _ = self.relabeled([window])
        try:
            # parsed values configure a model alike, as the afresh check of release_or_refusal does
            again = get_registry().configure(self.model, configured.policy.name, configured.params, context)
            texts = messages(again, probes[0])
        except (*NOT_PLUGIN_ERRORS, OutOfTime):
            raise
        except BaseException:  # no second opinion: the labels stand as named
            return named
        suspects = Window.from_transactions([named])
        own = {label for text in texts for label in labels_named(text, suspects)}
        return [label for label in named if label not in own]

    @staticmethod
    def check_finds_something(configured: Configured, window: Window) -> bool:
        who = f"{configured.model.name} with policy {configured.policy.name!r}"
        return bool(checked(who, configured.model, window, window, configured.context, first=True))

    def example_labels(self) -> set[str]:
        return {label for attribute in ("safe_windows", "unsafe_windows") for rows in getattr(self, attribute)
                for row in rows for label in row}

    def example_windows(self, attribute: str) -> list[Window]:
        examples = getattr(self, attribute)
        if not examples:
            pytest.fail(
                f"set {type(self).__name__}.{attribute} to at least one window (a list of transactions, each a list "
                f"of labels) that the {self.model!r} check must {'accept' if attribute == 'safe_windows' else 'reject'} "
                "as it is: without one, a check that accepts everything, or a model that refuses everything, "
                "passes every other test of the kit"
            )
        return [Window.from_transactions(rows) for rows in examples]

    # -- the checks -----------------------------------------------------------------------------
    def test_model_is_registered_with_policies(self) -> None:
        registry = get_registry()
        cls = registry.model_class(self.model)
        assert cls.name == self.model
        assert cls.summary and cls.guarantee
        assert cls.default_policy in registry.policies[self.model]
        for name in self.policy_names():
            assert registry.policy_class(self.model, name).summary, f"policy {name!r} has no summary"

    def test_policy_base_documents_what_to_implement(self) -> None:
        # setveil plugins names the methods a new policy implements and the docs send its author to
        # their docstrings (QA as a plugin author: a base whose method had none passed the kit)
        base = get_registry().model_class(self.model).policy_base
        undocumented = sorted(name for name in base.__abstractmethods__ if not inspect.getdoc(getattr(base, name)))
        assert not undocumented, (
            f"policy_base {base.__module__}.{base.__qualname__}: {', '.join(undocumented)} has no docstring; a new "
            "policy implements it from what its docstring says it receives and returns (setveil plugins names it, "
            "and python -m pydoc shows the docstring)"
        )

    def test_model_and_policy_can_be_sent_to_a_window_process(self) -> None:
        # A worker with model.time_limit pickles them to the child process that anonymizes its
        # windows, and stops at start-up when it cannot (QA as a plugin author: a model holding a
        # lock passed the kit and stopped every such worker)
        for policy in self.policy_names():
            configured = self.configured(policy)
            try:
                pickle.dumps(configured)
            except Exception as exc:
                raise AssertionError(
                    f"policy {policy!r}: the configured model and policy cannot be pickled ({type(exc).__name__}: "
                    f"{exc}); a worker with model.time_limit sends them to the child process that anonymizes its "
                    "windows, and stops at start-up without them: their classes must be importable module "
                    "attributes, and what their instances hold picklable (no locks, open files or connections)"
                ) from exc

    def test_the_check_reads_no_unchecked_parameter(self) -> None:
        # setveil verify's verdict names the parameters at which a release holds, those declared
        # checked (QA as a plugin author: a k its check read, declared checked=False, was left out
        # of the verdict, "satisfies itemsupport ()", and the kit passed it)
        unchecked = {p.name for p in get_registry().model_class(self.model).parameters if not p.checked}
        if not unchecked:
            return
        configured = self.configured(self.policy_names()[0])
        given = configured.model.params
        recorded = configured.model.params = _ReadsRecorded(given)
        try:
            for attribute in ("unsafe_windows", "safe_windows"):
                for window in self.example_windows(attribute):
                    checked(f"model {self.model!r}", configured.model, window, window, configured.context)
        finally:
            configured.model.params = given
        read = sorted(recorded.read & unchecked)
        assert not read, (
            f"model {self.model!r}: its check reads {', '.join(read)}, declared checked=False; declare a parameter "
            "the check reads checked (the default): setveil verify's verdict names the parameters at which a release "
            "holds, and leaves out those declared unchecked"
        )

    def test_the_check_rejects_the_unsafe_windows(self) -> None:
        for number, window in enumerate(self.example_windows("unsafe_windows")):
            for policy in self.policy_names():
                configured = self.configured(policy)
                found = checked(f"policy {policy!r}", configured.model, window, window, configured.context)
                assert found, (f"unsafe_windows[{number}] passes the {self.model!r} check as it is"
                               f"{_no_private_label(window, configured.context)}")
                for violation in found:
                    named = self.named_as_items(labels_named(f"{violation.rule}: {violation.summary}", window),
                                                configured, window, _violation_texts)
                    assert not named, (
                        f"unsafe_windows[{number}]: a Violation's rule or summary names items of the window "
                        f"({', '.join(named[:3])}); the first is logged and sent with the dead letter, so say what "
                        "is wrong in counts and parameters and put the items in itemset and target"
                    )
                self.release_or_refusal(configured, window)

    def test_messages_name_no_integer_label(self) -> None:
        # Numeric data (FIMI files) has integer labels, which labels_named leaves out: a message's
        # counts and parameters would match them. Relabeled with numbers no message holds by chance,
        # the windows show whether a refusal or a violation names an item all the same.
        probes, context, stands_for = self.integer_probe()
        for policy in self.policy_names():
            configured = get_registry().configure(self.model, policy, self.params_for(policy), context)
            for window in probes:
                for violation in checked(f"policy {policy!r}", configured.model, window, window, configured.context):
                    named = labels_named(f"{violation.rule}: {violation.summary}", window)
                    assert not named, (
                        f"policy {policy!r}: with its items relabeled as integers, a Violation's rule or summary "
                        f"names items of the window ({', '.join(f'{n}, for {stands_for[n]}' for n in named[:3])}); "
                        "the first is logged and sent with the dead letter, so say what is wrong in counts and "
                        "parameters and put the items in itemset and target"
                    )
                try:
                    self.release_or_refusal(configured, window)
                except AssertionError as failed:
                    shown = ", ".join(f"{number} for {stands_for.get(number, number)}" for number in window.vocab.labels[:5])
                    raise AssertionError(f"with its items relabeled as integers ({shown}): {failed}") from failed

    def test_the_safe_windows_are_accepted_and_released(self) -> None:
        for number, window in enumerate(self.example_windows("safe_windows")):
            for policy in self.policy_names():
                configured = self.configured(policy)
                problems = [v.describe() for v in checked(f"policy {policy!r}", configured.model, window, window,
                                                          configured.context)]
                assert not problems, f"safe_windows[{number}] fails the {self.model!r} check as it is: {problems[:3]}"
                released = self.release_or_refusal(configured, window)
                assert released is not None, f"policy {policy!r} refused safe_windows[{number}]"

    @_settings
    @given(data=st.data())
    def test_every_release_passes_the_check(self, data: st.DataObject) -> None:
        window = data.draw(windows(**self.window_args), label="window")
        # each window under a seed of its own, as anonymize and the service give every window one
        # (kit power pass: a model that released the window as it was on one seed in two passed,
        # since every release here had seed 0)
        seed = data.draw(st.integers(min_value=0, max_value=2**64 - 1), label="seed")
        for policy in self.policy_names():
            self.release_or_refusal(self.configured(policy), window, seed=seed)

    def test_metrics_of_a_release(self) -> None:
        for window in self.example_windows("safe_windows") + self.example_windows("unsafe_windows"):
            for policy in self.policy_names():
                configured = self.configured(policy)
                released = self.release_or_refusal(configured, window)
                if released is not None:
                    metrics = given_copies(f"policy {policy!r}", configured.model.metrics, window, released)
                    assert isinstance(metrics, dict), f"policy {policy!r}: metrics must return a dict, not {type(metrics).__name__}"
                    # written into the report as anonymize --report writes it (kit power pass: a
                    # ratio that is NaN where nothing was dropped passed, and stopped every run)
                    try:
                        report_text(metrics)
                    except (TypeError, ValueError) as exc:
                        raise AssertionError(
                            f"policy {policy!r}: metrics would stop anonymize --report, which writes them as JSON "
                            f"({type(exc).__name__}: {exc}): give finite numbers, keyed by text"
                        ) from None

    def test_input_notes_of_a_window(self) -> None:
        # what anonymize and verify print before anonymizing: lines of text naming no item, with
        # the window left as it was given (QA re-check: a model whose input_notes wrote into its
        # input passed the kit, and failed every run of `anonymize`)
        for window in self.example_windows("safe_windows") + self.example_windows("unsafe_windows"):
            for policy in self.policy_names():
                who = f"policy {policy!r}: input_notes"
                try:
                    notes = self.configured(policy).model.input_notes(detached(window)[0], "the kit's window")
                except InputError:  # the parameters select nothing in this window: a refusal of the input
                    continue
                except (*NOT_PLUGIN_ERRORS, OutOfTime):
                    raise
                except BaseException as exc:
                    if wrote_read_only(exc):
                        pytest.fail(f"{who} wrote into the window it was given, which is read-only ({exc})")
                    raise AssertionError(f"{who} raised {type(exc).__name__}: {exc}") from exc
                assert isinstance(notes, list) and all(isinstance(note, str) for note in notes), (
                    f"{who} must return a list of str, not {type(notes).__name__}")
                named = [label for note in notes for label in labels_named(note, window)]
                assert not named, f"{who}: a note names items of the window ({', '.join(named[:3])}); give counts"

    @_settings
    @given(data=st.data())
    def test_same_seed_same_release(self, data: st.DataObject) -> None:
        window = data.draw(windows(**self.window_args), label="window")
        for policy in self.policy_names():
            first = self.release_or_refusal(self.configured(policy), window, seed=7)
            # the second from a model that has released a window before, as a worker's has: a
            # re-delivered window may go to a worker whose model has released others (QA attacking
            # the kit: a model that kept state between windows passed this test)
            used = self.configured(policy)
            self.release_or_refusal(used, window, seed=8)
            second = self.release_or_refusal(used, window, seed=7)
            assert (first is None) == (second is None), f"policy {policy!r}: the same seed released once and refused once"
            if first is not None:
                same = second is not None and list(first) == list(second)
                assert same, (f"policy {policy!r}: the same seed gave two different releases, by a model just "
                              "configured and by one that had released a window before: draw every random "
                              "choice from the rng that anonymize is given (numpy's and random's global "
                              "generators are not seeded by the window), and keep no state from one window "
                              "to the next")

    def test_same_seed_same_release_in_another_process(self) -> None:
        # A re-delivered window may be anonymized by another worker, whose str hashes are salted
        # otherwise: iterating over a set or dict of labels passes the test above and fails here.
        probes = self.probe_windows()
        jobs = [(policy, self.params_for(policy)) for policy in self.policy_names()]
        here = [[None if (released := self.release_or_refusal(self.configured(policy, params), window, seed=7)) is None
                 else list(released) for window in probes] for policy, params in jobs]
        hash_seeds = other_process.other_hash_seeds()
        elsewhere = other_process.releases(self.model, jobs, self.context(), probes, 7, hash_seeds)
        for hash_seed, there in elsewhere.items():
            for (policy, _), ours, theirs in zip(jobs, here, there):
                for number, (mine, other) in enumerate(zip(ours, theirs)):
                    assert mine == other, (
                        f"policy {policy!r}: the same seed gave another release of probe window {number} in a process "
                        f"with PYTHONHASHSEED={hash_seed}: the release depends on the order of a set or dict of labels "
                        "(sort them, or go by item id), on a random source other than the rng that anonymize "
                        "is given (numpy's and random's global generators start elsewhere in each process), or "
                        "on state the model kept from an earlier window (each process releases the probe windows "
                        "one after another with one model)"
                    )

    @_settings
    @given(data=st.data())
    def test_union_of_safe_windows_is_safe(self, data: st.DataObject) -> None:
        if not get_registry().model_class(self.model).union_safe:
            pytest.skip("the model does not claim union safety")
        first = data.draw(windows(**self.window_args), label="first")
        second = data.draw(windows(**self.window_args), label="second")
        for policy in self.policy_names():
            configured = self.configured(policy)
            a = self.release_or_refusal(configured, first)
            b = self.release_or_refusal(configured, second)
            if a is None or b is None:
                continue
            vocab = first.vocab.copy()
            original = Window.concat([first, second], vocab=vocab)
            released = Window.concat([a, b], vocab=vocab)
            problems = [v.describe() for v in checked(f"policy {policy!r}", configured.model, original, released,
                                                      configured.context)]
            assert not problems, (f"policy {policy!r}: two safe windows are not safe together: {problems[:5]}; "
                              "either the releases are not (then the model should not claim union_safe) "
                              "or the check refuses a safe union: it must check what the model guarantees "
                              "of any set of transactions, not how anonymize got there (docs/plugins.md)")

    def test_empty_window(self) -> None:
        for policy in self.policy_names():
            released = self.release_or_refusal(self.configured(policy), Window.empty())
            assert released is None or len(released) == 0

    def test_one_transaction_window(self) -> None:
        window = Window.from_transactions([["p0", "p1", f"{PRIVATE_PREFIX}0"]])
        for policy in self.policy_names():
            self.release_or_refusal(self.configured(policy), window)

    def test_invalid_parameters_are_refused_by_name(self) -> None:
        registry = get_registry()
        model_names = {p.name for p in registry.model_class(self.model).parameters}
        for bad in self.invalid_params:
            takers = [
                policy for policy in self.policy_names()
                if set(bad) <= model_names | {p.name for p in registry.policy_class(self.model, policy).parameters}
            ]
            assert takers, (f"invalid_params entry {bad} names a parameter that neither the model nor a policy the suite "
                            f"exercises ({', '.join(self.policy_names())}) has")
            for policy in takers:
                try:
                    self.configured(policy, params={**self.params_for(policy), **bad})
                except ParameterError as refused:
                    assert refused.name in bad, (
                        f"policy {policy!r}: the error names {refused.name!r}, expected one of {sorted(bad)}"
                    )
                else:
                    pytest.fail(f"policy {policy!r}: invalid_params entry {bad} was accepted")

    def test_numeric_parameters_refuse_what_is_out_of_range(self) -> None:
        # Parameters are checked before any data is read, and an error names the parameter: each
        # int or float parameter is given values no parameter can mean, one below its low, and -1
        # when it declares no range (see _out_of_range). A value its declared range admits, the
        # largest a 64-bit int or a float holds too when it declares no finite high, must then
        # work: the model releases or refuses the probe windows.
        registry = get_registry()
        model_parameters = registry.model_class(self.model).parameters
        for policy in self.policy_names():
            declared = (*model_parameters, *registry.policy_class(self.model, policy).parameters)
            for parameter in (p for p in declared if p.kind in ("int", "float")):
                # a model's parameter is tried with each policy, which the failure names beside the
                # model whose parameter it is (QA as a plugin author: "policy 'margin': parameter
                # 'k'" read as the policy's own)
                owner = (f"model {self.model!r} (with policy {policy!r})" if parameter in model_parameters
                         else f"policy {policy!r}")
                for value, what in _out_of_range(parameter):
                    try:
                        self.configured(policy, params={**self.params_for(policy), parameter.name: value})
                    except ParameterError as refused:
                        assert refused.name == parameter.name, (
                            f"policy {policy!r}: {parameter.name}={value} ({what}) is refused naming {refused.name!r}"
                        )
                    else:
                        pytest.fail(
                            f"{owner}: parameter {parameter.name!r} accepts {value!r} ({what}); declare its "
                            f"range (Parameter(..., low=, high=), low=-math.inf for any number) or refuse the value "
                            f"in __init__ with ParameterError({parameter.name!r}, ...), before any data is read"
                        )
                if parameter.high is None or not math.isfinite(parameter.high):
                    self._largest_works(policy, parameter)

    def _largest_works(self, policy: str, parameter: Parameter) -> None:
        largest = str(2**63 - 1) if parameter.kind == "int" else repr(sys.float_info.max)
        try:
            configured = self.configured(policy, params={**self.params_for(policy), parameter.name: largest})
        except ParameterError as refused:
            assert refused.name == parameter.name, (
                f"policy {policy!r}: {parameter.name}={largest} is refused naming {refused.name!r}"
            )
            return
        for window in self.probe_windows():
            try:
                with time_bound(self.largest_value_seconds):
                    self.release_or_refusal(configured, window)
            except OutOfTime:
                raise AssertionError(
                    f"policy {policy!r} with {parameter.name}={largest}, which its range admits (declare a high "
                    f"to refuse it): a window of {len(window)} transactions took more than "
                    f"{self.largest_value_seconds:g} s (largest_value_seconds)"
                ) from None
            except AssertionError as failed:
                raise AssertionError(
                    f"policy {policy!r} with {parameter.name}={largest}, which its range admits (declare a high "
                    f"to refuse it): {failed}"
                ) from failed

    def test_unknown_parameter_is_refused(self) -> None:
        for policy in self.policy_names():
            with pytest.raises(ParameterError) as info:
                self.configured(policy, params={**self.params_for(policy), "no_such_parameter": "1"})
            assert info.value.name == "no_such_parameter"
