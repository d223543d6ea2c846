"""setveil.streams: the Faust service over Kafka (windows, envelopes, dead letters, metrics)."""

import os

#: what Faust reads from F_<name> or FAUST_<name> once, when it is imported (faust.types._env
#: and faust/__init__.py; its own F_WEB_BIND comes out as F_F_WEB_BIND)
FAUST_IMPORT_NAMES = ("DEBUG", "WORKDIR", "DATADIR", "BLOCKING_TIMEOUT", "FORCE_BLOCKING_TIMEOUT", "CONSOLE_PORT",
                      "STRICT", "WEB_PORT", "F_WEB_BIND", "WEB_TRANSPORT", "LOOP")

# A worker is configured by setveil's settings alone (the app is built with env={}), but these
# are read before any app is built: F_WEB_PORT=abc ended `serve` in Faust's traceback, F_DEBUG
# turned on its debug mode and FAUST_WEB_TRANSPORT moved the probes off web.port. This package
# runs before any of its modules imports Faust.
for _name in FAUST_IMPORT_NAMES:
    os.environ.pop(f"F_{_name}", None)
    os.environ.pop(f"FAUST_{_name}", None)
del _name
