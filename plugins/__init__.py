"""setveil's own privacy-model plugins, one sub-package per family.

Each registers through the ``setveil`` entry-point group, exactly as a third party's would.
"""
