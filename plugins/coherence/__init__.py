"""(h,k,p)-coherence (Xu et al., KDD'08) as a setveil plugin: model ``coherence``, policies
``mm-il`` (default), ``mm`` and ``il``."""

from setveil.core.hookspecs import hookimpl

from .model import Coherence
from .policies import CoherencePolicy, MaxMM, MaxMMPerIL, MinIL

__all__ = ["Coherence", "CoherencePolicy", "MaxMM", "MaxMMPerIL", "MinIL"]


@hookimpl
def setveil_register_privacy_models(register):
    register(Coherence)


@hookimpl
def setveil_register_policies(register):
    for policy in (MaxMMPerIL, MaxMM, MinIL):
        register(policy)


@hookimpl
def setveil_register_commands(register):
    from .experiments import bench_coherence

    register(bench_coherence, group="bench")
