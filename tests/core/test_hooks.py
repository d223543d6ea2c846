"""Every hook spec is documented in docs/plugins.md with its exact signature, and what an observer is given."""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from setveil.core import hookspecs
from setveil.core.engine import Pipeline
from setveil.core.hookspecs import hookimpl
from setveil.core.model import Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window

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


class _Observer:
    def __init__(self):
        self.reports = []

    @hookimpl
    def setveil_window_anonymized(self, report):
        self.reports.append(report)


def test_an_observer_gets_the_report_keys_the_docs_list(register_plugin):
    # Regression (a plugin author's walkthrough): the docs said only that the report holds counts,
    # timings and loss, and an observer's author printed one to learn its keys
    section = DOC.split("### `setveil_window_anonymized(")[1].split("\n### ")[0]
    listed = re.search(r"`per_window`, (.*?) \(the release's", section, re.S).group(1)
    observer = _Observer()
    manager = register_plugin(observer)
    context = Context(schema=ItemSchema(frozenset({"s"})))
    configured = get_registry().configure("rho", None, {"rho": "0.5"}, context)
    window = Window.from_transactions([["a", "s"], ["a"], ["b"]])
    Pipeline(configured, manager).run(window, np.random.default_rng(0))
    assert set(re.findall(r"`(\w+)`", listed)) == set(observer.reports[0])
