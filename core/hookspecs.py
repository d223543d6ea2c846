"""The hook specifications of setveil (pluggy project marker ``setveil``).

Hooks are for discovery and lifecycle; hot loops call the chosen model and policy objects
directly. Plugins implement them with :data:`hookimpl` and are found through the
``setveil`` entry-point group.

A new hook needs a name no closer to an existing one's than ``plugins.MISSPELLING``: a plugin's
``optionalhook`` implementation that close to a hook is refused as its misspelling, so a plugin
written for the new hook would be refused by this version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

if TYPE_CHECKING:
    import click
    import numpy as np

    from .model import Policy, PrivacyModel, Release
    from .window import Window

hookspec = pluggy.HookspecMarker("setveil")
hookimpl = pluggy.HookimplMarker("setveil")


class RegisterCommand(Protocol):
    """The ``register`` callback :func:`setveil_register_commands` is given."""

    def __call__(self, command: click.Command, group: str | None = None) -> None: ...


@hookspec
def setveil_register_privacy_models(register: Callable[[type[PrivacyModel[Any]]], None]) -> None:
    """Register privacy-model classes by calling ``register(ModelClass)`` once per model.

    Called once, when the registry is first built. Every implementation is called; a second
    registration of a model name raises an error naming both distributions.
    """


@hookspec
def setveil_register_policies(register: Callable[[type[Policy]], None]) -> None:
    """Register suppression/generalization policies by calling ``register(PolicyClass)``.

    Called once, after all models are registered. Every implementation is called. A policy
    names the model it serves (``PolicyClass.model``) and must subclass that model's
    ``policy_base``; it may serve a model from another distribution.
    """


@hookspec
def setveil_register_commands(register: RegisterCommand) -> None:
    """Add commands to the ``setveil`` command line by calling ``register(command)`` with a
    ``click.Command`` (or ``click.Group``) for a top-level command, or ``register(command,
    group="bench")`` to add it to a group: ``bench``, or one any plugin registers.

    Called once when the CLI starts. Every implementation is called; the commands are added once
    all have been, top-level ones first (setveil's own before any plugin's), so neither a name nor
    a group depends on the order plugins are found in. A name that is taken, or a group no plugin
    registers, stops the CLI naming the distribution that asked.
    """


@hookspec(firstresult=True)
def setveil_anonymize_window(
    model: PrivacyModel[Any], policy: Policy, window: Window, rng: np.random.Generator
) -> Release | None:
    """Produce the release of one window.

    Called once per window, offline and in the service. The first non-None result wins; the
    core's built-in implementation, which calls ``model.anonymize``, runs last (a plugin's
    marked ``trylast`` would run after it, and is refused at start-up). Implement it
    with ``wrapper=True`` to observe every window (timing, tracing); the result is then
    checked by ``model.violations`` whatever produced it.
    """


@hookspec
def setveil_window_anonymized(window: Window, release: Release, report: dict[str, Any]) -> None:
    """Observe a window whose release passed the model's check (or was not checked:
    ``report["verified"]`` is False under ``--no-verify`` and ``model.verify = false``).

    Called once per anonymized window, after verification and before the release is written or
    produced; offline, a window observed here is not written when a later window of the same
    file is rejected (nothing of that file is); in the service, one whose batch then exceeds
    ``producer.max_request_bytes`` is dead-lettered instead and observed by
    ``setveil_window_rejected`` too. Every implementation is called, each on its own:
    one that raises is logged and keeps neither the others nor the window from going on. The
    report holds counts, timings and loss, never transaction contents (its keys are in
    docs/plugins.md). In a service worker with
    ``model.time_limit`` set, windows are anonymized in a child process, and this hook is called
    there.
    """


@hookspec
def setveil_window_rejected(window: Window | None, model: PrivacyModel[Any], reason: str) -> None:
    """Observe a window that failed closed: infeasible, the algorithm erred, the check failed or,
    in the service, the window could not be processed (``model.time_limit`` passed, the child
    process died, a service error, the rest of a window already committed) or its batch exceeds
    ``producer.max_request_bytes`` (after ``setveil_window_anonymized`` observed it).

    Called once per rejected window. Every implementation is called, each on its own, as for
    ``setveil_window_anonymized``. ``reason`` is safe to log.
    ``window`` is None only when the service could not build the window from its records. With
    ``model.time_limit`` set, rejections by the pipeline are observed in the child process that
    anonymizes windows, those by the time limit or the child's death in the worker.
    """
