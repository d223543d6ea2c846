"""setveil.core: the data model, plugin API, formats, metrics, verification and CLI.

Nothing in this package imports a plugin or the streaming service; both find the core
through the hooks in :mod:`setveil.core.hookspecs`.
"""
