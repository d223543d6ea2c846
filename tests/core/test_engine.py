"""The fail-closed pipeline and the lifecycle hooks, with a real plugin manager."""

import threading

import numpy as np
import pytest

from setveil.core import plugins
from setveil.core.cli import finite_loss
from setveil.core.engine import Pipeline, overriders_note, window_rng
from setveil.core.errors import ContractError, Infeasible, PluginError, SetveilError, WindowRejected
from setveil.core.hookspecs import hookimpl
from setveil.core.model import Context, Policy, PrivacyModel, Release, Transformation, Violation
from setveil.core.params import Parameter
from setveil.core.schema import ItemSchema
from setveil.core.verify import release_violations
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window


class LeakyPolicy(Policy):
    model = "leaky"


class Leaky(LeakyPolicy):
    name = "leak"
    summary = "releases the window unchanged"


class LeakyModel(PrivacyModel):
    """A broken model: claims every item has support >= k but releases the raw window."""

    name = "leaky"
    summary = "a model whose anonymizer is wrong"
    guarantee = "every released item has support >= k"
    transformation = Transformation.GLOBAL_SUPPRESSION
    parameters = (Parameter("k", "k", "int", low=1),)
    default_policy = "leak"
    policy_base = LeakyPolicy

    def anonymize(self, window, policy, rng):
        if len(window) == 3:
            raise RuntimeError("boom")
        return Release(window)

    def violations(self, original, release):
        for item in np.flatnonzero((release.supports > 0) & (release.supports < self.params["k"])):
            yield Violation("rare", "an item is rarer than k", (release.vocab.label(int(item)),))


class Recorder:
    def __init__(self):
        self.wrapped, self.anonymized, self.rejected = [], [], []

    @hookimpl
    def setveil_register_privacy_models(self, register):
        register(LeakyModel)

    @hookimpl
    def setveil_register_policies(self, register):
        register(Leaky)

    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self, model, window):
        release = yield
        self.wrapped.append((model.name, len(window)))
        return release

    @hookimpl
    def setveil_window_anonymized(self, window, release, report):
        self.anonymized.append(report)

    @hookimpl
    def setveil_window_rejected(self, window, model, reason):
        self.rejected.append(reason)


@pytest.fixture
def recorder(register_plugin):
    recorder = Recorder()
    pm = register_plugin(recorder, name="recorder")
    return recorder, pm, plugins.Registry(pm)


def test_wrapper_and_observers_see_every_window(recorder):
    rec, pm, registry = recorder
    configured = registry.configure("coherence", None, {"h": "1", "k": "1", "p": "2"}, Context(schema=ItemSchema()))
    outcome = Pipeline(configured, pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert rec.wrapped == [("coherence", 2)]
    assert rec.anonymized[0]["verified"] is True and rec.anonymized[0]["transactions"] == 2
    assert outcome.report["info_loss"] == 0.0


def test_a_release_that_fails_the_check_is_rejected(recorder):
    rec, pm, registry = recorder
    configured = registry.configure("leaky", None, {"k": "2"}, Context())
    with pytest.raises(WindowRejected, match="failed the leaky check: 1 violation"):
        Pipeline(configured, pm).run(Window.from_transactions([["a"], ["b", "a"]]), window_rng(0, 0))
    assert rec.anonymized == [] and len(rec.rejected) == 1


class Overrider:
    @hookimpl
    def setveil_anonymize_window(self, model, window):
        return Release(window) if model.name == "coherence" else None


def test_a_failed_check_names_the_plugins_that_answer_for_the_model(recorder):
    # QA as a plugin author: an unsafe release from another plugin's setveil_anonymize_window was
    # reported as the model's alone; the recorder's wrapper is named apart (QA as a hostile
    # author: a wrapper replaced the release with force_result and went unnamed)
    rec, pm, registry = recorder
    pm.register(Overrider(), name="overrider")
    configured = registry.configure("coherence", None, {"h": "1", "k": "2", "p": "2"}, Context(schema=ItemSchema()))
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert rejected.value.reason.startswith("release failed the coherence check: ")
    assert rejected.value.reason.endswith(" (setveil_anonymize_window is also implemented by plugin 'overrider' and "
                                          "wrapped by plugin 'recorder')")


class OldStyleWrapper:
    @hookimpl(hookwrapper=True)
    def setveil_anonymize_window(self):
        yield


def test_an_old_style_hookwrapper_is_named_as_a_wrapper(recorder):
    # it does not answer for the model, but it may replace the release it wraps (force_result)
    _, pm, _ = recorder
    pm.register(OldStyleWrapper(), name="timer")
    assert overriders_note(pm.hook) == " (setveil_anonymize_window is wrapped by plugin 'recorder', 'timer')"
    pm.unregister(name="recorder")
    pm.unregister(name="timer")
    assert overriders_note(pm.hook) == "", "the core's own implementation alone is no other plugin's"


class TwoWrappers:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        return (yield)

    @hookimpl(wrapper=True, specname="setveil_anonymize_window")
    def time_windows(self):
        return (yield)


def test_a_plugin_with_two_wrappers_is_named_once(recorder):
    # Regression (QA as a plugin author): the note said "wrapped by plugin 'timer', 'timer'"
    _, pm, _ = recorder
    pm.unregister(name="recorder")
    pm.register(TwoWrappers(), name="timer")
    assert overriders_note(pm.hook) == " (setveil_anonymize_window is wrapped by plugin 'timer')"


def test_an_erring_model_is_rejected_without_contents(recorder):
    rec, pm, registry = recorder
    configured = registry.configure("leaky", None, {"k": "1"}, Context())
    with pytest.raises(WindowRejected, match="model error: RuntimeError"):
        Pipeline(configured, pm).run(Window.from_transactions([["secret"], ["a"], ["b"]]), window_rng(0, 0))
    assert "secret" not in rec.rejected[0]


class RaisingWrapper:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self, window):
        try:
            return (yield)
        finally:
            raise KeyError(window.labels(0)[0])


class OldStyleRaisingWrapper:
    @hookimpl(hookwrapper=True)
    def setveil_anonymize_window(self, window):
        yield
        raise KeyError(window.labels(0)[0])


class DroppingWrapper:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        yield


class StatsWrapper:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        release = yield
        return Release(release.window, stats=["seconds", 1])


def _short(window):
    """A release of all but the last transaction: every later line of it would be another's."""
    last = int(window.indptr[-2])
    return Release(Window(window.vocab, window.indptr[:-1], window.indices[:last]))


class _Twice(Vocabulary):
    """A vocabulary whose labels list one label twice, so that two ids would be written alike."""

    @property
    def labels(self):
        return ("a", "a")


def _doubled(window):
    """A release over :class:`_Twice`, which no copy can take."""
    return Release(Window(_Twice(["a", "b"]), window.indptr, window.indices, window.tids))


class _Unmeasured(Window):
    """A window whose ``len()`` raises, as a subclass's own bug would."""

    def __len__(self):
        raise ValueError("the subclass's own bug")


def _unmeasured(window):
    """A release over :class:`_Unmeasured`, whose length cannot be read."""
    return Release(_Unmeasured(window.vocab, window.indptr, window.indices, window.tids))


class ShortWrapper:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        return _short((yield).window)


class UnmeasuredWrapper:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        return _unmeasured((yield).window)


class DoublingWrapper:
    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        return _doubled((yield).window)


@pytest.mark.filterwarnings("ignore::pluggy.PluggyTeardownRaisedWarning")
@pytest.mark.parametrize("wrapper, reason", [
    (RaisingWrapper, "wrapper error: plugin 'timing' raised KeyError"),
    (OldStyleRaisingWrapper, "wrapper error: plugin 'timing' raised KeyError"),
    (DroppingWrapper, "wrapper error: setveil_anonymize_window, wrapped by plugin 'recorder', 'timing', returned "
                      "NoneType, not a Release of a Window"),
    (StatsWrapper, "wrapper error: setveil_anonymize_window, wrapped by plugin 'recorder', 'timing', returned a "
                   "Release whose stats are a list, not a dict"),
    (ShortWrapper, "wrapper error: setveil_anonymize_window, wrapped by plugin 'recorder', 'timing', returned a "
                   "Release of 1 transaction for 2 in the window"),
    (UnmeasuredWrapper, "wrapper error: setveil_anonymize_window, wrapped by plugin 'recorder', 'timing', returned a "
                        "Release whose window's length cannot be read: ValueError"),
    (DoublingWrapper, "wrapper error: setveil_anonymize_window, wrapped by plugin 'recorder', 'timing', returned a "
                      "Release whose window cannot be copied: the release's vocabulary holds a label that is not a "
                      "str, or one label twice"),
])
def test_a_wrappers_error_is_reported_as_the_wrappers(recorder, wrapper, reason):
    # Regression (review of the registry's API): an exception a wrapper raised, or a result it put
    # in place of the model's release, failed the window as the model's error; the recorder's own
    # wrapper lets the model's release pass, and is named only where a result cannot tell which
    _assert_plugins_error(recorder, wrapper(), "timing", reason)


def _assert_plugins_error(recorder, plugin, name: str, reason: str) -> None:
    """A coherence window run with ``plugin`` registered as ``name`` fails for ``reason``, told to
    the observers too, as a plugin's error (with a cause), not as a release that failed the check."""
    rec, pm, registry = recorder
    pm.register(plugin, name=name)
    configured = registry.configure("coherence", None, {"h": "1", "k": "1", "p": "2"}, Context(schema=ItemSchema()))
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, pm).run(Window.from_transactions([["secret"], ["a"]]), window_rng(0, 0))
    assert rejected.value.reason == reason and rec.rejected == [reason]
    assert rejected.value.cause is not None, "a plugin's error, not a release that failed the check"


class Timer:
    """A wrapper plugin of which a distribution may register two instances, one misconfigured."""

    def __init__(self, broken: bool):
        self.broken = broken

    @hookimpl(wrapper=True)
    def setveil_anonymize_window(self):
        release = yield
        if self.broken:
            raise IndexError("the timer's own bug")
        return release


@pytest.mark.filterwarnings("ignore::pluggy.PluggyTeardownRaisedWarning")
@pytest.mark.parametrize("broken_first", [True, False])
def test_of_two_instances_of_one_wrapper_class_the_one_that_raised_is_named(recorder, broken_first):
    # Regression (adversarial pass): wrappers were told apart by their code alone, so the
    # instance registered last was named for the error of either
    _, pm, registry = recorder
    for name, broken in [("timer-broken", True), ("timer-fine", False)][::1 if broken_first else -1]:
        pm.register(Timer(broken), name=name)
    configured = registry.configure("coherence", None, {"h": "1", "k": "1", "p": "2"}, Context(schema=ItemSchema()))
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert rejected.value.reason == "wrapper error: plugin 'timer-broken' raised IndexError"


def test_an_error_a_wrapper_lets_pass_stays_the_models(recorder):
    _, pm, registry = recorder
    pm.register(TwoWrappers(), name="timer")
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(registry.configure("leaky", None, {"k": "1"}, Context()), pm).run(
            Window.from_transactions([["a"], ["b"], ["c"]]), window_rng(0, 0))
    assert rejected.value.reason == "model error: RuntimeError"
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, NoWindowModel), pm).run(Window.from_transactions([["a"]]), window_rng(0, 0))
    assert rejected.value.reason == "model error: anonymize returned a Release of list, not a Release of a Window"


class RaisingOverrider:
    @hookimpl
    def setveil_anonymize_window(self, window):
        raise KeyError(window.labels(0)[0])


class WindowOverrider:
    """Answers with the window itself, not a Release of it."""

    @hookimpl
    def setveil_anonymize_window(self, window):
        return window


class StatsOverrider:
    @hookimpl
    def setveil_anonymize_window(self, window):
        return Release(window, stats=["seconds", 1])


class ShortOverrider:
    @hookimpl
    def setveil_anonymize_window(self, window):
        return _short(window)


class UnmeasuredOverrider:
    @hookimpl
    def setveil_anonymize_window(self, window):
        return _unmeasured(window)


class DoublingOverrider:
    @hookimpl
    def setveil_anonymize_window(self, window):
        return _doubled(window)


def _logged(function):
    """A plugin author's decorator that keeps no trace of what it wraps (no functools.wraps)."""

    def logged(*args, **kwargs):
        return function(*args, **kwargs)
    return logged


class DecoratedRaisingOverrider:
    @hookimpl
    @_logged
    def setveil_anonymize_window(self):
        raise KeyError("secret")


@pytest.mark.parametrize("overrider, reason", [
    (RaisingOverrider, "plugin error: plugin 'floor' raised KeyError"),
    # its instance is in the decorator's *args, where no frame names it (mutation review: reading the
    # first argument alone named the model)
    (DecoratedRaisingOverrider, "plugin error: plugin 'floor' raised KeyError"),
    (WindowOverrider, "plugin error: setveil_anonymize_window, implemented by plugin 'floor' and wrapped by plugin "
                      "'recorder', returned Window, not a Release of a Window"),
    (StatsOverrider, "plugin error: setveil_anonymize_window, implemented by plugin 'floor' and wrapped by plugin "
                     "'recorder', returned a Release whose stats are a list, not a dict"),
    (ShortOverrider, "plugin error: setveil_anonymize_window, implemented by plugin 'floor' and wrapped by plugin "
                     "'recorder', returned a Release of 1 transaction for 2 in the window"),
    (UnmeasuredOverrider, "plugin error: setveil_anonymize_window, implemented by plugin 'floor' and wrapped by "
                          "plugin 'recorder', returned a Release whose window's length cannot be read: ValueError"),
    (DoublingOverrider, "plugin error: setveil_anonymize_window, implemented by plugin 'floor' and wrapped by plugin "
                        "'recorder', returned a Release whose window cannot be copied: the release's vocabulary holds "
                        "a label that is not a str, or one label twice"),
])
def test_an_overriding_plugins_error_is_reported_as_the_plugins(recorder, overrider, reason):
    # Regression (review): a plugin answering in place of the model that raised, or answered with
    # something else than a Release of a Window, failed the window as 'model error: KeyError' or
    # 'model error: anonymize returned Window', sending the model's author after another's bug
    _assert_plugins_error(recorder, overrider(), "floor", reason)


def test_an_answer_the_model_gave_another_caller_of_the_hook_is_not_taken_for_this_windows(recorder):
    # the conformance kit calls setveil_anonymize_window itself; the model's answer it left must
    # not make the next window's broken answer, a plugin's, look replaced by a wrapper (mutation
    # review: dropping the pipeline's first take_answer passed every test)
    _, pm, registry = recorder
    configured = registry.configure("coherence", None, {"h": "1", "k": "1", "p": "2"}, Context(schema=ItemSchema()))
    pm.hook.setveil_anonymize_window(model=configured.model, policy=configured.policy,
                                     window=Window.from_transactions([["a"]]), rng=window_rng(0, 0))
    _assert_plugins_error(recorder, WindowOverrider(), "floor",
                          "plugin error: setveil_anonymize_window, implemented by plugin 'floor' and wrapped by plugin "
                          "'recorder', returned Window, not a Release of a Window")


class DelegatingOverrider:
    """Answers for the model itself: hands the window on to the model's own anonymize."""

    @hookimpl
    def setveil_anonymize_window(self, model, policy, window, rng):
        return model.anonymize(window, policy, rng)


def test_a_model_error_an_overriding_plugin_passes_on_stays_the_models(recorder):
    _, pm, registry = recorder
    pm.register(DelegatingOverrider(), name="floor")
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(registry.configure("leaky", None, {"k": "1"}, Context()), pm).run(
            Window.from_transactions([["a"], ["b"], ["c"]]), window_rng(0, 0))
    assert rejected.value.reason == "model error: RuntimeError"


class QuotingModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise KeyError(window.labels(0)[0])


def test_a_models_exception_text_stays_out_of_the_reason(recorder):
    # Regression (review): the reason quoted the exception, and a plugin's KeyError('secret')
    # put a transaction's item into the logs and the dead letter's header.
    rec, pm, registry = recorder
    leaky = registry.configure("leaky", None, {"k": "1"}, Context())
    configured = plugins.Configured(QuotingModel(leaky.model.params, leaky.model.context), leaky.policy, leaky.params,
                                    leaky.context)
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, pm).run(Window.from_transactions([["secret"], ["a"]]), window_rng(0, 0))
    assert rejected.value.reason == rec.rejected[0] == "model error: KeyError"
    assert isinstance(rejected.value.cause, KeyError)


def test_registering_a_model_twice_names_both_distributions(recorder):
    _, pm, _ = recorder

    class Again:
        @hookimpl
        def setveil_register_privacy_models(self, register):
            register(LeakyModel)

    pm.register(Again(), name="again")
    with pytest.raises(PluginError, match="registered twice"):
        plugins.Registry(pm)


def test_a_policy_must_extend_its_models_base(recorder):
    _, pm, _ = recorder

    class Stray(Policy):
        name = "stray"
        model = "coherence"
        summary = "not a coherence policy"

    class Bad:
        @hookimpl
        def setveil_register_policies(self, register):
            register(Stray)

    pm.register(Bad(), name="bad")
    with pytest.raises(PluginError, match="must subclass setveil.plugins.coherence.policies.CoherencePolicy"):
        plugins.Registry(pm)


def test_window_rng_depends_only_on_seed_and_key():
    assert window_rng(1, "t/0/5-9").integers(1 << 30) == window_rng(1, "t/0/5-9").integers(1 << 30)
    assert window_rng(1, 0).integers(1 << 30) != window_rng(2, 0).integers(1 << 30)


class BrokenObserver:
    @hookimpl
    def setveil_window_anonymized(self, window, release, report):
        raise KeyError(window.labels(0)[0])

    @hookimpl
    def setveil_window_rejected(self, window, model, reason):
        raise KeyError(window.labels(0)[0])


def test_an_observer_that_raises_changes_no_outcome_and_quotes_nothing(recorder, caplog):
    # Regression (QA as a security reviewer): an observer's error replaced the window's outcome
    # (a rejection became a crash) and its message could quote the window
    rec, pm, registry = recorder
    pm.register(BrokenObserver(), name="broken-observer")
    good = registry.configure("coherence", None, {"h": "1", "k": "1", "p": "2"}, Context(schema=ItemSchema()))
    outcome = Pipeline(good, pm).run(Window.from_transactions([["secret"], ["b"]]), window_rng(0, 0))
    assert outcome.report["verified"] is True
    leaky = registry.configure("leaky", None, {"k": "2"}, Context())
    with pytest.raises(WindowRejected, match="failed the leaky check"):
        Pipeline(leaky, pm).run(Window.from_transactions([["secret"], ["b"]]), window_rng(0, 0))
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2 and all("raised KeyError" in m and "secret" not in m for m in messages)
    # regression (QA as a plugin author): the observer is named, and pluggy, which calls the last
    # registered first, stopped at its error, so the recorder never heard of either window
    assert all(m.startswith("observer broken-observer of setveil_window_") for m in messages)
    assert len(rec.anonymized) == 1 and len(rec.rejected) == 1


def _with_model(registry, model_class, k: str = "1"):
    leaky = registry.configure("leaky", None, {"k": k}, Context())
    return plugins.Configured(model_class(leaky.model.params, leaky.model.context), leaky.policy, leaky.params, leaky.context)


class CoveringModel(LeakyModel):
    """Removes item 'a' everywhere, then points its input window at the release, so that a check
    against that same object sees nothing removed. Its checker forbids any removal."""

    def anonymize(self, window, policy, rng):
        release = window.suppress(np.array([window.vocab.get("a")]))
        window.indptr, window.indices = release.indptr, release.indices
        return Release(release)

    def violations(self, original, release):
        if release.n_occurrences != original.n_occurrences:
            yield Violation("removed", "an item was removed", ())


class WritingModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        window.indices[:] = window.indices[::-1]
        return Release(window)


class ReenablingModel(CoveringModel):
    """Sets its input writable again and adds an item there (QA re-check: a read-only view of the
    original let this through, since the view's base was writable)."""

    def anonymize(self, window, policy, rng):
        window.indices.flags.writeable = True
        window.indices[window.indices == window.vocab.get("c")] = window.vocab.intern("z")
        return Release(window)


class RelabellingModel(LeakyModel):
    """Swaps two labels of the vocabulary it shares with the original (code review: the check
    looked items up by label while the release was written through the label list, so a release
    that passed the check was written out under other labels)."""

    def anonymize(self, window, policy, rng):
        labels = window.vocab.labels
        i, j = labels.index("b"), labels.index("c")
        labels[i], labels[j] = labels[j], labels[i]
        return Release(window)


def test_a_model_cannot_change_the_window_its_release_is_checked_against(recorder):
    # Regression (QA as a plugin author): the model got the window the check then compared with;
    # a plugin rebinding or writing into it passed the kit, `anonymize` and the service
    rec, pm, registry = recorder
    window = Window.from_transactions([["a", "b"], ["a", "c"]])
    with pytest.raises(WindowRejected, match="failed the leaky check: 1 violation"):
        Pipeline(_with_model(registry, CoveringModel), pm).run(window, window_rng(0, 0))
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, WritingModel), pm).run(window, window_rng(0, 0))
    # QA as a plugin author: "model error: ValueError" alone, where the kit said what to do
    assert rejected.value.reason == (
        "model error: ValueError: anonymize wrote into a read-only array (its input window's are; build a new Window)")
    with pytest.raises(WindowRejected, match="added-item"):
        Pipeline(_with_model(registry, ReenablingModel), pm).run(window, window_rng(0, 0))
    with pytest.raises(WindowRejected, match="model error: TypeError"):
        Pipeline(_with_model(registry, RelabellingModel), pm).run(window, window_rng(0, 0))
    # the model's input has a vocabulary of its own too: the label it interned stays there
    assert list(window) == [["a", "b"], ["a", "c"]] and window.vocab.labels == ("a", "b", "c")
    assert len(rec.rejected) == 4


class BareModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return window


class LossModel(LeakyModel):
    def information_loss(self, original, release):
        raise KeyError(original.labels(0)[0])


class NanLossModel(LeakyModel):
    def information_loss(self, original, release):
        return float("nan")


class LossOfSevenModel(LeakyModel):
    def information_loss(self, original, release):
        return 7


def test_a_model_returning_no_release_or_failing_its_loss_is_rejected_as_its_error(recorder):
    # Regression (QA as a plugin author): both crashed the pipeline outside its fail-closed path
    # (a traceback naming the item on the command line, "service error" in the service) and no
    # observer heard of the rejection
    rec, pm, registry = recorder
    window = Window.from_transactions([["secret"], ["b"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, BareModel), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: anonymize returned Window, not a Release of a Window"
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, LossModel), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: information_loss raised KeyError"
    with pytest.raises(WindowRejected) as rejected:  # QA re-check: NaN made the report invalid JSON
        Pipeline(_with_model(registry, NanLossModel), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: information_loss returned nan"
    assert rec.rejected == [
        "model error: anonymize returned Window, not a Release of a Window",
        "model error: information_loss raised KeyError",
        "model error: information_loss returned nan",
    ]


def test_a_loss_outside_zero_to_one_fails_the_window_closed_as_the_models_error(recorder):
    # Regression (QA): only a finite loss was required, so a third-party model's loss of 7 was
    # released and reported as 7, where the report documents a share and the kit requires one
    rec, pm, registry = recorder
    window = Window.from_transactions([["secret"], ["b"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, LossOfSevenModel), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: information_loss returned 7.0, outside [0, 1]"
    assert not rejected.value.refused and isinstance(rejected.value.__cause__, PluginError)
    assert rec.rejected == ["model error: information_loss returned 7.0, outside [0, 1]"]
    model = _with_model(registry, LossOfSevenModel).model
    for loss in (7, -0.5):  # the whole run's loss, as anonymize --report and bench windows take it
        with pytest.raises(PluginError, match=r"^model 'leaky': information_loss returned -?\d.*, outside \[0, 1\]$"):
            finite_loss(loss, model)
    assert finite_loss(1, model) == 1.0


class SuppressAllModel(LeakyModel):
    """Suppresses every item, and measures the loss as the share of item occurrences removed."""

    def anonymize(self, window, policy, rng):
        return Release(Window.from_transactions([[] for _ in range(len(window))], vocab=window.vocab.copy()))

    def information_loss(self, original, release):
        return 1 - release.n_occurrences / original.n_occurrences


def test_a_window_whose_every_item_is_suppressed_is_released_with_a_loss_of_one(recorder):
    # the bounds of [0, 1] are losses too: suppressing everything is a safe release, to be emitted
    # and reported as a loss of 1, not failed closed as the model's error (mutation review:
    # `0 <= info_loss < 1` passed every test)
    rec, pm, registry = recorder
    outcome = Pipeline(_with_model(registry, SuppressAllModel), pm).run(Window.from_transactions([["a"], ["a", "b"]]),
                                                                        window_rng(0, 0))
    assert outcome.report["info_loss"] == 1.0 and outcome.report["verified"] is True
    assert (outcome.report["items_before"], outcome.report["items_after"]) == (3, 0)
    assert [list(row) for row in outcome.release.window] == [[], []] and rec.rejected == []


class ListStatsModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return Release(window, {}, [len(window)])


def test_a_release_whose_stats_are_no_dict_is_rejected_as_the_models_error(recorder):
    # Regression (QA attacking the conformance kit): anonymize --report crashed on stats.items()
    # with a traceback, after every window was released
    rec, pm, registry = recorder
    window = Window.from_transactions([["a"], ["b"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, ListStatsModel), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: anonymize returned a Release whose stats are a list, not a dict"
    assert rec.rejected == [rejected.value.reason]


class RelaxingModel(LeakyModel):
    """Lowers its own k to 1 before it releases the raw window, so its own check passes it."""

    def anonymize(self, window, policy, rng):
        self.params["k"] = 1
        return Release(window)


class ReplacingModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        self.params = {"k": 1, "extra": True}
        return Release(window)


class DroppingItsParameters(LeakyModel):
    def anonymize(self, window, policy, rng):
        self.params = None
        return Release(window)


@pytest.mark.parametrize("model_class, changed", [(RelaxingModel, "k"), (ReplacingModel, "extra, k"),
                                                  (DroppingItsParameters, "now a NoneType")])
def test_a_model_that_changes_its_parameters_in_anonymize_fails_its_window_closed(recorder, model_class, changed):
    # Regression (QA attacking the conformance kit): the check ran on the same model object, so a
    # model that lowered its own k had its raw window checked at k=1 and released
    rec, pm, registry = recorder
    window = Window.from_transactions([["a"], ["b"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, model_class, k="2"), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == (f"model error: anonymize changed self.params ({changed}), by which its release "
                                     "would have been checked")
    assert rec.rejected == [rejected.value.reason]


class HungryModel(LeakyModel):
    error = MemoryError

    def anonymize(self, window, policy, rng):
        if len(window) == 2:
            raise self.error("Unable to allocate 7.45 GiB for an array with shape (1000000000,)")
        return super().anonymize(window, policy, rng)


class ArrayMemoryError(MemoryError):
    """As numpy's "Unable to allocate" error: a subclass of MemoryError."""


class NumpyHungryModel(HungryModel):
    error = ArrayMemoryError


class ThreadlessModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise RuntimeError("can't start new thread")


class HungryLossModel(LeakyModel):
    def information_loss(self, original, release):
        raise MemoryError


@pytest.mark.parametrize("hungry", [HungryModel, NumpyHungryModel])
def test_a_window_that_runs_out_of_memory_is_rejected_as_such(recorder, hungry):
    # the reason says what ran out, and the service's window process whether it was its limit
    rec, pm, registry = recorder
    window = Window.from_transactions([["a"], ["b"]])
    pipeline = Pipeline(_with_model(registry, hungry), pm)
    with pytest.raises(WindowRejected) as rejected:
        pipeline.run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: MemoryError (out of memory)"
    assert pipeline.ran_out_of_memory
    limited = Pipeline(_with_model(registry, HungryLossModel), pm, memory_limit="model.memory_limit=64 MiB")
    with pytest.raises(WindowRejected) as rejected:
        limited.run(window, window_rng(0, 0))
    assert rejected.value.reason == "model error: information_loss raised MemoryError (over model.memory_limit=64 MiB)"
    assert pipeline.run(Window.from_transactions([["a"]]), window_rng(0, 0)).report["verified"]
    assert not pipeline.ran_out_of_memory, "a window's running out of memory is the next window's too"
    # a thread's stack counts against a memory limit (QA: a ρ pool's threads could not start)
    limited = Pipeline(_with_model(registry, ThreadlessModel), pm, memory_limit="model.memory_limit=64 MiB")
    with pytest.raises(WindowRejected) as rejected:
        limited.run(window, window_rng(0, 0))
    assert rejected.value.reason == ("model error: RuntimeError: can't start new thread (over model.memory_limit=64 "
                                     "MiB, which thread stacks count against)")
    assert limited.ran_out_of_memory
    unlimited = Pipeline(_with_model(registry, ThreadlessModel), pm)
    with pytest.raises(WindowRejected, match="^model error: RuntimeError$"):
        unlimited.run(window, window_rng(0, 0))
    assert not unlimited.ran_out_of_memory


class MutatingObserver:
    @hookimpl
    def setveil_window_anonymized(self, window, release, report):
        release.window.indices[:] = 0


class ReportMutatingObserver:
    """Changes the report and the stats it is shown (QA: they were the pipeline's own dicts, so an
    observer could flip `verified`, drop a key the service reads, or put NaN in the loss)."""

    @hookimpl
    def setveil_window_anonymized(self, release, report):
        report["verified"] = "yes"
        report["info_loss"] = float("nan")
        del report["anonymize_seconds"]
        release.stats["extra"] = 1


def test_observers_cannot_change_the_release_that_is_emitted(recorder, caplog):
    _, pm, registry = recorder
    pm.register(MutatingObserver(), name="mutating-observer")
    configured = registry.configure("coherence", None, {"h": "1", "k": "1", "p": "2"}, Context(schema=ItemSchema()))
    outcome = Pipeline(configured, pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert list(outcome.release.window) == [["a"], ["b"]]
    assert "raised ValueError" in caplog.records[0].getMessage()
    pm.register(ReportMutatingObserver(), name="report-mutating-observer")
    outcome = Pipeline(configured, pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert outcome.report["verified"] is True and outcome.report["info_loss"] == 0.0
    assert "anonymize_seconds" in outcome.report and "extra" not in outcome.release.stats


class StaticLeak(Leaky):
    model = "static"


class StaticModel(LeakyModel):
    """Methods the core calls, written as a static and a class method."""

    name = "static"

    @staticmethod
    def smallest_window():
        return 2

    @classmethod
    def information_loss(cls, original, release):
        return 0.25


class StaticPlugin:
    @hookimpl
    def setveil_register_privacy_models(self, register):
        register(StaticModel)

    @hookimpl
    def setveil_register_policies(self, register):
        register(StaticLeak)


def test_static_and_class_methods_are_callable_models(recorder):
    # regression (review): the start-up signature check read them off the class with a self they
    # do not take, and refused a model that works
    _, pm, _ = recorder
    pm.register(StaticPlugin(), name="static-plugin")
    configured = plugins.Registry(pm).configure("static", None, {"k": "1"}, Context())
    assert configured.model.smallest_window() == 2
    outcome = Pipeline(configured, pm).run(Window.from_transactions([["a"], ["a"]]), window_rng(0, 0))
    assert outcome.report["info_loss"] == 0.25


class ExitingModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise SystemExit(0)


class ExitingChecker(LeakyModel):
    def violations(self, original, release):
        raise SystemExit(0)


def test_a_plugin_calling_sys_exit_fails_the_window_closed(recorder):
    # Regression (QA, adversarial): SystemExit passed through the pipeline; a worker stopped with
    # status 0, logging nothing, and met the same window on every restart
    _, pm, registry = recorder
    window = Window.from_transactions([["a"], ["a"]])
    for model_class, reason in ((ExitingModel, "model error: SystemExit"), (ExitingChecker, "checker error: SystemExit")):
        with pytest.raises(WindowRejected) as rejected:
            Pipeline(_with_model(registry, model_class), pm).run(window, window_rng(0, 0))
        assert rejected.value.reason == reason and not rejected.value.refused


class ExitingObserver:
    @hookimpl
    def setveil_window_anonymized(self):
        raise SystemExit(0)


def test_an_observer_calling_sys_exit_changes_no_outcome(recorder, caplog):
    rec, pm, registry = recorder
    pm.register(ExitingObserver(), name="exiting-observer")
    outcome = Pipeline(_with_model(registry, LeakyModel), pm).run(Window.from_transactions([["a"]]), window_rng(0, 0))
    assert outcome.report["verified"] is True and len(rec.anonymized) == 1
    assert caplog.records[0].getMessage().endswith("raised SystemExit; the window's outcome stands")


class InterruptedModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise KeyboardInterrupt


def test_ctrl_c_during_anonymize_stops_the_run_rather_than_rejecting_the_window(recorder):
    # in the main thread of a process signals reach, a KeyboardInterrupt is the user's
    rec, pm, registry = recorder
    with pytest.raises(KeyboardInterrupt):
        Pipeline(_with_model(registry, InterruptedModel), pm).run(Window.from_transactions([["a"]]), window_rng(0, 0))
    assert rec.rejected == []


class InterruptedObserver:
    @hookimpl
    def setveil_window_anonymized(self):
        raise KeyboardInterrupt


def test_ctrl_c_while_an_observer_hears_of_a_window_stops_the_run(recorder, caplog):
    # an observer's errors change no outcome, but in the main thread a KeyboardInterrupt is the
    # user's Ctrl-C, which no plugin may swallow (mutation review: logging it as the observer's
    # error passed every test)
    _, pm, registry = recorder
    pm.register(InterruptedObserver(), name="interrupted-observer")
    with pytest.raises(KeyboardInterrupt):
        Pipeline(_with_model(registry, LeakyModel), pm).run(Window.from_transactions([["a"]]), window_rng(0, 0))
    assert not caplog.records


class StringChecker(LeakyModel):
    def violations(self, original, release):
        yield "rare: a"


class IdChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", "an item is rarer than k", (0,))


class NegativePositionChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", "an item is rarer than k", ("a",), -5)


class StrItemsetChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", "an item is rarer than k", "ab")


class IdTargetChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", "an item is rarer than k", ("a",), None, 0)


class NumberSummaryChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", 3)


class BoolPositionChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", "an item is rarer than k", ("a",), True)


class PastTheEndChecker(LeakyModel):
    def violations(self, original, release):
        yield Violation("rare", "an item is rarer than k", ("a",), len(release))


def test_a_checker_that_yields_no_violation_of_labels_fails_the_window_closed_and_says_so(recorder):
    # Regression (QA as a plugin author): a checker yielding a string made the pipeline raise
    # AttributeError outside its error handling (the service called it its own error); one
    # yielding item ids made describe() raise TypeError in `setveil verify` (exit 1, as if it failed)
    _, pm, registry = recorder
    window = Window.from_transactions([["a"], ["b"]])
    for model_class, problem in ((StringChecker, "a str, not a Violation"),
                                 (IdChecker, "a Violation whose itemset holds an int, not labels (str): map ids with "
                                             "window.vocab"),
                                 # the same re-check: verify printed "transaction -5"
                                 (NegativePositionChecker, "a Violation whose transaction is outside the "
                                                           "window's 2 positions"),
                                 (PastTheEndChecker, "a Violation whose transaction is outside the window's 2 positions"),
                                 (BoolPositionChecker, "a Violation whose transaction is a bool, not a position (int)"),
                                 # describe() would show "itemset {a, b}" and "-> 0"
                                 (StrItemsetChecker, "a Violation whose itemset is a str, not a tuple of labels"),
                                 (IdTargetChecker, "a Violation whose target is an int, not a str"),
                                 (NumberSummaryChecker, "a Violation whose summary is an int, not a str")):
        with pytest.raises(WindowRejected) as rejected:
            Pipeline(_with_model(registry, model_class), pm).run(window, window_rng(0, 0))
        assert rejected.value.reason == f"checker error: model 'leaky': its checker yielded {problem}"
        assert not rejected.value.refused


class QuietChecker(LeakyModel):
    def violations(self, original, release):
        if len(release) > 5:
            return [Violation("rare", "an item is rarer than k")]
        return None


def test_a_checker_that_returns_no_iterable_fails_the_window_naming_what_it_returned(recorder):
    # Regression (QA as a plugin author): a checker that ends in `return` when it finds nothing
    # returns None, which failed every window as a bare "checker error: TypeError"
    _, pm, registry = recorder
    window = Window.from_transactions([["a"], ["b"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, QuietChecker), pm).run(window, window_rng(0, 0))
    assert rejected.value.reason == ("checker error: model 'leaky': its checker returned a NoneType, not an iterable "
                                     "of Violations (yield each one, or return a list, empty when the release holds)")


class ContractQuoting(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise ContractError(f"secret label {window.vocab.label(0)}")


class ContractQuotingChecker(LeakyModel):
    def violations(self, original, release):
        raise ContractError(f"secret label {original.vocab.label(0)}")


class ContractRewording(LeakyModel):
    def anonymize(self, window, policy, rng):
        try:  # a contract error setveil made, given other words and raised again
            list(release_violations(self, window, window, self.context))
        except ContractError as exc:
            exc.args = (f"secret label {window.vocab.label(0)}",)
            raise

    def violations(self, original, release):
        yield "not a Violation"


class WordsOfItsOwn(SetveilError):
    """A plugin's error keeping the words it counted, under the name setveil gives its own error's words."""

    def __init__(self, words):
        super().__init__(f"{len(words)} words")
        self.words = words


class CountingWords(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise WordsOfItsOwn([window.vocab.label(0)])


def test_a_contract_error_a_plugin_raises_is_named_by_its_type_alone(recorder):
    # Regression (QA re-check): setveil gives the words of its own contract errors as the reason;
    # a plugin that raised the class itself got "checker error: secret label HIV" into the log
    _, pm, registry = recorder
    window = Window.from_transactions([["HIV"], ["HIV"]])
    for model_class, reason in ((ContractQuoting, "model error: ContractError"),
                                (ContractQuotingChecker, "checker error: ContractError"),
                                (ContractRewording, "model error: model 'leaky': its checker yielded a str, not a "
                                                    "Violation"),
                                # the mutation pass: only setveil's own code sets an error's words, as
                                # text; a plugin's own list of labels there was given when not told apart
                                (CountingWords, "model error: WordsOfItsOwn")):
        with pytest.raises(WindowRejected) as rejected:
            Pipeline(_with_model(registry, model_class), pm).run(window, window_rng(0, 0))
        assert rejected.value.reason == reason
    with pytest.raises(PluginError, match=r"^model 'leaky': its checker raised ContractError$"):
        with plugins.plugin_errors("model 'leaky': its checker"):
            list(ContractQuotingChecker({"k": 1}, Context()).violations(window, window))


class InfeasibleLoss(LeakyModel):
    def information_loss(self, original, release):
        raise Infeasible("not the model's refusal")


def test_only_anonymize_refuses_a_window(recorder):
    # Regression (QA, adversarial): an Infeasible raised by the loss or the checker was counted as
    # the model finding no safe release (cause infeasible)
    _, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, InfeasibleLoss), pm).run(Window.from_transactions([["a"], ["a"]]), window_rng(0, 0))
    assert rejected.value.reason == "model error: information_loss raised Infeasible" and not rejected.value.refused
    leaky = registry.configure("leaky", None, {"k": "1"}, Context())
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(leaky, pm).run(Window.from_transactions([["a"], ["b"], ["c"]]), window_rng(0, 0))
    assert rejected.value.refused is False  # LeakyModel raises RuntimeError for three transactions


class _UnreadableScores:
    def __array__(self, dtype=None, copy=None):
        raise TypeError("HIV")


@pytest.mark.parametrize("returned, problem", [
    (lambda mm: np.zeros(1), "returned shape (1,) (ndarray) for 3 candidates; it must return one number per "
                             "candidate"),
    (lambda mm: None, "returned object values (NoneType), not real numbers"),
    (lambda mm: mm * 1j, "returned complex128 values (ndarray), not real numbers"),
    # the QA re-check: strings of digits and booleans were read as numbers
    (lambda mm: ["1"] * len(mm), "returned str32 values (list), not real numbers"),
    (lambda mm: [True] * len(mm), "returned bool values (list), not real numbers"),
    (lambda mm: [10 ** 400] * len(mm), "returned object values (list), not real numbers"),
    (lambda mm: np.full(len(mm), np.nan), "returned 3 scores that are NaN or infinite for 3 candidates"),
    (lambda mm: np.array([1.0, np.inf, -np.inf]), "returned 2 scores that are NaN or infinite for 3 candidates"),
    # one row per candidate, but two numbers in each: the greedy's argmax would run past the candidates
    (lambda mm: np.zeros((len(mm), 2)), "returned shape (3, 2) (ndarray) for 3 candidates; it must return one "
                                        "number per candidate"),
    # what numpy cannot even read as an array is named by its type, never its value (coverage pass)
    (lambda mm: [[1.0]] + [[1.0, 2.0]] * (len(mm) - 1), "returned list, not real numbers"),
    (lambda mm: _UnreadableScores(), "returned _UnreadableScores, not real numbers"),
])
def test_a_coherence_policy_whose_scores_do_not_fit_its_candidates_fails_the_window_closed(returned, problem):
    # Regression (QA as a plugin author): a third party's score of the wrong length, or of NaNs,
    # chose the first candidate in silence and the window was released
    from setveil.plugins.coherence.policies import CoherencePolicy

    class Odd(CoherencePolicy):
        name = "odd"
        summary = "scores that do not fit"

        def score(self, mm, il):
            return returned(mm)

    configured = plugins.get_registry().configure("coherence", None, {"h": "1", "k": "2", "p": "2"},
                                                  Context(schema=ItemSchema()))
    configured.policy = Odd({})
    # a b, a c and b c are held by one transaction each: three size-2 moles over the candidates a, b, c
    window = Window.from_transactions([["a", "b"], ["a", "c"], ["b", "c"], ["a"], ["b"], ["c"]])
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, plugins.get_plugin_manager()).run(window, window_rng(0, 0))
    assert rejected.value.reason == f"model error: policy 'odd' of model 'coherence': score {problem}"
    assert not rejected.value.refused


class _Sneaky(Window):
    """A release whose copy is itself, so that writing into it later would reach what is emitted."""

    def read_only_copy(self):
        return self


class KeepsItsRelease(LeakyModel):
    """Releases the window with every item of support 1 removed, keeps the release, and writes
    the input's items back into it and renames its labels once the window is out (QA re-check
    as a hostile plugin author: a Window subclass and a vocabulary renamed by an observer
    emitted suppressed items, verified)."""

    def anonymize(self, window, policy, rng):
        kept = window.suppress(np.flatnonzero(window.supports < 2))
        self.kept = _Sneaky(kept.vocab, kept.indptr.copy(), kept.indices.copy(), kept.tids)
        return Release(self.kept)


def test_what_is_emitted_is_fixed_when_anonymize_returns(recorder):
    rec, pm, registry = recorder
    configured = _with_model(registry, KeepsItsRelease)
    outcome = Pipeline(configured, pm).run(Window.from_transactions([["a", "b"], ["a", "c"]]), window_rng(0, 0))
    sneaky = configured.model.kept
    sneaky.indices.flags.writeable = True
    sneaky.indices[:] = sneaky.vocab.intern("secret")
    sneaky.vocab._labels[sneaky.vocab.get("a")] = "renamed"
    assert list(outcome.release.window) == [["a"], ["a"]]


class _TwoFaced(Window):
    """Shows the raw window until its items are first read, then a safe release of it."""

    def __init__(self, raw, safe):
        self.vocab, self.tids = raw.vocab, None
        self._faces, self._shown = (raw, safe), False

    @property
    def indptr(self):
        return self._faces[self._shown].indptr

    @property
    def indices(self):
        face = self._faces[self._shown]
        self._shown = True
        return face.indices


class TwoFacedModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        rare = np.flatnonzero(window.supports < self.params["k"])
        return Release(_TwoFaced(window, window.suppress(rare)))


def test_the_check_judges_the_release_that_is_emitted(recorder):
    # QA as a hostile plugin author: a release read twice, once to emit and once to check, could
    # show each reading another window
    rec, pm, registry = recorder
    with pytest.raises(WindowRejected, match="failed the leaky check: 2 violation"):
        Pipeline(_with_model(registry, TwoFacedModel, k="2"), pm).run(
            Window.from_transactions([["a", "b"], ["a", "c"]]), window_rng(0, 0))
    assert rec.anonymized == []


class DoublesALabel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return _doubled(window)


def test_a_release_over_a_vocabulary_with_a_label_twice_fails_its_window_closed(recorder):
    rec, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, DoublesALabel), pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert rejected.value.reason == ("model error: anonymize returned a Release whose window cannot be copied: the "
                                     "release's vocabulary holds a label that is not a str, or one label twice")


def test_no_two_seeds_draw_alike_for_any_windows():
    # Regression (QA sweeping bounds): numpy reads [seed, key] as one zero-padded list of 32-bit
    # words, so seed 2**32 drew for window 0 what seed 0 draws for window 1; seeds are 32-bit now
    keys = [0, 1, 2, 2**32, 2**63, "in/0/0-9", "in/0/10-19"]
    first = {(seed, key): window_rng(seed, key).integers(2**63) for seed in (0, 1, 2**32 - 1) for key in keys}
    assert len(set(first.values())) == len(first)
    with pytest.raises(ValueError, match=r"seed 4294967296 is not in \[0, 2\*\*32 - 1\]"):
        window_rng(2**32, 0)
    with pytest.raises(ValueError, match=r"seed -1 is not in \[0, 2\*\*32 - 1\]"):
        window_rng(-1, 0)


class NoWindowModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return Release(list(window))


class ShortModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return _short(window)


class UnmeasuredModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return _unmeasured(window)


@pytest.mark.parametrize("verify", [True, False])
@pytest.mark.parametrize("model_class, reason", [
    (NoWindowModel, "model error: anonymize returned a Release of list, not a Release of a Window"),
    (ShortModel, "model error: anonymize returned a Release of 1 transaction for 2 in the window"),
])
def test_a_release_that_is_no_window_of_the_inputs_length_is_rejected_unchecked_or_not(recorder, model_class, reason,
                                                                                      verify):
    # --no-verify skips the model's check, not these: a shorter release emitted would misalign
    # every later transaction with its input line
    rec, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, model_class), pm, verify=verify).run(
            Window.from_transactions([["a"], ["b", "a"]]), window_rng(0, 0))
    assert rejected.value.reason == reason and isinstance(rejected.value.__cause__, PluginError)
    assert rec.rejected == [reason]


@pytest.mark.parametrize("verify", [True, False])
def test_a_release_whose_length_cannot_be_read_fails_its_window_closed_as_its_returners_error(recorder, verify):
    # Regression: a Window subclass whose len() raised ended the run in that exception, naming no
    # one, where a release of the wrong length names who returned it
    rec, pm, registry = recorder
    reason = "model error: anonymize returned a Release whose window's length cannot be read: ValueError"
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, UnmeasuredModel), pm, verify=verify).run(
            Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert rejected.value.reason == reason and isinstance(rejected.value.__cause__, ValueError)
    assert rec.rejected == [reason]


class DroppingModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return Release(window.suppress(np.array([window.vocab.get("b")])))

    def information_loss(self, original, release):
        return 1 - release.n_occurrences / original.n_occurrences


def test_the_report_counts_the_released_items_and_says_whether_they_were_checked(recorder):
    # docs/cli.md: items_after counts the release's occurrences, a window's seconds are its anonymize
    # and verify seconds summed, and verified is false under --no-verify
    _, pm, registry = recorder
    window = Window.from_transactions([["a", "b"], ["b"], ["a"]])
    for verify in (True, False):
        report = Pipeline(_with_model(registry, DroppingModel), pm, verify=verify).run(window, window_rng(0, 0)).report
        assert (report["transactions"], report["items_before"], report["items_after"]) == (3, 4, 2)
        assert report["verified"] is verify and report["info_loss"] == 0.5
        assert report["seconds"] == pytest.approx(report["anonymize_seconds"] + report["verify_seconds"], rel=1e-9)


class Listening:
    def __init__(self, heard, name):
        self.heard, self.name = heard, name

    @hookimpl
    def setveil_window_anonymized(self, report):
        self.heard.append(self.name)


def test_observers_hear_of_a_window_in_pluggys_order(recorder):
    # docs/plugins.md: the pipeline calls them one by one to survive a raising one, in the order
    # pluggy would (the last registered first)
    _, pm, registry = recorder
    heard = []
    for name in ("first", "second", "third"):
        pm.register(Listening(heard, name), name=name)
    pm.hook.setveil_window_anonymized(window=None, release=None, report={})
    expected, heard[:] = list(heard), []
    Pipeline(_with_model(registry, LeakyModel), pm).run(Window.from_transactions([["a"]]), window_rng(0, 0))
    assert heard == expected == ["third", "second", "first"]


class ReenablingObserver:
    """Sets the arrays it is shown writable again and writes into them (as ReenablingModel does
    to its input): the release emitted and the caller's window must not change."""

    @hookimpl
    def setveil_window_anonymized(self, window, release):
        for shown in (window, release.window):
            shown.indices.flags.writeable = True
            shown.indices[:] = shown.vocab.intern("secret")

    @hookimpl
    def setveil_window_rejected(self, window):
        window.indices.flags.writeable = True
        window.indices[:] = window.vocab.intern("secret")


def test_an_observer_that_makes_its_arrays_writable_changes_no_window_but_its_own(recorder):
    _, pm, registry = recorder
    pm.register(ReenablingObserver(), name="reenabling-observer")
    window = Window.from_transactions([["a"], ["a", "b"]])
    outcome = Pipeline(_with_model(registry, LeakyModel), pm).run(window, window_rng(0, 0))
    assert list(outcome.release.window) == list(window) == [["a"], ["a", "b"]]
    with pytest.raises(WindowRejected):
        Pipeline(_with_model(registry, LeakyModel, k="2"), pm).run(window, window_rng(0, 0))
    assert list(window) == [["a"], ["a", "b"]]


class WritingChecker(LeakyModel):
    def violations(self, original, release):
        original.indices[:] = release.indices
        return iter(())


class WritingLossModel(LeakyModel):
    def information_loss(self, original, release):
        original.indices[:] = 0
        return 0.0


@pytest.mark.parametrize("model_class, reason", [
    # the original a checker is given is the caller's window, whose loss and observers come after it
    (WritingChecker, "checker error: ValueError: the checker wrote into a read-only array (the windows it is given "
                     "are; compute on a copy)"),
    (WritingLossModel, "model error: information_loss raised ValueError: information_loss wrote into a read-only array "
                       "(the windows it is given are; compute on a copy)"),
])
def test_a_check_or_loss_cannot_write_into_the_windows_it_is_given(recorder, model_class, reason):
    _, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, model_class), pm).run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    assert rejected.value.reason == reason


class RestatingLossModel(LeakyModel):
    """Keeps the stats it returned and rewrites them when asked for its loss."""

    def anonymize(self, window, policy, rng):
        self.stats = {"deletions": 1}
        return Release(window, {}, self.stats)

    def information_loss(self, original, release):
        self.stats["deletions"] = 99
        return 0.0


def test_stats_rewritten_after_anonymize_change_no_outcome(recorder):
    _, pm, registry = recorder
    outcome = Pipeline(_with_model(registry, RestatingLossModel), pm).run(Window.from_transactions([["a"], ["b"]]),
                                                                          window_rng(0, 0))
    assert outcome.release.stats == outcome.report["stats"] == {"deletions": 1}


class RestatingChecker(LeakyModel):
    """Keeps the details and stats it returned and rewrites them when its release is checked."""

    def anonymize(self, window, policy, rng):
        self.details, self.stats = {"suppressed": ["a"]}, {"deletions": 1}
        return Release(window, self.details, self.stats)

    def violations(self, original, release):
        self.details["suppressed"].append("b")
        self.stats["deletions"] = 99
        return iter(())


def test_details_and_stats_rewritten_by_the_models_checker_change_no_outcome(recorder):
    # Regression (QA): they were copied after the check, so the model's checker could rewrite
    # what was reported, what observers were shown and what the caller got
    rec, pm, registry = recorder
    outcome = Pipeline(_with_model(registry, RestatingChecker), pm).run(Window.from_transactions([["a"], ["b"]]),
                                                                        window_rng(0, 0))
    assert outcome.release.details == {"suppressed": ["a"]}
    assert outcome.release.stats == outcome.report["stats"] == rec.anonymized[0]["stats"] == {"deletions": 1}


class RestoringChecker(LeakyModel):
    """Releases its window without the rare b, in arrays it keeps, and writes b into them when its
    release is checked."""

    def anonymize(self, window, policy, rng):
        self.indices = np.zeros(2, dtype=np.int32)  # [[a], [a]]
        return Release(Window(window.vocab, np.array([0, 1, 2]), self.indices, window.tids))

    def violations(self, original, release):
        self.indices[1] = original.vocab.get("b")  # [[a], [b]]
        return iter(())


class ReleaseObserver:
    def __init__(self):
        self.shown = []

    @hookimpl
    def setveil_window_anonymized(self, release, report):
        self.shown.append(list(release.window))


def test_a_release_rewritten_by_the_models_checker_is_shown_to_observers_as_checked(recorder):
    # mutation pass: the release observers are shown (and the loss is computed on) copied from the
    # model's own after the check, not from the copy checked and emitted, survived: they were shown
    # the b its checker wrote into transaction 1
    _, pm, registry = recorder
    observer = ReleaseObserver()
    pm.register(observer, name="release-observer")
    outcome = Pipeline(_with_model(registry, RestoringChecker, "2"), pm).run(
        Window.from_transactions([["a", "b"], ["a"]]), window_rng(0, 0))
    assert list(outcome.release.window) == observer.shown[0] == [["a"], ["a"]]


class KeepsItsDetails(LeakyModel):
    """Reuses one details dict and one stats dict for every window, as a buffer."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.details, self.stats = {"suppressed": []}, {"deletions": 0}

    def anonymize(self, window, policy, rng):
        self.details["suppressed"].append(str(len(window)))
        self.stats["deletions"] += 1
        return Release(window, self.details, self.stats)


class RewritingObserver:
    def __init__(self):
        self.shown = []

    @hookimpl
    def setveil_window_anonymized(self, release, report):
        self.shown.append((release.details, release.stats, report["stats"]))
        release.details["suppressed"].append("observer")
        release.stats["deletions"] = -1
        report["stats"]["deletions"] = -2


def test_the_model_and_observers_each_change_only_their_own_details_and_stats(recorder):
    _, pm, registry = recorder
    observer = RewritingObserver()
    pm.register(observer, name="rewriting-observer")
    configured = _with_model(registry, KeepsItsDetails)
    pipeline = Pipeline(configured, pm)
    first = pipeline.run(Window.from_transactions([["a"], ["b"]]), window_rng(0, 0))
    second = pipeline.run(Window.from_transactions([["a"], ["b"], ["c"], ["d"]]), window_rng(0, 1))
    assert first.release.details == {"suppressed": ["2"]} and first.release.stats == first.report["stats"] == {
        "deletions": 1}
    assert second.release.details == {"suppressed": ["2", "4"]} and second.report["stats"] == {"deletions": 2}
    assert configured.model.details == {"suppressed": ["2", "4"]}
    details, stats, reported = observer.shown[0]
    assert details == {"suppressed": ["2", "observer"]} and stats == {"deletions": -1} and reported == {"deletions": -2}
    assert stats is not reported


class ShiftyStats(dict):
    """Stats that pass for a dict until they are copied."""

    def __deepcopy__(self, memo):
        return ["deletions", 1]


class ShiftyStatsModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return Release(window, {}, ShiftyStats(deletions=1))


def test_stats_that_copy_as_no_dict_fail_the_window_closed(recorder):
    # Regression (QA): the check that the stats are a dict read the model's own, and what was
    # reported (and summed by --report) was their copy, a list
    rec, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, ShiftyStatsModel), pm).run(Window.from_transactions([["a"], ["b"]]),
                                                                  window_rng(0, 0))
    assert rejected.value.reason == ("model error: anonymize returned a Release whose stats are a ShiftyStats that "
                                     "does not copy as a dict")
    assert rec.anonymized == []


class Unlocked:
    """An object whose deep copy raises an error whose message names an item."""

    def __deepcopy__(self, memo):
        raise KeyError("HIV")


class UncopiedDetails(LeakyModel):
    def anonymize(self, window, policy, rng):
        return Release(window, {"suppressed": [Unlocked()]} if len(window) == 2 else {}, {"lock": threading.Lock()})


@pytest.mark.parametrize("size", [2, 4])
def test_details_or_stats_that_cannot_be_copied_fail_the_window_closed(recorder, size):
    # Regression (QA): deepcopy's error left Pipeline.run as it was, message and all, and the
    # window went to no observer of rejected windows
    rec, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, UncopiedDetails), pm).run(Window.from_transactions([["a"]] * size),
                                                                 window_rng(0, 0))
    named = "KeyError" if size == 2 else "TypeError"
    assert rejected.value.reason == ("model error: anonymize returned a Release whose details or stats cannot be "
                                     f"copied: {named}")
    assert rec.rejected == [rejected.value.reason] and rec.anonymized == []


class WordyError(Exception):
    """A plugin's own error carrying a `words` attribute, as setveil's errors do."""

    words = "secret label HIV"


class WordyModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        raise WordyError()


def test_only_setveils_errors_give_their_words_as_a_reason(recorder):
    _, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, WordyModel), pm).run(Window.from_transactions([["a"]]), window_rng(0, 0))
    assert rejected.value.reason == "model error: WordyError"


class RepeatingModel(LeakyModel):
    def anonymize(self, window, policy, rng):
        return Release(Window(window.vocab, [0, 2], [0, 0]))


def test_a_release_listing_an_item_twice_fails_even_a_checker_that_only_counts(recorder):
    # the core's structural check runs before the model's: this one's supports would count a twice
    _, pm, registry = recorder
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(_with_model(registry, RepeatingModel, k="2"), pm).run(Window.from_transactions([["a"]]),
                                                                        window_rng(0, 0))
    assert rejected.value.reason == ("release failed the leaky check: 1 violation; first: malformed: a released "
                                     "transaction lists an item twice or out of order (setveil_anonymize_window is "
                                     "wrapped by plugin 'recorder')")
