"""One window through a configured model: anonymize, check independently, report or reject.

This is the fail-closed path shared by the offline CLI and the streaming service: a window's
release leaves :meth:`Pipeline.run` only when :func:`~setveil.core.verify.release_violations`
(the core's structural checks, then ``model.violations``) finds nothing; otherwise
:class:`WindowRejected` carries a reason that is safe to log.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import io
import logging
import math
import pickle
import threading
import time
import types
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
import pluggy

from . import builtin
from .deferred import import_model_modules
from .errors import Infeasible, PluginError, WindowRejected, counted, own_words, wrote_read_only
from .model import PrivacyModel, Release
from .plugins import Configured, is_wrapper
from .verify import release_violations
from .window import Window, detached


log = logging.getLogger("setveil")


def notify(observers: pluggy.HookCaller, **kwargs: Any) -> None:
    """Call every implementation of an observer hook (``setveil_window_anonymized``,
    ``setveil_window_rejected``) on its own, in pluggy's order: one that raises is logged by its
    plugin's name and the type of its error alone (its message may quote the window) and changes
    nothing, so that a broken metrics plugin can neither emit a window, nor stop a worker, nor
    keep the other observers from hearing of the window (pluggy stops at the first error). A
    KeyboardInterrupt passes only where it can be the user's (:func:`user_stop`)."""
    for impl in reversed(observers.get_hookimpls()):  # no wrappers: the plugin loader refuses them here
        try:
            impl.function(*(kwargs[name] for name in impl.argnames))
        except BaseException as exc:
            if user_stop(exc):
                raise
            log.error("observer %s of %s raised %s; the window's outcome stands", impl.plugin_name, observers.name,
                      type(exc).__name__)


@dataclass
class Outcome:
    release: Release
    report: dict[str, Any]


#: set in a service's window process (:func:`in_window_process`)
_window_process = False


def in_window_process() -> None:
    """Say that this process anonymizes a service's windows: a process group of its own, which
    no Ctrl-C or stop signal reaches."""
    global _window_process
    _window_process = True


def user_stop(exc: BaseException) -> bool:
    """Whether ``exc`` is the user stopping setveil (Ctrl-C, or a stop signal raised as one), which
    plugin code must let pass: a KeyboardInterrupt in the main thread of a process signals
    reach. Elsewhere (a service's window thread or window process) plugin code raised it, and
    it is that code's error like any other: passing it ended the worker, which handed the same
    window to the next one (QA as a hostile plugin author)."""
    return (isinstance(exc, KeyboardInterrupt) and not _window_process
            and threading.current_thread() is threading.main_thread())


def window_rng(seed: int, key: int | str) -> np.random.Generator:
    """The generator for one window: a function of the run's seed and the window's key only. The
    seed is within 32 bits: numpy reads [seed, key] as one list of 32-bit words, zero-padded, so
    seed 2**32 would draw for key 0 what seed 0 draws for key 1."""
    if not 0 <= seed < 2**32:
        raise ValueError(f"seed {seed} is not in [0, 2**32 - 1]")
    if isinstance(key, str):
        key = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng([seed, key])


#: CPython's whole message when a thread cannot be started (no memory for its stack, or no more threads)
THREAD_NOT_STARTED = "can't start new thread"


def memory_note(limit: str | None) -> str:
    """What a window's reason says after MemoryError, under ``limit`` (as the reason names it) or none."""
    return f"over {limit}" if limit else "out of memory"


def overriders_note(hook: pluggy.HookRelay) -> str:
    """When plugins besides the core implement setveil_anonymize_window, a note naming them: a
    release that fails the check may be theirs rather than the model's. Wrappers are named apart:
    most only time the call, but one may replace its result (QA)."""
    impls = [impl for impl in hook.setveil_anonymize_window.get_hookimpls() if impl.plugin is not builtin]
    # a plugin may implement the hook more than once (specname), and is named once
    answers = list(dict.fromkeys(impl.plugin_name for impl in impls if not is_wrapper(impl)))
    wrappers = list(dict.fromkeys(impl.plugin_name for impl in impls if is_wrapper(impl)))
    parts = ([f"also implemented by plugin {', '.join(map(repr, answers))}"] if answers else []) + (
        [f"wrapped by plugin {', '.join(map(repr, wrappers))}"] if wrappers else [])
    return f" (setveil_anonymize_window is {' and '.join(parts)})" if parts else ""


def _plugin_raising(exc: BaseException, hook: pluggy.HookCaller, model: PrivacyModel[Any]) -> pluggy.HookImpl | None:
    """The plugin's implementation of ``hook`` (a wrapper, or one answering in place of the
    model) whose own code raised ``exc``, if one did: of the hook's implementations and the
    model's ``anonymize`` in the traceback, the innermost is where it was raised (an error a
    wrapper lets pass keeps the frames of the implementation below it, one it raises starts in
    it; a plugin that hands a window on to ``model.anonymize`` passes the model's errors on)."""
    impls = hook.get_hookimpls()
    raising = None
    tb = exc.__traceback__
    while tb is not None:
        if _runs(model.anonymize, tb.tb_frame):
            raising = None
        else:
            raising = next((impl for impl in impls if _runs(impl.function, tb.tb_frame)), raising)
        tb = tb.tb_next
    return raising if raising is not None and raising.plugin is not builtin else None


def _runs(callable_: Any, frame: types.FrameType) -> bool:
    """Whether ``frame`` runs ``callable_``: its code, and for a method its instance, since two
    plugins may be instances of one class (adversarial pass: of two timers, the one registered
    last was named for the other's error)."""
    function = inspect.unwrap(getattr(callable_, "__func__", callable_))
    if getattr(function, "__code__", None) is not frame.f_code:
        return False
    instance = getattr(callable_, "__self__", None)
    code = frame.f_code
    # a decorator's (*args, **kwargs) holds the instance where it cannot be read: its code decides
    return instance is None or code.co_argcount == 0 or frame.f_locals.get(code.co_varnames[0]) is instance


def _changed(before: dict[str, Any], after: object) -> str:
    """The names of the parameters ``after`` differs from ``before`` in (or what it became)."""
    if not isinstance(after, dict):
        return f"now a {type(after).__name__}"
    return ", ".join(sorted(set(before) ^ set(after) | {name for name in before if after.get(name) != before[name]}))


class _NotPlain(Exception):
    """Raised by :class:`_PlainPickler` at an object of a type it does not write itself."""


class _PlainPickler(pickle.Pickler):
    """Writes None, bools and exact ints, floats, strs, bytes, bytearrays, dicts, lists, tuples,
    sets and frozensets, which the C pickler writes itself, and refuses every other object in
    ``reducer_override``, which it asks about each of them before any reduction of its own runs."""

    def reducer_override(self, obj: Any) -> Any:
        raise _NotPlain


def independent_copies(value: Any, count: int) -> list[Any]:
    """``count`` deep copies of ``value``, sharing nothing with it or each other. Details and
    stats of those types are pickled once and read back ``count`` times, in C: deepcopy, which
    memoizes every object in Python, took 1.2 ms for each copy of sanitize's details of a window
    of retail (a list of labels for each of ~600 patterns), pickling them 0.06 ms and reading
    them back 0.2 ms. Objects shared or cyclic stay so, as deepcopy keeps them. Anything else is
    copied by deepcopy, which may run its own code (``__deepcopy__``, ``__reduce_ex__``), and so
    is a nesting deeper than the C pickler goes (748 levels on Python 3.12, whatever the
    recursion limit deepcopy follows)."""
    written = io.BytesIO()
    try:
        _PlainPickler(written, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    except (_NotPlain, RecursionError):
        return [copy.deepcopy(value) for _ in range(count)]
    data = written.getvalue()
    return [pickle.loads(data) for _ in range(count)]


class Pipeline:
    """A configured model and policy with the hooks around them."""

    def __init__(self, configured: Configured, pm: pluggy.PluginManager, *, verify: bool = True,
                 memory_limit: str | None = None):
        self.configured = configured
        self.model = configured.model
        self.policy = configured.policy
        self.hook = pm.hook
        self.verify = verify
        #: the memory limit this process runs under, as a window's reason names it, if any
        self.memory_limit = memory_limit
        #: whether the last window failed on MemoryError, after which a process may be left fragmented
        self.ran_out_of_memory = False
        #: the model's parameters as configured: the check judges a release by them
        self._params = copy.deepcopy(self.model.params)
        import_model_modules()  # a window process's model came pickled, without its configure

    def run(self, window: Window, rng: np.random.Generator) -> Outcome:
        """Anonymize and check one window; raise :class:`WindowRejected` when it fails closed."""
        started = time.perf_counter()
        self.ran_out_of_memory = False
        given, = detached(window)  # the check compares against `window`, which no plugin holds
        builtin.take_answer()  # another caller of the hook (the conformance kit) may have left one
        try:
            release = self.hook.setveil_anonymize_window(model=self.model, policy=self.policy, window=given, rng=rng)
        except Infeasible as exc:
            self._reject(window, f"infeasible: {exc.reason}", exc, refused=True)
        except BaseException as exc:  # the model erred: nothing of this window may be emitted
            self._pass_stop(exc)  # a GeneratorExit out of a call is plugin code's, as any other error
            # A plugin's message may quote the data (KeyError('HIV')), and the reason is logged and
            # sent with the dead letter; the exception stays chained as the cause, never logged.
            plugin = _plugin_raising(exc, self.hook.setveil_anonymize_window, self.model)
            if plugin is not None:
                role = "wrapper" if is_wrapper(plugin) else "plugin"
                named = self._out_of_memory(exc) or own_words(exc) or wrote_read_only(exc, f"the {role}") or type(exc).__name__
                self._reject(window, f"{role} error: plugin {plugin.plugin_name!r} raised {named}", exc)
            named = (self._out_of_memory(exc) or own_words(exc)
                     or wrote_read_only(exc, "anonymize", "its input window's are; build a new Window") or type(exc).__name__)
            self._reject(window, f"model error: {named}", exc)
        finally:
            answer = builtin.take_answer()
        anonymized = time.perf_counter()
        if self.model.params != self._params:
            # the check runs on this same model: one that lowered its own k in anonymize had its
            # raw window pass its own check (QA attacking the conformance kit)
            self._broken(window, f"model error: anonymize changed self.params ({_changed(self._params, self.model.params)}), "
                                 "by which its release would have been checked")
        returned = self._returner(answer, release)
        if not isinstance(release, Release) or not isinstance(release.window, Window):
            got = type(release).__name__ if not isinstance(release, Release) else f"a Release of {type(release.window).__name__}"
            self._broken(window, f"{returned} returned {got}, not a Release of a Window")
        if not isinstance(release.stats, dict):
            # --report reads the stats' items after every window is released: a list there crashed
            # it with a traceback (QA attacking the conformance kit)
            self._broken(window, f"{returned} returned a Release whose stats are a {type(release.stats).__name__}, "
                                 "not a dict")
        try:
            length = len(release.window)
        except BaseException as exc:  # a subclass's __len__ that raises, or returns no int
            self._unreadable(window, f"{returned} returned a Release whose window's length cannot be read", exc)
        if length != len(window):
            self._broken(window, f"{returned} returned a Release of {counted(length, 'transaction')} for {len(window)} "
                                 "in the window")
        # What is checked and emitted is a copy no plugin holds: the model's own arrays may be
        # written after it returns (a buffer it reuses for the next window), and the checker, the
        # loss, the metrics and the observers get copies of their own (QA: each of them could
        # rewrite the checked release into one holding the suppressed items)
        try:
            released = detached(window, release.window)[1]
        except BaseException as exc:  # a vocabulary listing a label twice, a property of a subclass that raises
            self._unreadable(window, f"{returned} returned a Release whose window cannot be copied", exc)
        # the details and stats too, before the model's checker runs, which could rewrite the
        # ones it kept (QA: a checker's rewritten stats were reported)
        try:
            details, shown_details = independent_copies(release.details, 2)
            stats, shown_stats, reported_stats = independent_copies(release.stats, 3)
        except BaseException as exc:  # a lock in them, or an object whose __deepcopy__ raises
            self._unreadable(window, f"{returned} returned a Release whose details or stats cannot be copied", exc)
        if not all(isinstance(copied, dict) for copied in (stats, shown_stats, reported_stats)):
            # a dict subclass's own __deepcopy__ may return anything, and the stats reported are
            # the copies (QA: a list there passed the check above)
            self._broken(window, f"{returned} returned a Release whose stats are a {type(release.stats).__name__} "
                                 "that does not copy as a dict")
        verified = False
        if self.verify:
            try:
                problems = list(release_violations(self.model, window, released, self.configured.context))
            except BaseException as exc:
                self._pass_stop(exc)
                named = self._out_of_memory(exc) or own_words(exc) or wrote_read_only(exc, "the checker") or type(exc).__name__
                self._reject(window, f"checker error: {named}", exc)
            if problems:
                self._reject(
                    window,
                    f"release failed the {self.model.name} check: {counted(len(problems), 'violation')}; "
                    f"first: {problems[0].rule}: {problems[0].summary}{overriders_note(self.hook)}",
                )
            verified = True
        finished = time.perf_counter()
        original, shown_window = detached(window, released)
        shown = Release(shown_window, shown_details, shown_stats)
        try:
            info_loss = float(self.model.information_loss(original, shown.window))
        except BaseException as exc:
            self._pass_stop(exc)
            named = self._out_of_memory(exc) or wrote_read_only(exc, "information_loss") or type(exc).__name__
            self._reject(window, f"model error: information_loss raised {named}", exc)
        if not math.isfinite(info_loss):
            # NaN would make the report invalid JSON and the batch's metrics meaningless
            self._broken(window, f"model error: information_loss returned {info_loss}")
        if not 0 <= info_loss <= 1:
            # the report, a batch's metrics and the loss histogram read it as a share, as the
            # conformance kit requires it to be (QA: a model's 7 was reported as a loss of 7)
            self._broken(window, f"model error: information_loss returned {info_loss}, outside [0, 1]")
        report = {
            "transactions": len(window),
            "items_before": window.n_occurrences,
            "items_after": released.n_occurrences,
            "info_loss": info_loss,
            "seconds": finished - started,
            "anonymize_seconds": anonymized - started,
            "verify_seconds": finished - anonymized,
            "verified": verified,
            "stats": stats,
        }
        # the report's other values are numbers and a bool, which a deep copy would not copy either
        notify(self.hook.setveil_window_anonymized, window=original, release=shown,
               report={**report, "stats": reported_stats})
        return Outcome(Release(released, details, stats), report)

    def _returner(self, answer: object, release: object) -> str:
        """Who returned ``release``, as a reason names it: the model when the core's
        implementation answered it; the wrappers when it answered something else, which only a
        wrapper can have put in its place; and when it did not answer, a plugin answering in
        place of the model, or a wrapper around it (a result does not say which)."""
        if answer is release:
            return "model error: anonymize"
        impls = [impl for impl in self.hook.setveil_anonymize_window.get_hookimpls() if impl.plugin is not builtin]
        wrappers = ", ".join(dict.fromkeys(repr(impl.plugin_name) for impl in impls if is_wrapper(impl)))
        if answer is not builtin.NOT_ANSWERED:
            return f"wrapper error: setveil_anonymize_window, wrapped by plugin {wrappers},"
        answering = ", ".join(dict.fromkeys(repr(impl.plugin_name) for impl in impls if not is_wrapper(impl)))
        return (f"plugin error: setveil_anonymize_window, implemented by plugin {answering}"
                + (f" and wrapped by plugin {wrappers}," if wrappers else ","))

    @staticmethod
    def _pass_stop(exc: BaseException) -> None:
        """Raise ``exc`` again when it is the user stopping the run, not plugin code's error."""
        if user_stop(exc):
            raise exc

    def _out_of_memory(self, exc: BaseException) -> str | None:
        if isinstance(exc, MemoryError):
            named = f"MemoryError ({memory_note(self.memory_limit)})"
        elif self.memory_limit is not None and isinstance(exc, RuntimeError) and str(exc) == THREAD_NOT_STARTED:
            # every thread's stack (8 MiB by default) counts against the limit: a ρ pool's
            # threads were the first allocation to fail (QA)
            named = f"RuntimeError: {THREAD_NOT_STARTED} ({memory_note(self.memory_limit)}, which thread stacks count against)"
        else:
            return None
        self.ran_out_of_memory = True
        return named

    def _unreadable(self, window: Window, problem: str, exc: BaseException) -> NoReturn:
        """Reject a window for ``exc``, raised reading the release a plugin returned: ``problem``
        names who returned it, and ``exc`` only by its type, unless setveil's own code made it."""
        self._pass_stop(exc)
        self._reject(window, f"{problem}: {own_words(exc) or type(exc).__name__}", exc)

    def _broken(self, window: Window, reason: str) -> NoReturn:
        """Reject a window for what the model returned (no exception of its own): its error, as
        one it raised would be, not a release that failed the check."""
        self._reject(window, reason, PluginError(f"model {self.model.name!r}: {reason}"))

    def _reject(self, window: Window, reason: str, cause: BaseException | None = None,
                refused: bool = False) -> NoReturn:
        notify(self.hook.setveil_window_rejected, window=detached(window)[0], model=self.model, reason=reason)
        raise WindowRejected(reason, cause, refused) from cause
