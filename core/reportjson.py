"""A run's report as JSON: what ``anonymize --report`` writes of a release's stats and a model's
metrics, and so what the conformance kit (setveil.testing) asks of a plugin's."""

from __future__ import annotations

import json
from typing import Any


def report_text(body: Any) -> str:
    """``body`` as the report's JSON text; raises ValueError for a number that is not finite and
    TypeError for a value :func:`json_value` cannot make."""
    return json.dumps(body, indent=2, sort_keys=False, default=json_value, allow_nan=False) + "\n"


def json_value(value: Any) -> Any:
    """What JSON holds of a value it has no type for: numpy's scalars and arrays as numbers and
    lists, sets and tuples as lists, anything else as its text."""
    try:
        if hasattr(value, "tolist"):  # numpy scalars and arrays a model put in its stats
            return value.tolist()
        if isinstance(value, (set, frozenset, tuple)):
            return list(value)
        return str(value)
    except Exception:
        # a plugin's object whose __str__ (or tolist) raises ended the run in a traceback quoting
        # its message, which may quote the data: refused as a value JSON cannot hold, by type alone
        raise TypeError(type(value).__name__) from None
