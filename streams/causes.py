"""Why a window failed closed, and why an input message was dead-lettered (docs/operations.md,
"Metrics"; docs/batch-format.md, "Dead letters").

One place for the label values: the code that rejects uses these names, and the metrics export
every value as 0 from the start (a series that appears only with its first event has no earlier
sample, so ``rate(...) > 0`` misses that event).
"""

from __future__ import annotations

# -- the ``cause`` of a rejected window ----------------------------------------------------------
INFEASIBLE = "infeasible"  # no safe release of the window exists
CHECK_FAILED = "check-failed"  # the release failed the model's independent check
TIMEOUT = "timeout"  # not anonymized and checked within model.time_limit
OVERLAP = "overlap"  # the rest of a window whose first offsets were committed
OVERSIZE = "oversize"  # the batch exceeds producer.max_request_bytes (a message: records.max_message_bytes)
ERROR = "error"  # the model, its checker or the service erred
WINDOW_CAUSES = (INFEASIBLE, CHECK_FAILED, TIMEOUT, OVERLAP, OVERSIZE, ERROR)

# -- the ``kind`` of a dead-lettered input message -----------------------------------------------
EMPTY = "empty"  # no bytes
MALFORMED = "malformed"  # not msgpack
INVALID = "invalid"  # msgpack, but not a valid record
MESSAGE_KINDS = (EMPTY, OVERSIZE, MALFORMED, INVALID)
