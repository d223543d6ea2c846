"""The plugin manager and the registry of privacy models and policies.

Load order: the core's built-in hook implementations, then every plugin in the ``setveil``
entry-point group (our own plugins included, exactly as a third party's would be), then
``check_pending()`` so a misspelled hook fails loudly.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pluggy

from . import builtin, hookspecs
from .errors import ParameterError, UnknownPluginError
from .model import Context, Policy, PrivacyModel
from .params import validate

ENTRY_POINT_GROUP = "setveil"

_manager: pluggy.PluginManager | None = None
_registry: Registry | None = None


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, built on first use."""
    global _manager
    if _manager is None:
        pm = pluggy.PluginManager("setveil")
        pm.add_hookspecs(hookspecs)
        pm.register(builtin, name="setveil.core.builtin")
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        pm.check_pending()
        _manager = pm
    return _manager


def get_registry() -> Registry:
    """The process-wide registry of models and policies, built on first use."""
    global _registry
    if _registry is None:
        _registry = Registry(get_plugin_manager())
    return _registry


def reset() -> None:
    """Forget the manager and registry (tests that install plugins call this)."""
    global _manager, _registry
    _manager = None
    _registry = None


@dataclass(frozen=True)
class Entry:
    cls: type
    distribution: str


@dataclass
class Configured:
    """A model and policy instantiated with validated parameters."""

    model: PrivacyModel
    policy: Policy
    params: dict[str, Any]


class Registry:
    """Models and policies registered through the hooks, with the distribution of each."""

    def __init__(self, pm: pluggy.PluginManager):
        self.pm = pm
        self.models: dict[str, Entry] = {}
        self.policies: dict[str, dict[str, Entry]] = {}
        pm.hook.setveil_register_privacy_models(register=self._add_model)
        pm.hook.setveil_register_policies(register=self._add_policy)

    def _add_model(self, cls: type[PrivacyModel]) -> None:
        if not (isinstance(cls, type) and issubclass(cls, PrivacyModel)):
            raise TypeError(f"{cls!r} is not a PrivacyModel subclass")
        entry = Entry(cls, _distribution_of(cls))
        if cls.name in self.models:
            other = self.models[cls.name]
            raise UnknownPluginError(
                f"model {cls.name!r} is registered twice: by {other.distribution} and by {entry.distribution}"
            )
        self.models[cls.name] = entry
        self.policies.setdefault(cls.name, {})

    def _add_policy(self, cls: type[Policy]) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Policy)):
            raise TypeError(f"{cls!r} is not a Policy subclass")
        model = self.models.get(cls.model)
        if model is None:
            raise UnknownPluginError(f"policy {cls.name!r} serves model {cls.model!r}, which is not installed")
        if not issubclass(cls, model.cls.policy_base):
            raise TypeError(f"policy {cls.name!r} must subclass {model.cls.policy_base.__qualname__}")
        entries = self.policies[cls.model]
        entry = Entry(cls, _distribution_of(cls))
        if cls.name in entries:
            raise UnknownPluginError(
                f"policy {cls.name!r} of model {cls.model!r} is registered twice: "
                f"by {entries[cls.name].distribution} and by {entry.distribution}"
            )
        entries[cls.name] = entry

    def model_class(self, name: str) -> type[PrivacyModel]:
        entry = self.models.get(name)
        if entry is None:
            known = ", ".join(sorted(self.models)) or "none"
            raise UnknownPluginError(f"unknown model {name!r} (installed: {known})")
        return entry.cls

    def policy_class(self, model: str, name: str | None) -> type[Policy]:
        cls = self.model_class(model)
        name = cls.default_policy if name is None else name
        entry = self.policies[model].get(name)
        if entry is None:
            known = ", ".join(sorted(self.policies[model])) or "none"
            raise UnknownPluginError(f"unknown policy {name!r} for model {model!r} (installed: {known})")
        return entry.cls

    def configure(
        self,
        model: str,
        policy: str | None = None,
        params: Mapping[str, Any] | None = None,
        context: Context | None = None,
    ) -> Configured:
        """Validate everything about a run before any data is read, then instantiate."""
        model_cls, policy_cls, model_params, policy_params = self.validate(model, policy, params)
        context = context or Context()
        if model_cls.needs_schema and context.schema is None:
            raise ParameterError("sensitive", f"model {model!r} needs the sensitive (private) items: give --sensitive FILE")
        if model_cls.needs_hierarchy and not context.has_hierarchy:
            raise ParameterError("hierarchy", f"model {model!r} needs a hierarchy: give --hierarchy FILE or --fanout N")
        return Configured(model_cls(model_params, context), policy_cls(policy_params), {**model_params, **policy_params})

    def validate(self, model: str, policy: str | None = None, params: Mapping[str, Any] | None = None):
        """The model and policy classes and their parsed parameters; raises on any unknown name
        or bad value. Reads no file, so a command calls it before reading item files or data."""
        model_cls = self.model_class(model)
        policy_cls = self.policy_class(model, policy)
        raw = dict(params or {})
        policy_names = {p.name for p in policy_cls.parameters}
        model_names = {p.name for p in model_cls.parameters}
        unknown = set(raw) - policy_names - model_names
        for name in sorted(unknown):
            known = ", ".join(sorted(model_names | policy_names)) or "none"
            raise ParameterError(
                name, f"model {model!r} with policy {policy_cls.name!r} has no such parameter (its parameters: {known})"
            )
        model_params = validate(model_cls.parameters, {k: v for k, v in raw.items() if k in model_names}, f"model {model!r}")
        policy_params = validate(
            policy_cls.parameters, {k: v for k, v in raw.items() if k in policy_names}, f"policy {policy_cls.name!r}"
        )
        return model_cls, policy_cls, model_params, policy_params


def _distribution_of(cls: type) -> str:
    top = cls.__module__.partition(".")[0]
    dists = _packages_distributions().get(top)
    return dists[0] if dists else cls.__module__


@functools.cache
def _packages_distributions() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()
