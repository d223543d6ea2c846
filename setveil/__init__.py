"""setveil: plugin-based streaming anonymization of transaction (set-valued) data.

The public API for plugin authors: the hook markers, the model and policy base classes,
parameters, the columnar window and the errors.
"""

from importlib.metadata import PackageNotFoundError, version

from setveil.core.errors import Infeasible, InputError, ParameterError, SetveilError, WindowRejected
from setveil.core.hierarchy import Hierarchy
from setveil.core.hookspecs import hookimpl
from setveil.core.model import Context, Policy, PrivacyModel, Release, Transformation, Violation
from setveil.core.params import Parameter
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

try:
    __version__ = version("setveil")
except PackageNotFoundError:  # running from a source tree without metadata
    __version__ = "0+unknown"

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
