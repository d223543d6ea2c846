"""Sanitization hiding restrictive frequent patterns (Oliveira & Zaïane, TR 02-13, 2002) as a
setveil plugin: model ``sanitize``, policies ``iga`` (default), ``naive``, ``minfia``, ``maxfia``,
and the commands ``setveil patterns sample`` and ``setveil bench sanitize``."""

from setveil.core.hookspecs import hookimpl

from .model import Sanitize
from .policies import IGA, MaxFIA, MinFIA, Naive, SanitizePolicy

__all__ = ["IGA", "MaxFIA", "MinFIA", "Naive", "Sanitize", "SanitizePolicy"]


@hookimpl
def setveil_register_privacy_models(register):
    register(Sanitize)


@hookimpl
def setveil_register_policies(register):
    for policy in (IGA, Naive, MinFIA, MaxFIA):
        register(policy)


@hookimpl
def setveil_register_commands(register):
    from .commands import bench_sanitize, patterns_group

    register(patterns_group)
    register(bench_sanitize, group="bench")
