"""The core's own hook implementations, registered before any entry-point plugin."""

from __future__ import annotations

from .hookspecs import hookimpl


@hookimpl(trylast=True)
def setveil_anonymize_window(model, policy, window, rng):
    return model.anonymize(window, policy, rng)


@hookimpl
def setveil_register_commands(register):
    from .bench import bench_run, bench_windows
    from .preparation import hierarchy, items

    register(items)
    register(hierarchy)
    register(bench_run, group="bench")
    register(bench_windows, group="bench")
