"""The core's own hook implementations, registered before any entry-point plugin."""

from __future__ import annotations

import threading

from .hookspecs import hookimpl

#: what ``model.anonymize`` returned in this thread's last call of the hook, if the core's
#: implementation answered it: a result other than this one was put in its place by a wrapper
_answered = threading.local()

#: the core's implementation did not answer (another plugin's did, or a wrapper raised first)
NOT_ANSWERED = object()


@hookimpl(trylast=True)
def setveil_anonymize_window(model, policy, window, rng):
    _answered.release = model.anonymize(window, policy, rng)
    return _answered.release


def take_answer() -> object:
    """What the core's implementation answered since the last call here, or NOT_ANSWERED."""
    answer = getattr(_answered, "release", NOT_ANSWERED)
    _answered.release = NOT_ANSWERED
    return answer


@hookimpl
def setveil_register_commands(register):
    from .bench import bench_run, bench_windows
    from .preparation import hierarchy, items

    register(items)
    register(hierarchy)
    register(bench_run, group="bench")
    register(bench_windows, group="bench")
