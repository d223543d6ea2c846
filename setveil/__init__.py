"""setveil: plugin-based streaming anonymization of transaction (set-valued) data.

The public API for plugin authors: the hook markers, the model and policy base classes,
parameters, the columnar window and the errors.

The names load on first use (PEP 562), so that importing the package, as the ``setveil``
command does before it can take a Ctrl-C, costs no numpy or scipy.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from setveil.core.errors import Infeasible, InputError, ParameterError, SetveilError, WindowRejected
    from setveil.core.hierarchy import Hierarchy
    from setveil.core.hookspecs import hookimpl
    from setveil.core.model import Context, Policy, PrivacyModel, Release, Transformation, Violation
    from setveil.core.params import Parameter
    from setveil.core.schema import ItemClass, ItemSchema
    from setveil.core.vocabulary import Vocabulary
    from setveil.core.window import Window

    __version__: str

__all__ = [
    "Context",
    "Hierarchy",
    "Infeasible",
    "InputError",
    "ItemClass",
    "ItemSchema",
    "Parameter",
    "ParameterError",
    "Policy",
    "PrivacyModel",
    "Release",
    "SetveilError",
    "Transformation",
    "Violation",
    "Vocabulary",
    "Window",
    "WindowRejected",
    "hookimpl",
]

_HOME = {
    name: module
    for module, names in {
        "setveil.core.errors": ("Infeasible", "InputError", "ParameterError", "SetveilError", "WindowRejected"),
        "setveil.core.hierarchy": ("Hierarchy",),
        "setveil.core.hookspecs": ("hookimpl",),
        "setveil.core.model": ("Context", "Policy", "PrivacyModel", "Release", "Transformation", "Violation"),
        "setveil.core.params": ("Parameter",),
        "setveil.core.schema": ("ItemClass", "ItemSchema"),
        "setveil.core.vocabulary": ("Vocabulary",),
        "setveil.core.window": ("Window",),
    }.items()
    for name in names
}


if not TYPE_CHECKING:  # a type checker sees the imports above, and a misspelt name stays an error

    def __getattr__(name: str):
        if name == "__version__":
            from importlib.metadata import PackageNotFoundError, version

            try:
                value = version("setveil")
            except PackageNotFoundError:  # running from a source tree without metadata
                value = "0+unknown"
        elif name in _HOME:
            value = getattr(import_module(_HOME[name]), name)
        else:
            raise AttributeError(f"module 'setveil' has no attribute {name!r}")
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
