"""ρ-uncertainty by partial suppression (Jia et al.) as a setveil plugin: model ``rho`` with
policies ``mine`` (default), ``dist`` and the global-suppression baseline ``global`` (Cao et
al., VLDB'10), and the ``setveil bench rho`` experiments."""

from setveil.core.hookspecs import hookimpl

from .model import RhoUncertainty
from .policies import Dist, Global, Mine, Options, RhoPolicy, State

__all__ = ["Dist", "Global", "Mine", "Options", "RhoPolicy", "RhoUncertainty", "State"]


@hookimpl
def setveil_register_privacy_models(register):
    register(RhoUncertainty)


@hookimpl
def setveil_register_policies(register):
    for policy in (Mine, Dist, Global):
        register(policy)


@hookimpl
def setveil_register_commands(register):
    from .bench import rho_bench

    register(rho_bench, group="bench")
