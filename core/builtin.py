"""The core's own hook implementations, registered before any entry-point plugin."""

from __future__ import annotations

from .hookspecs import hookimpl


@hookimpl(trylast=True)
def setveil_anonymize_window(model, policy, window, rng):
    return model.anonymize(window, policy, rng)


@hookimpl
def setveil_register_commands(cli):
    from .bench import bench_run, bench_windows

    cli.commands["bench"].add_command(bench_run)
    cli.commands["bench"].add_command(bench_windows)
