"""Every hook spec is documented in docs/plugins.md with its exact signature."""

import inspect
from pathlib import Path

import pytest

from setveil.core import hookspecs

DOC = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
SPECS = [
    (name, func)
    for name, func in vars(hookspecs).items()
    if name.startswith("setveil_") and callable(func)
]


def signature_text(name, func) -> str:
    sig = inspect.signature(func)
    params = ", ".join(f"{p.name}: {p.annotation}" for p in sig.parameters.values())
    return f"{name}({params}) -> {sig.return_annotation}"


def test_there_are_hooks():
    assert {name for name, _ in SPECS} >= {
        "setveil_register_privacy_models",
        "setveil_register_policies",
        "setveil_register_commands",
        "setveil_anonymize_window",
        "setveil_window_anonymized",
        "setveil_window_rejected",
    }


@pytest.mark.parametrize("name, func", SPECS, ids=[n for n, _ in SPECS])
def test_hook_is_documented_with_its_signature(name, func):
    assert func.__doc__ and "Called" in func.__doc__, f"{name} needs a docstring saying when it is called"
    firstresult = func.setveil_spec["firstresult"]
    says = "The first non-None result wins" if firstresult else "Every implementation is called"
    assert says in func.__doc__, f"{name}'s docstring must say {says!r}"
    assert f"### `{signature_text(name, func)}`" in DOC, f"docs/plugins.md lacks the heading for {name}"


def test_the_register_command_callback_is_documented_with_its_signature():
    # The mutation pass: the hook's heading names RegisterCommand alone, so the callback's
    # documented signature could drift from the code unnoticed
    sig = inspect.signature(hookspecs.RegisterCommand.__call__)
    params = ", ".join(f"{p.name}: {p.annotation}" + ("" if p.default is p.empty else f" = {p.default}")
                       for p in list(sig.parameters.values())[1:])
    assert f"`register({params}) -> {sig.return_annotation}`" in DOC
