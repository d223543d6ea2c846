"""Releases made in a fresh Python process, for the kit's check that a seed fixes a release.

Python salts the hash of every ``str`` per process (PYTHONHASHSEED), so a model that iterates
over a set or a dict built from labels can release a window one way in the process that ran the
kit and another way in a worker that gets the window re-delivered, while every run within one
process agrees. :func:`releases` runs the same policies on the same windows in a child process
with a hash seed of its own; the child is this module run as a script, reading its job from
standard input.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from setveil.core.errors import Infeasible
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, get_registry
from setveil.core.window import Window, detached

#: the release of each window, as rows of labels, or None where the model refused it
Rows = list[list[str]] | None


def other_hash_seeds(count: int = 2) -> list[str]:
    """``count`` values of PYTHONHASHSEED that differ from this process's, if it was given one."""
    own = os.environ.get("PYTHONHASHSEED")
    return [seed for seed in ("1", "2", "3") if seed != own][:count]


def releases(model: str, jobs: Sequence[tuple[str, dict[str, Any]]], context: Context, windows: Sequence[Window],
             seed: int, hash_seeds: Sequence[str]) -> dict[str, list[list[Rows]]]:
    """For each hash seed, the releases a child process with that seed makes: one list per job
    (policy, parameters), one entry per window. The child loads the plugins as any process does
    (built-ins, then the entry points) and registers the plugins this process registered besides,
    so a model a test registered by hand is found too: a module by its name, a plugin object
    pickled (by reference to its class, which must be importable)."""
    manager = get_plugin_manager()
    modules = [(name, plugin.__name__) for name, plugin in manager.list_name_plugin() if isinstance(plugin, ModuleType)]
    objects = [(name, _pickled(plugin)) for name, plugin in manager.list_name_plugin()
               if not isinstance(plugin, ModuleType)]
    job = pickle.dumps({"path": sys.path, "modules": modules, "objects": objects, "model": model, "jobs": list(jobs),
                        "context": context, "windows": [window.read_only_copy() for window in windows], "seed": seed})
    children = {
        hash_seed: subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env={**os.environ, "PYTHONHASHSEED": hash_seed})
        for hash_seed in hash_seeds
    }
    found = {}
    for hash_seed, child in children.items():
        out, err = child.communicate(job)
        if child.returncode != 0:
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or [f"exit status {child.returncode}"]
            raise AssertionError(f"the {model!r} releases in a process with PYTHONHASHSEED={hash_seed} failed: {tail[0]}")
        found[hash_seed] = pickle.loads(out)
    return found


def _pickled(plugin: object) -> bytes | None:
    """``plugin`` pickled for the child, or None when it cannot be (a class defined in a function):
    the child then fails only if it does not load a plugin of that name itself."""
    try:
        return pickle.dumps(plugin)
    except Exception:
        return None


def _release_rows(model: Any, policy: Any, window: Window, seed: int) -> Rows:
    """The release of ``window`` as the kit and the pipeline ask for it, or None if refused."""
    try:
        release = get_plugin_manager().hook.setveil_anonymize_window(
            model=model, policy=policy, window=detached(window)[0], rng=np.random.default_rng(seed))
    except Infeasible:
        return None
    return list(release.window)


def _main() -> None:
    # the releases go back on standard output alone: what plugin code prints, in Python or from C,
    # goes to standard error (QA re-check: a model printing to standard output failed this test
    # as "unpickling stack underflow")
    sys.stdout.flush()
    results = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    job = pickle.load(sys.stdin.buffer)
    sys.path[:] = job["path"]
    manager = get_plugin_manager()
    for name, module in job["modules"]:
        if manager.get_plugin(name) is None:
            manager.register(importlib.import_module(module), name=name)
    for name, pickled in job["objects"]:
        if manager.get_plugin(name) is None:
            if pickled is None:
                raise RuntimeError(f"plugin {name!r}, registered by hand in the kit's process, cannot be pickled for "
                                   "this one: register an instance of a class defined at the top level of a module")
            manager.register(pickle.loads(pickled), name=name)
    found = []
    for policy, params in job["jobs"]:
        configured = get_registry().configure(job["model"], policy, params, job["context"])
        found.append([_release_rows(configured.model, configured.policy, window, job["seed"]) for window in job["windows"]])
    results.write(pickle.dumps(found))
    results.close()


if __name__ == "__main__":
    _main()
