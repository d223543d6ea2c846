"""The plugin manager and the registry of privacy models and policies.

Load order: the core's built-in hook implementations, then every plugin in the ``setveil``
entry-point group (our own plugins included, exactly as a third party's would be), then
``check_pending()``. Entry points are loaded one at a time, so that a plugin that cannot be
imported, implements a hook that does not exist (a misspelling), gets a hook's signature wrong or
forgot ``@hookimpl`` fails at start-up with one :class:`PluginError` naming its distribution.
The registry checks each class it is given against the contract of :mod:`setveil.core.model`
for the same reason: a broken plugin is refused when it is installed, not when a window reaches it.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib.metadata
import inspect
import math
import numbers
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import pluggy

from . import builtin, hookspecs
from .deferred import import_model_modules
from .errors import (NOT_PLUGIN_ERRORS, ContractError, ParameterError, PluginError, SetveilError, UnknownPluginError,
                     own_words, wrote_read_only)
from .model import CONTEXT_NAMES, Context, Policy, PrivacyModel, Transformation, file_digest
from .params import KINDS, Parameter, shown_value, validate

ENTRY_POINT_GROUP = "setveil"

_manager: pluggy.PluginManager | None = None
#: a registered class's kind: PrivacyModel or Policy
Registered = TypeVar("Registered", PrivacyModel, Policy)
_registry: Registry | None = None


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, built on first use."""
    global _manager
    if _manager is None:
        pm = pluggy.PluginManager("setveil")
        pm.add_hookspecs(hookspecs)
        pm.register(builtin, name="setveil.core.builtin")
        with plugin_prints_to_stderr():
            _load_entry_points(pm)
        pm.check_pending()
        _manager = pm
    return _manager


def _load_entry_points(pm: pluggy.PluginManager) -> None:
    """Register every plugin of the entry-point group (what ``load_setuptools_entrypoints``
    does), checking each as it comes so that an error can name its entry point and distribution.

    A name seen again with the same target is one distribution found twice on the path and is
    skipped; with another target it is refused, where pluggy would keep whichever came first."""
    loaded: dict[str, tuple[str, str]] = {}
    for dist in importlib.metadata.distributions():
        for ep in dist.entry_points:
            if ep.group != ENTRY_POINT_GROUP:
                continue
            where = f"plugin {ep.name!r} ({ep.value}) of {dist.metadata['Name']}"
            if ep.name in loaded:
                value, owner = loaded[ep.name]
                if value == ep.value:
                    continue
                first, second = (dist.metadata["Name"], ep.value), (owner, value)
                if first[0] == "setveil":  # lead with the other distribution: its entry point is the one to rename
                    first, second = second, first
                raise PluginError(f"entry point {ep.name!r} of {first[0]} ({first[1]}) clashes with {second[0]}'s "
                                  f"({second[1]}); rename one")
            if pm.get_plugin(ep.name) is not None:
                raise PluginError(f"{where}: the name is taken by a plugin setveil registers itself")
            loaded[ep.name] = (ep.value, dist.metadata["Name"])
            try:
                plugin = ep.load()
            except NOT_PLUGIN_ERRORS:
                raise
            except BaseException as exc:
                raise PluginError(f"{where}: cannot be imported: {type(exc).__name__}: {exc}") from exc
            try:
                pm.register(plugin, name=ep.name)
            except pluggy.PluginValidationError as exc:
                raise PluginError(f"{where}: {_signature_problem(pm, exc)}") from exc
            _check_hooks(pm, plugin, where)


def misfiled_entry_points() -> list[str]:
    """``<dist> declares entry point … in group …`` for each entry point in a group named like
    setveil's but not it (``setveil.plugins``, ``setvail``), which setveil never loads: the model
    it holds was only "unknown", with no word why (QA as a plugin author)."""
    found = sorted({(dist.metadata["Name"], ep.name, ep.group) for dist in importlib.metadata.distributions()
                    for ep in dist.entry_points if _named_like_the_group(ep.group)})
    return [f"{dist} declares entry point {name!r} in group {group!r}, which setveil does not load: its group is "
            f"{ENTRY_POINT_GROUP!r}" for dist, name, group in found]


def _named_like_the_group(group: str) -> bool:
    folded = group.lower()
    return group != ENTRY_POINT_GROUP and (
        folded.startswith(ENTRY_POINT_GROUP) or difflib.SequenceMatcher(None, folded, ENTRY_POINT_GROUP).ratio() >= 0.8)


def _signature_problem(pm: pluggy.PluginManager, exc: pluggy.PluginValidationError) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    hook = next((name for name in _hook_names() if f"'{name}'" in lines[0]), None)
    if hook is None or len(lines) < 2:
        return "; ".join(lines)
    spec = getattr(pm.hook, hook).spec
    return f"{'; '.join(lines[1:])}; the hook takes ({', '.join(spec.argnames)})"


#: how close (difflib's ratio) an unknown hook name must be to a setveil hook to be taken for its
#: misspelling even when marked optionalhook: setveil_window_anonymised (0.96) and
#: setveil_register_policy (0.92) are, a hook another version might add, setveil_register_metrics
#: (0.82 to setveil_register_policies) or setveil_window_released (0.87), is not
MISSPELLING = 0.9

#: the one hook whose implementations may be wrappers: the others are called one by one
#: (observers, registrations), so a wrapper would have nothing to wrap
WRAPPABLE_HOOK = "setveil_anonymize_window"


def _check_hooks(pm: pluggy.PluginManager, plugin: object, where: str) -> None:
    callers = pm.get_hookcallers(plugin) or []
    for caller in callers:
        own = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
        # first, so that a misspelt hook is named as such whatever else is wrong with it
        if not caller.has_spec():
            optional = all(impl.optionalhook for impl in own)
            misspelt = difflib.get_close_matches(caller.name, _hook_names(), n=1, cutoff=MISSPELLING)
            if not optional or misspelt:
                close = misspelt or difflib.get_close_matches(caller.name, _hook_names(), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f" (setveil's hooks: {', '.join(_hook_names())})"
                why = (" (optionalhook=True is for a hook another setveil version defines, not for one spelt "
                       "otherwise: this one would never be called)" if optional else "")
                raise PluginError(f"{where}: implements {caller.name!r}, which is not a setveil hook{hint}{why}")
        wrappers = [impl for impl in own if is_wrapper(impl)]
        if wrappers and caller.name != WRAPPABLE_HOOK:
            raise PluginError(f"{where}: implements {caller.name} as a wrapper; only {WRAPPABLE_HOOK} takes "
                              "wrappers (every implementation of the others is called on its own)")
        if caller.name == WRAPPABLE_HOOK and any(impl.trylast for impl in own if impl not in wrappers):
            # pluggy calls the trylast implementations registered later after those registered
            # earlier, and the core's (trylast, registered first) answers every window
            raise PluginError(f"{where}: implements {WRAPPABLE_HOOK} with trylast=True, so it would run after the "
                              "core's implementation, which answers every window, and never be called; drop trylast")
        for impl in own:
            unpassed = _unpassed(impl)
            if not unpassed:
                continue
            hint = (f": an entry point names a module or an instance (e.g. 'module:observer' with observer = "
                    f"{plugin.__name__}()), not a class" if inspect.isclass(plugin) else
                    "; declare them as ordinary parameters (pluggy passes nothing to a keyword-only one)")
            raise PluginError(f"{where}: {caller.name} takes {', '.join(unpassed)}, which no call passes{hint}")
    implemented = {caller.name for caller in callers}
    unmarked = [name for name in _hook_names() if name not in implemented and callable(getattr(plugin, name, None))]
    if unmarked:
        raise PluginError(f"{where}: {', '.join(unmarked)} must be marked with @setveil.hookimpl to be called")
    if not callers:
        if inspect.isfunction(plugin):
            raise PluginError(f"{where}: names the function {plugin.__name__}; an entry point names the module (or "
                              "object) whose attributes are the hook implementations, e.g. 'package.module'")
        raise PluginError(f"{where}: implements no setveil hook (setveil's hooks: {', '.join(_hook_names())})")


def is_wrapper(impl: pluggy.HookImpl) -> bool:
    """A wrapper, new style (``wrapper=True``) or old (``hookwrapper=True``)."""
    return bool(impl.wrapper or impl.hookwrapper)


def _unpassed(impl: pluggy.HookImpl) -> list[str]:
    """The required parameters of ``impl`` that pluggy passes nothing for: the ``self`` of a
    method looked up on its class, which pluggy leaves out of the arguments it checks, and a
    keyword-only one, which it does not see."""
    try:
        parameters = inspect.signature(impl.function).parameters.values()
    except (TypeError, ValueError):  # a callable with no signature to read: pluggy's own check stands
        return []
    return [p.name for p in parameters if p.default is p.empty and p.name not in impl.argnames
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@functools.cache
def _hook_names() -> tuple[str, ...]:
    return tuple(sorted(name for name in dir(hookspecs) if name.startswith("setveil_")))


def get_registry() -> Registry:
    """The process-wide registry of models and policies, built on first use."""
    global _registry
    if _registry is None:
        manager = get_plugin_manager()
        with plugin_prints_to_stderr():
            _registry = Registry(manager)
    return _registry


def plugin_prints_to_stderr() -> contextlib.AbstractContextManager:
    """Where a plugin's module and registration hooks print, while they run: standard error,
    since standard output may be a command's data (QA: a plugin that printed as it was imported
    put a line into ``anonymize -o -``'s release). Nowhere when standard error is closed."""
    return contextlib.redirect_stdout(sys.stderr)


def reset() -> None:
    """Forget the manager and registry (tests that install plugins call this)."""
    global _manager, _registry
    _manager = None
    _registry = None


@dataclass(frozen=True)
class Entry(Generic[Registered]):
    cls: type[Registered]
    #: the distribution that installed the class, and the one whose hook registered it
    distribution: str
    registered_by: str


@dataclass
class Configured:
    """A model and policy instantiated with validated parameters."""

    model: PrivacyModel
    policy: Policy
    params: dict[str, Any]
    #: the context setveil built, of which the model got a copy: the check of a generalization
    #: takes its hierarchy from here, not from the model, which may have set or changed its own
    #: (QA re-checks)
    context: Context
    #: ``sha256:<hex>`` of each file a path parameter names, by parameter, as the model read it
    files: dict[str, str] = field(default_factory=dict)

    def use_context(self, context: Context) -> None:
        """Give the model a copy of ``context`` (a hierarchy parsed or pinned), keeping it for the check."""
        self.context = context
        self.model.context = context.copied()

    def shown_params(self) -> dict[str, Any]:
        """The parsed parameters as a report and a batch show them (a path as its text), the
        value of one named like a secret masked: a batch goes to every consumer of the output
        topic and the dead-letter topic, where the startup log had masked it (adversarial pass)."""
        return {k: shown_value(k, str(v) if isinstance(v, Path) else v) for k, v in self.params.items()}

    def digests(self) -> dict[str, str]:
        """What made a release besides the parameters: the context's item lists and hierarchy and
        the parameters' files, by digest (a batch's ``model.context``, a report's ``context``)."""
        return {**self.context.digests(), **self.files}


class Registry:
    """Models and policies registered through the hooks, with the distribution of each."""

    def __init__(self, pm: pluggy.PluginManager):
        self.pm = pm
        self.models: dict[str, Entry[PrivacyModel]] = {}
        self.policies: dict[str, dict[str, Entry[Policy]]] = {}
        call_each(pm.hook.setveil_register_privacy_models, lambda who: _registrar(self._add_model, who),
                  "register(ModelClass), once per model")
        call_each(pm.hook.setveil_register_policies, lambda who: _registrar(self._add_policy, who),
                  "register(PolicyClass), once per policy")
        for name, entry in self.models.items():
            if entry.cls.default_policy not in self.policies[name]:
                known = ", ".join(sorted(self.policies[name])) or "none"
                raise PluginError(
                    f"model {name!r} of {entry.distribution}: its default policy {entry.cls.default_policy!r} "
                    f"is not registered (registered: {known})"
                )

    def _add_model(self, cls: type[PrivacyModel], who: str) -> None:
        where, entry = _checked_entry("model", cls, PrivacyModel, who)
        _require(cls, where, name=str, summary=str, guarantee=str, default_policy=str, transformation=Transformation)
        _check_name(cls.name, where, "--model")
        base = getattr(cls, "policy_base", None)
        if not (isinstance(base, type) and issubclass(base, Policy)):
            raise PluginError(f"{where}: class attribute 'policy_base' must be the Policy subclass its policies extend")
        if cls.transformation is Transformation.GENERALIZATION and cls.needs_hierarchy is not True:
            # the core checks a generalized release against the hierarchy (QA: a "generalizing"
            # model without one added a made-up label to every transaction, unchecked)
            raise PluginError(f"{where}: a model whose transformation is GENERALIZATION must set needs_hierarchy = "
                              "True: the core checks each released label against the hierarchy")
        _check_parameters(cls, where)
        _check_methods(cls, where)
        for flag in ("needs_schema", "needs_hierarchy", "union_safe"):
            # a string is truthy: union_safe = "False" would count as union-safe, unwarned (mutation pass)
            if not isinstance(getattr(cls, flag), bool):
                raise PluginError(f"{where}: class attribute {flag!r} must be True or False, not {getattr(cls, flag)!r}")
        if not (isinstance(cls.peak_stats, (set, frozenset)) and all(isinstance(s, str) for s in cls.peak_stats)):
            raise PluginError(f"{where}: peak_stats must be a set of stat names, not {cls.peak_stats!r}")
        if cls.name in self.models:
            raise PluginError(f"model {cls.name!r} is registered twice: {_twice(self.models[cls.name], entry)}")
        self.models[cls.name] = entry
        self.policies.setdefault(cls.name, {})

    def _add_policy(self, cls: type[Policy], who: str) -> None:
        where, entry = _checked_entry("policy", cls, Policy, who)
        _require(cls, where, name=str, model=str, summary=str)
        _check_name(cls.name, where, "--policy")
        _check_parameters(cls, where)
        _check_methods(cls, where, POLICY_METHODS)
        model = self.models.get(cls.model)
        if model is None:
            remedy = f"install the distribution that provides it, or uninstall {entry.distribution}"
            close = difflib.get_close_matches(cls.model, list(self.models), n=1)
            if close:  # a typo is likelier than a missing distribution
                remedy = f"did you mean {close[0]!r}? (or {remedy})"
            raise PluginError(
                f"policy {cls.name!r} of {entry.distribution} serves model {cls.model!r}, which is not installed: {remedy}")
        if not issubclass(cls, model.cls.policy_base):
            base = model.cls.policy_base
            raise PluginError(f"{where}: a policy of model {cls.model!r} must subclass {base.__module__}.{base.__qualname__}")
        _check_methods(cls, where, _base_methods(model.cls.policy_base), model.cls.policy_base)
        shared = sorted({p.name for p in cls.parameters} & {p.name for p in model.cls.parameters})
        if shared:
            raise PluginError(
                f"{where}: {'parameter' if len(shared) == 1 else 'parameters'} {', '.join(shared)} "
                f"{'is already a parameter' if len(shared) == 1 else 'are already parameters'} of model {cls.model!r}; "
                "a policy's parameters need names of their own"
            )
        entries = self.policies[cls.model]
        if cls.name in entries:
            raise PluginError(f"policy {cls.name!r} of model {cls.model!r} is registered twice: {_twice(entries[cls.name], entry)}")
        entries[cls.name] = entry

    def model_class(self, name: str) -> type[PrivacyModel]:
        entry = self.models.get(name)
        if entry is None:
            known = ", ".join(sorted(self.models)) or "none"
            misfiled = "".join(f"; {line}" for line in misfiled_entry_points())
            raise UnknownPluginError(f"unknown model {name!r} (installed: {known}){_did_you_mean(name, self.models)}"
                                     f"{misfiled}")
        return entry.cls

    def policy_class(self, model: str, name: str | None) -> type[Policy]:
        cls = self.model_class(model)
        name = cls.default_policy if name is None else name
        entry = self.policies[model].get(name)
        if entry is None:
            known = ", ".join(sorted(self.policies[model])) or "none"
            raise UnknownPluginError(f"unknown policy {name!r} for model {model!r} (installed: "
                                     f"{known}){_did_you_mean(name, self.policies[model])}")
        return entry.cls

    def policy_for(self, model: str, params: Mapping[str, Any]) -> str:
        """A policy of ``model`` to validate ``params`` with when the command needs none: the
        first, of the default policy and then the others by name, that accepts them (names and
        values); failing that, the first that takes their names, else the default, so that the
        error names the parameter at fault."""
        cls = self.model_class(model)
        names = [cls.default_policy, *sorted(set(self.policies[model]) - {cls.default_policy})]
        for name in names:
            with contextlib.suppress(ParameterError):
                self.validate(model, name, params)
                return name
        wanted = set(params) - {p.name for p in cls.parameters}
        return next((name for name in names if wanted <= {p.name for p in self.policies[model][name].cls.parameters}),
                    cls.default_policy)

    def configure(
        self,
        model: str,
        policy: str | None = None,
        params: Mapping[str, Any] | None = None,
        context: Context | None = None,
        *,
        named_files: bool = False,
    ) -> Configured:
        """Validate everything about a run before any data is read, then instantiate. With
        ``named_files`` every parameter file must be a regular file, which a release can name by
        digest (a worker's must: a pipe is refused before the model opens it, which one with no
        writer would hold for good)."""
        model_cls, policy_cls, model_params, policy_params = self.validate(model, policy, params)
        context = context or Context()
        if model_cls.needs_schema and context.schema is None:
            raise ParameterError("sensitive", f"model {model!r} needs the sensitive (private) items: give --sensitive FILE")
        if model_cls.needs_hierarchy and not context.has_hierarchy:
            raise ParameterError("hierarchy", f"model {model!r} needs a hierarchy: give --hierarchy FILE or --fanout N")
        parsed = {**model_params, **policy_params}
        files = {name: parsed[name] for name in path_parameters(model_cls, policy_cls) if parsed.get(name) is not None}
        import_model_modules()
        found = _file_states(files, named_files)
        try:
            # __init__ is where a plugin checks what its declared ranges cannot (docs/plugins.md); what
            # it raises besides a ParameterError is its error, named by type (its text may quote data)
            with plugin_errors(f"model {model!r}: __init__"):
                model_obj = model_cls(model_params, context.copied())
            _refuse_unset(model_obj, f"model {model!r}", ("params", "context"), "params, context")
            with plugin_errors(f"policy {policy_cls.name!r} of model {model!r}: __init__"):
                policy_obj = policy_cls(policy_params)
            _refuse_unset(policy_obj, f"policy {policy_cls.name!r} of model {model!r}", ("params",), "params")
        finally:
            # the model read its files in between: found the same before and after, they are what
            # it read (a file rewritten under it also makes its own error, which this one explains)
            _refuse_changed(files, found)
        return Configured(model_obj, policy_obj, parsed, context, {name: digest for name, (_, digest) in found.items()})

    def validate(
        self, model: str, policy: str | None = None, params: Mapping[str, Any] | None = None
    ) -> tuple[type[PrivacyModel], type[Policy], dict[str, Any], dict[str, Any]]:
        """The model and policy classes and their parsed parameters; raises on any unknown name
        or bad value. Reads no file, so a command calls it before reading item files or data."""
        model_cls = self.model_class(model)
        policy_cls = self.policy_class(model, policy)
        raw = dict(params or {})
        policy_names = {p.name for p in policy_cls.parameters}
        model_names = {p.name for p in model_cls.parameters}
        unknown = set(raw) - policy_names - model_names
        if unknown:
            name = min(unknown)
            known = ", ".join(sorted(model_names | policy_names)) or "none"
            owners = sorted(p for p, e in self.policies[model].items() if name in {q.name for q in e.cls.parameters})
            hint = f"; policy {', '.join(owners)} has it (--policy {owners[0]})" if owners else ""
            raise ParameterError(
                name, f"model {model!r} with policy {policy_cls.name!r} has no such parameter (its parameters: {known}){hint}"
            )
        model_params = validate(model_cls.parameters, {k: v for k, v in raw.items() if k in model_names}, f"model {model!r}")
        policy_params = validate(
            policy_cls.parameters, {k: v for k, v in raw.items() if k in policy_names}, f"policy {policy_cls.name!r}"
        )
        return model_cls, policy_cls, model_params, policy_params


def _refuse_unset(obj: Any, who: str, attributes: tuple[str, ...], arguments: str) -> None:
    """Refuse an instance whose own ``__init__`` did not call the base's: without ``self.params``
    every window would fail closed as a bare AttributeError, far from its cause."""
    missing = [name for name in attributes if not _has_static(obj, name)]
    if missing:
        raise PluginError(f"{who}: __init__ left self.{missing[0]} unset; an __init__ of your own calls "
                          f"super().__init__({arguments}) first")


def _has_static(obj: Any, name: str) -> bool:
    # looked up without running plugin code: a property of the model's own counts as set
    try:
        inspect.getattr_static(obj, name)
    except AttributeError:
        return False
    return True


def path_parameters(model: Any, policy: Any) -> list[str]:
    """The names of the path parameters of a model and a policy (classes or instances)."""
    return [p.name for p in (*model.parameters, *policy.parameters) if p.kind == "path"]


def _file_states(files: Mapping[str, Any], named: bool) -> dict[str, tuple[tuple | None, str]]:
    """The identity (device, inode, size, times) and digest of each regular file. A pipe
    (``-P restrictive=<(...)``) can be read only once, by the model, so it has neither, and is
    refused when every file must be ``named``."""
    found = {}
    for name, path in files.items():
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                if named:
                    raise ParameterError(name, f"{str(path)!r} is no regular file: a worker's batches name the "
                                         "file by digest, so give one")
                continue
            found[name] = _state(path)
        except OSError as exc:
            raise ParameterError(name, f"cannot read {str(path)!r}: {exc.strerror or type(exc).__name__}") from None
        if found[name][0] is None:
            raise _changed(name, path)
    return found


def _state(path: Any) -> tuple[tuple | None, str]:
    """(identity, digest), the identity None when the file changed while it was hashed."""
    before = _identity(os.stat(path))
    digest = file_digest(path)
    return (before if _identity(os.stat(path)) == before else None), digest


def _identity(found: os.stat_result) -> tuple:
    # a rewrite moves the times even when it restores the bytes; a rename or a ConfigMap's link
    # swap moves the inode
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def _refuse_changed(files: Mapping[str, Any], found: Mapping[str, tuple[tuple | None, str]]) -> None:
    for name, state in found.items():
        try:
            same = _state(files[name]) == state
        except OSError:
            same = False
        if not same:
            raise _changed(name, files[name])


def _changed(name: str, path: Any) -> ParameterError:
    return ParameterError(name, f"file {str(path)!r} changed while it was read; run again")


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    """The installed name closest to a misspelt one, as a hint (QA as a plugin author: a suite's
    model = "itemsuport" was only listed beside the installed names, among setveil's own)."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _checked_entry(kind: str, cls: Any, base: type, who: str) -> tuple[str, Entry[Any]]:
    """How an error names a registered class, and its registry entry; refuses anything but a
    concrete subclass of ``base`` (``who``: the distribution that registered it)."""
    if isinstance(cls, base):
        # QA as a plugin author: register(Minimal({})) was named "<… Minimal object at 0x7f…>", and
        # said to be no subclass of the class it is an instance of
        raise PluginError(f"{kind} registered by {who} is an instance of {type(cls).__module__}."
                          f"{type(cls).__qualname__}; register the class itself")
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise PluginError(f"{kind} {cls!r} registered by {who} is not a subclass of setveil.{base.__name__}"
                          f"{_other_hook(cls)}")
    entry: Entry[Any] = Entry(cls, distribution_of(cls), who)
    where = f"{kind} class {cls.__module__}.{cls.__qualname__} of {entry.distribution}"
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__")))  # type has no such attribute to mypy
        raise PluginError(f"{where}: does not implement {missing}")
    return where, entry


def _other_hook(cls: Any) -> str:
    """Where ``cls`` is registered when it is a class of the other kind (QA as a plugin author: a
    policy registered with the models was said to be no model, and not where it goes)."""
    for other, hook in ((PrivacyModel, "setveil_register_privacy_models"), (Policy, "setveil_register_policies")):
        if isinstance(cls, type) and issubclass(cls, other):
            return f" but a setveil.{other.__name__}: register it in {hook}"
    return ""


def call_each(hook: pluggy.HookCaller, register_for: Callable[[str], Callable[..., None]], usage: str) -> None:
    """Call each implementation of a registration hook on its own, in pluggy's order, with the
    ``register`` callback ``register_for(distribution)`` makes for it, so that what one raises is
    one line naming its distribution (pluggy's call would end in a traceback). ``usage`` is how
    the hook's docs call ``register``, for an error that calls it otherwise."""
    for impl in reversed(hook.get_hookimpls()):
        who = distribution_of(impl.function)
        with plugin_errors(f"{hook.name} of {who}"):
            returned = impl.function(**{name: _called_as(register_for(who), f"{hook.name} of {who}", usage)
                                        for name in impl.argnames})
        if returned is not None:  # as many pluggy hooks do: what it returns is registered by no one
            raise PluginError(f"{hook.name} of {who} returned a {type(returned).__name__}; a registration hook "
                              "calls register(...) once for each and returns nothing")


def _called_as(register: Callable[..., None], where: str, usage: str) -> Callable[..., None]:
    """``register``, refusing a call its signature does not take in words: as the plugin's own
    TypeError it was a bare "raised TypeError" (QA as a plugin author: ``register(Model, extra)``)."""
    signature = inspect.signature(register)
    positional = [p.name for p in signature.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_ONLY]

    def checked(*args: Any, **kwargs: Any) -> None:
        by_keyword = [name for name in positional if name in kwargs]
        if by_keyword:  # in our words: inspect's differ by Python version, and 3.14's call it missing
            raise PluginError(f"{where}: register() takes {by_keyword[0]!r} positionally, not by keyword; "
                              f"call it as {usage}")
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise PluginError(f"{where}: register() {exc}; call it as {usage}") from None
        register(*args, **kwargs)

    return checked


def _registrar(add: Callable[[Any, str], None], who: str) -> Callable[[Any], None]:
    """The ``register`` callback of a registration hook: the class alone, positionally. A partial
    with ``who=`` bound let a plugin pass ``who="setveil"`` and be named as another distribution
    in every error about its classes (review of the registry's API)."""

    def register(cls: Any, /) -> None:
        add(cls, who)

    return register


def _twice(first: Entry, second: Entry) -> str:
    # by the registering distributions: a plugin that registers setveil's own class again is the
    # one to name (QA: "both times by setveil")
    remedy = "register each class once" if first.cls is second.cls else "rename one"
    if first.registered_by == second.registered_by:
        return f"both times by {first.registered_by}; {remedy}"
    if first.registered_by == "setveil":  # lead with the other: the order entry points load in is the path's
        first, second = second, first
    return f"by {first.registered_by} and by {second.registered_by}; {remedy}"


#: the model methods the core calls, with the arguments it passes (after ``self``)
MODEL_METHODS = {
    "anonymize": ("window", "policy", "rng"),
    "violations": ("original", "release"),
    "smallest_window": (),
    "information_loss": ("original", "release"),
    "input_notes": ("original", "source"),
    "metrics": ("original", "release"),
    "__init__": ("params", "context"),
}
#: the policy methods the core calls
POLICY_METHODS = {"__init__": ("params",)}


def _base_methods(base: type) -> dict[str, tuple[str, ...]]:
    """The abstract methods of a model's policy base, each with the arguments it requires after
    ``self`` that may be passed by position: what the model calls a policy with. One with a default
    the model may leave out, so a policy that lacks it is not refused, and a method the base
    declares with ``*args`` says nothing of how it is called, and is left out."""
    methods: dict[str, tuple[str, ...]] = {}
    for name in sorted(getattr(base, "__abstractmethods__", ())):
        declared = inspect.getattr_static(base, name)
        if not inspect.isfunction(declared):
            continue
        try:
            parameters = list(inspect.signature(declared).parameters.values())[1:]
        except ValueError:
            continue
        if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
            continue
        methods[name] = tuple(p.name for p in parameters if p.default is inspect.Parameter.empty
                              and p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD))
    return methods


def _check_methods(cls: type, where: str, methods: Mapping[str, tuple[str, ...]] = MODEL_METHODS,
                   base: type | None = None) -> None:
    """Refuse at start-up a method the core could not call: a wrong signature would otherwise
    fail every window closed as a bare ``TypeError``, or a run with a traceback. With ``base``,
    the methods are a policy's, which its model calls as that policy base declares them (QA as a
    plugin author: a policy's method that lacked one of them failed every window as
    ``model error: TypeError``, naming neither the policy nor its distribution)."""
    caller, declared_by = ("the core", "") if base is None else (
        "its model", f", as {base.__module__}.{base.__qualname__} declares it")
    for method, arguments in methods.items():
        declared = inspect.getattr_static(cls, method)
        if not callable(getattr(cls, method)) and not isinstance(declared, property):
            raise PluginError(f"{where}: {method} is {type(declared).__name__}, not a method")
        if not isinstance(declared, (staticmethod, classmethod)) and not inspect.isfunction(declared):
            continue  # a property, a partial, a callable object: how it binds is its own, left to the call
        function = getattr(cls, method)
        # looked up on the class, a static or class method already has no self to pass
        first = () if isinstance(declared, (staticmethod, classmethod)) else (None,)
        try:
            signature = inspect.signature(function)
        except ValueError:  # no signature to read (a builtin): left to the call
            continue
        call = ", ".join((*(("self",) if first else ()), *arguments))
        try:
            # each argument's name as its value: what a parameter is given, positionally as the core passes it
            bound = signature.bind(*first, *arguments).arguments
        except TypeError:
            raise PluginError(f"{where}: {method}{signature} cannot be called as {method}({call}){declared_by}") from None
        swapped = next((name for name, given in bound.items() if name in arguments and given != name), None)
        if swapped is not None:
            # violations(self, release, original) checked the original as the release: every window
            # failed closed, or, its check the other way round, passed (QA as a plugin author)
            raise PluginError(f"{where}: {method}{signature} takes its arguments in another order than {caller} "
                              f"passes them, {method}({call}){declared_by}: its {swapped!r} would be given the "
                              f"{bound[swapped]}")


def _require(cls: type, where: str, **kinds: type) -> None:
    for attribute, kind in kinds.items():
        value = getattr(cls, attribute, None)
        if not isinstance(value, kind) or (kind is str and not value):
            raise PluginError(f"{where}: class attribute {attribute!r} must be set (a {kind.__name__})")


def _check_name(name: str, where: str, option: str) -> None:
    """A model's or policy's name is typed as one word and shown in one-line messages: one with a
    blank (QA as a plugin author: 'itemsupport ' was listed, and ``--model itemsupport`` said
    "unknown model 'itemsupport' (installed: …, itemsupport , …)") or a line break could not be."""
    if not name.isprintable() or " " in name:
        raise PluginError(f"{where}: name {name!r} holds a blank or an unprintable character; a name is one word, "
                          f"typed as {option} NAME")


@contextlib.contextmanager
def plugin_errors(who: str, after: str = "") -> Iterator[None]:
    """Run plugin code outside the window pipeline (which fails a window closed instead): an
    exception other than setveil's own becomes one line saying ``who`` raised it, with the
    exception's type alone, since a plugin's message may quote the data (``KeyError('HIV')``)."""
    try:
        yield
    except ContractError as exc:
        if own_words(exc) is None:
            raise PluginError(f"{who} raised {type(exc).__name__}{after}") from None
        raise
    except (SetveilError, *NOT_PLUGIN_ERRORS):
        raise
    except BaseException as exc:
        named = wrote_read_only(exc) or type(exc).__name__
        raise PluginError(f"{who} raised {named}{after}") from None


def model_call(model: PrivacyModel, method: str, *args: Any) -> Any:
    """``model.<method>(*args)`` under :func:`plugin_errors`."""
    with plugin_errors(f"model {model.name!r}: {method}"):
        return getattr(model, method)(*args)


def smallest_window_of(model: PrivacyModel) -> int:
    """``model.smallest_window()``, which must be a positive integer: windows are sized by it."""
    smallest = model_call(model, "smallest_window")
    if isinstance(smallest, bool) or not isinstance(smallest, numbers.Integral) or smallest < 1:
        # a number is shown, anything else by its type: a string could be a label of the context
        shown = repr(smallest) if isinstance(smallest, numbers.Real) and not isinstance(smallest, bool) else f"a {type(smallest).__name__}"
        raise PluginError(f"model {model.name!r}: smallest_window returned {shown}, not a positive integer")
    return int(smallest)


def _check_parameters(cls: type[PrivacyModel] | type[Policy], where: str) -> None:
    if not isinstance(cls.parameters, (tuple, list)):
        # a lone Parameter, its tuple's comma forgotten, failed as the registration hook's bare
        # TypeError (QA as a plugin author)
        hint = ": a tuple of one is written (Parameter(...),)" if isinstance(cls.parameters, Parameter) else ""
        raise PluginError(f"{where}: parameters must be a tuple of setveil.Parameter, not "
                          f"{type(cls.parameters).__name__}{hint}")
    names = set()
    for parameter in cls.parameters:
        if not isinstance(parameter, Parameter):
            raise PluginError(f"{where}: parameters must be setveil.Parameter instances, not {type(parameter).__name__}")
        if not (isinstance(parameter.name, str) and parameter.name.isidentifier()):
            # a name is given as -P NAME=VALUE or in model.params' "NAME=VALUE,NAME=VALUE", split at
            # the first '=' and at commas and spaces: a name holding one is listed but can never be
            # given (QA: 'a=b' was required, and -P a=b=1 set 'a'); an identifier holds none of them
            raise PluginError(f"{where}: parameter name {parameter.name!r} is not a Python identifier, so it "
                              "cannot be given as -P NAME=VALUE or in model.params")
        if not (isinstance(parameter.help, str) and parameter.help.strip()):
            # the error for a run that leaves it out quotes it: "needs it (; allowed: …)"
            raise PluginError(f"{where}: parameter {parameter.name!r} has no help; say what it means in a few words "
                              "(setveil plugins shows it, and so does the error for a run that does not give it)")
        if parameter.kind not in KINDS:
            # an unknown kind would otherwise parse as a float: "integer" accepted l=2.5
            raise PluginError(f"{where}: parameter {parameter.name!r} has kind {parameter.kind!r}; kinds: {', '.join(KINDS)}")
        if parameter.kind == "path" and parameter.name in CONTEXT_NAMES:
            # a batch carries the file's digest in model.context, where this name means an item list
            raise PluginError(f"{where}: path parameter {parameter.name!r} takes a name of the context's item lists "
                              f"({', '.join(CONTEXT_NAMES)}); name it otherwise")
        if not (isinstance(parameter.choices, (tuple, list)) and all(isinstance(c, str) for c in parameter.choices)):
            # a value is given as text and compared with them (QA: choices=(2, 3) failed as a bare TypeError)
            raise PluginError(f"{where}: parameter {parameter.name!r} has choices {parameter.choices!r}; choices are "
                              "a tuple of strings")
        if parameter.choices and parameter.kind in ("str", "path", "bool"):
            # a str took any value, its choices neither shown nor checked; a path or a bool took them unshown
            raise PluginError(f"{where}: parameter {parameter.name!r} of kind {parameter.kind!r} has choices; only a "
                              "'choice' (its values) and an 'int' or 'float' (the words it takes besides numbers) have "
                              "them: make it kind 'choice'")
        if not isinstance(parameter.checked, bool):
            raise PluginError(f"{where}: parameter {parameter.name!r} has checked {parameter.checked!r}; it is "
                              "True or False")
        if parameter.kind == "choice" and not parameter.choices:
            raise PluginError(f"{where}: parameter {parameter.name!r} is a choice with no choices")
        _check_bounds(parameter, where)
        if not parameter.required and parameter.default is not None and parameter.kind != "path":
            # a default outside the parameter's own range would run unchecked (an int parameter
            # defaulting to 2.5 ran as 2.5); a path's default may name a file made later
            try:
                parameter.parse(parameter.default)
            except ParameterError as exc:
                raise PluginError(f"{where}: parameter {parameter.name!r} has default {parameter.default!r}, which "
                                  f"it refuses itself ({exc.problem})") from None
        if parameter.name in names:
            raise PluginError(f"{where}: parameter {parameter.name!r} is declared twice")
        names.add(parameter.name)


def _check_bounds(parameter: Parameter, where: str) -> None:
    """A parameter's ``low`` and ``high`` are None or numbers that leave some value allowed. A NaN
    bound compares false with everything, so it would allow every value (QA: low=nan took k=-5),
    and a string one failed each value given as a bare TypeError."""
    for name in ("low", "high"):
        bound = getattr(parameter, name)
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, numbers.Real) or bound != bound
                                  or not _float_holds(bound)):
            shown = "beyond a float" if isinstance(bound, numbers.Integral) and not _float_holds(bound) else repr(bound)
            raise PluginError(f"{where}: parameter {parameter.name!r} has {name} {shown}; a bound is a number a "
                              "float holds, other than NaN, or None")
    low, high = parameter.low, parameter.high
    if low is not None and high is not None and low > high:
        raise PluginError(f"{where}: parameter {parameter.name!r} has low {low} above high {high}")
    if parameter.kind == "int" and low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
        # low=1.5, high=1.9 allows numbers but no integer (QA re-check)
        least = math.floor(low) + 1 if not parameter.low_inclusive or low != math.floor(low) else math.floor(low)
        most = math.ceil(high) - 1 if not parameter.high_inclusive or high != math.ceil(high) else math.ceil(high)
        empty = least > most
    else:
        empty = (low == math.inf or high == -math.inf
                 or (low is not None and low == high and not (parameter.low_inclusive and parameter.high_inclusive)))
    if empty:
        raise PluginError(f"{where}: parameter {parameter.name!r} has low {low} and high {high}, which allow no "
                          f"{'integer' if parameter.kind == 'int' else 'number'}")


def _float_holds(bound: numbers.Real) -> bool:
    """Whether ``bound`` converts to a float: ranges are shown and compared through one (QA
    re-check: 10**400 failed every command with OverflowError)."""
    try:
        float(bound)
    except OverflowError:
        return False
    return True


def plugin_hooks() -> list[dict[str, Any]]:
    """Every registered plugin, setveil's own first, with the distribution that installed it and
    each of its hook implementations (``wrapper`` true for a wrapper, ``function`` its name): a
    plugin that only observes or wraps windows registers no model or policy to be listed by. A
    hook a plugin implements twice (``specname``) is listed twice, once by each function's name,
    since both are called."""
    pm = get_plugin_manager()
    rows = []
    for name, plugin in pm.list_name_plugin():
        # an entry point may name a class as well as a module or an instance: a class's own
        # module is where it was defined, its type's is builtins
        module = (plugin.__name__ if inspect.ismodule(plugin)
                  else getattr(plugin, "__module__", type(plugin).__module__))
        # pluggy 1.5 gives a hook's caller once for each of the plugin's implementations of it
        callers = dict.fromkeys(pm.get_hookcallers(plugin) or ())
        hooks = sorted((caller.name, getattr(impl.function, "__name__", caller.name), is_wrapper(impl))
                       for caller in callers for impl in caller.get_hookimpls() if impl.plugin is plugin)
        rows.append({"plugin": name, "distribution": _module_distribution(module),
                     "hooks": [{"hook": hook, "function": function, "wrapper": wrapper}
                               for hook, function, wrapper in hooks]})
    # in the order they were registered, but for setveil's own, which lead: entry points load in the
    # order of the path, on which an editable or PYTHONPATH install comes first (QA as a plugin author)
    return sorted(rows, key=lambda row: row["distribution"] != "setveil")


def distribution_of(thing: Any) -> str:
    """The distribution that installed the module defining ``thing`` (a class, a function), or
    that module's name when no distribution did."""
    return _module_distribution(thing.__module__)


def _module_distribution(module: str) -> str:
    dists = _packages_distributions().get(module.partition(".")[0])
    return dists[0] if dists else module


@functools.cache
def _packages_distributions() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()
