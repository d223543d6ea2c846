"""Heavy modules imported where they are first used, not when setveil starts.

scipy's sparse matrices and special functions took longer to import than the rest of a command's
start-up together, and ``setveil --help``, ``setveil plugins`` or a model that never reaches them
need neither. A module that uses one names it as ``sparse = DeferredModule("scipy.sparse")``
(beside an ``if TYPE_CHECKING:`` import for the type checker) and calls it as before. What a model
may use is imported as soon as one is configured (:func:`import_model_modules`), as before.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from .orphans import signals_held

#: what setveil's models use, and a third party's may through ``Window.matrix``
MODEL_MODULES = ("scipy.sparse",)


def imported(name: str) -> ModuleType:
    """The module ``name``, imported now if it is not yet, with the stop signals held while it is
    as the command's start-up holds them (``setveil.__main__``): a Ctrl-C raised inside an
    extension module's initialization would be dropped, and the command run to its end."""
    if name in sys.modules:
        return importlib.import_module(name)  # waits for another thread's import still under way
    with signals_held():
        return importlib.import_module(name)


class DeferredModule:
    """Stands for a module until an attribute of it is read, which imports it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(imported(self._name), attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def import_model_modules() -> None:
    """Import :data:`MODEL_MODULES` before a model runs: a first window that imported them would
    count their import in its seconds (a benchmark's runs, a worker's latency) and its memory (a
    window process under ``model.memory_limit``), and a process a model forks (the ρ model's
    pool) would import them again where it now inherits them."""
    for name in MODEL_MODULES:
        imported(name)
