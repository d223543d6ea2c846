"""Everything a plugin author calls has a docstring: each class the ``setveil`` package exports
and each model's policy base, with their public methods and properties; and docs/plugins.md gives
the arguments of each error a plugin raises."""

import enum
import inspect
from pathlib import Path

import pytest

import setveil
from setveil.core.plugins import Registry

from ..own_plugins import own_plugin_manager

DOC = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()


def api_classes() -> dict[str, type]:
    classes = {f"setveil.{name}": getattr(setveil, name) for name in setveil.__all__}
    classes = {name: obj for name, obj in classes.items() if inspect.isclass(obj)}
    # setveil's own models': an installed third party's policy base is its author's to document
    registry = Registry(own_plugin_manager())
    for model in registry.models:
        base = registry.model_class(model).policy_base
        classes[f"{base.__module__}.{base.__qualname__}"] = base
    return classes


def public_members(cls: type) -> dict[str, object]:
    if issubclass(cls, (enum.Enum, BaseException)):  # their members are values or the standard ones
        return {}
    members = {}
    for name, attr in vars(cls).items():
        if name.startswith("_"):
            continue
        function = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else attr
        function = function.fget if isinstance(function, property) else getattr(function, "func", function)
        if callable(function):
            members[name] = function
    return members


CLASSES = api_classes()


def test_the_api_has_the_classes_plugins_extend():
    assert {"setveil.PrivacyModel", "setveil.Policy", "setveil.Window", "setveil.Parameter"} <= set(CLASSES)
    assert sum(name.startswith("setveil.plugins.") for name in CLASSES) >= 4


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_and_public_member_has_a_docstring(name):
    cls = CLASSES[name]
    assert (cls.__doc__ or "").strip() and cls.__doc__ != "An enumeration.", f"{name} needs a docstring"
    missing = [member for member, function in public_members(cls).items() if not (function.__doc__ or "").strip()]
    assert not missing, f"{name} needs docstrings on {', '.join(missing)}"


@pytest.mark.parametrize("cls", [setveil.ParameterError, setveil.Infeasible, setveil.InputError])
def test_each_error_a_plugin_raises_is_documented_with_its_arguments(cls):
    # Regression (a plugin author's walkthrough): docs/plugins.md said to raise InputError but not
    # what it takes, so its author read core/errors.py
    arguments = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default}"
                          for p in inspect.signature(cls).parameters.values())
    assert f"`{cls.__name__}({arguments})`" in DOC
