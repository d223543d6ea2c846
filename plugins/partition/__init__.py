"""k-anonymity of set-valued data by top-down local generalization (He & Naughton, VLDB'09) and
the k^m-anonymity baseline AA (Terrovitis, Mamoulis, Kalnis, VLDB'08) as a setveil plugin:
models ``kanonymity`` (policy ``partition``) and ``km-anonymity`` (policy ``aa``), and the
``setveil bench partition`` command."""

from setveil.core.hookspecs import hookimpl

from .models import KAnonymity, KmAnonymity
from .policies import Apriori, KAnonymityPolicy, KmAnonymityPolicy, Partition

__all__ = ["Apriori", "KAnonymity", "KAnonymityPolicy", "KmAnonymity", "KmAnonymityPolicy", "Partition"]


@hookimpl
def setveil_register_privacy_models(register):
    register(KAnonymity)
    register(KmAnonymity)


@hookimpl
def setveil_register_policies(register):
    register(Partition)
    register(Apriori)


@hookimpl
def setveil_register_commands(register):
    from .bench import partition_bench

    register(partition_bench, group="bench")
