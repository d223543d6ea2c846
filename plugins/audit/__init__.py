"""The audit side: attacks on releases, as a setveil plugin. It implements the de-anonymization
of item-renamed transaction data from published frequent itemsets by integer and linear
programming (Mielikäinen, "Privacy problems with anonymized transaction databases", DS 2004),
as the commands ``setveil audit rename|publish|deanonymize`` and ``setveil bench audit``."""

from setveil.core.hookspecs import hookimpl


@hookimpl
def setveil_register_commands(register):
    from .commands import audit, bench_audit

    register(audit)
    register(bench_audit, group="bench")
