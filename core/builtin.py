"""The core's own hook implementations, registered before any entry-point plugin."""

from __future__ import annotations

from .hookspecs import hookimpl


@hookimpl(trylast=True)
def setveil_anonymize_window(model, policy, window, rng):
    return model.anonymize(window, policy, rng)
