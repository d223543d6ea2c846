"""The Kafka client's log: which loggers are the client's, its repeated warnings thinned, Faust's
stall checks measured from the assignment, and its bootstrap errors left to the caller.

With the broker gone, aiokafka retries every connection every 100 ms and logs each failure; a
worker, ``setveil tail`` and ``setveil replay`` all keep one line per kind every few seconds.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator

#: the client libraries log whole messages (keys, values: transaction contents) at debug level
CLIENT_LOGGERS = ("aiokafka", "kafka", "faust", "mode")
#: seconds between two warnings or errors of the Kafka client that say the same thing
REPEAT_SECONDS = 10.0


class RepeatFilter(logging.Filter):
    """Lets through one warning or error per logger and message template every ``interval``
    seconds; the next one that passes says how many were left out. With the broker gone,
    aiokafka retries every connection every 100 ms and logs each failure: about 110 ERROR lines
    a second, 25 MB in 20 minutes (found by a QA pass as an operator)."""

    def __init__(self, interval: float):
        super().__init__()
        self.interval = interval
        #: (logger, template) -> (when one last passed, how many were left out since)
        self.seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, str(record.msg))
        now = time.monotonic()
        passed, left_out = self.seen.get(key, (now - self.interval, 0))
        if now - passed < self.interval:
            self.seen[key] = (passed, left_out + 1)
            return False
        self.seen[key] = (now, 0)
        if left_out:
            record.msg = f"{record.getMessage()} ({left_out} more like it in the last {now - passed:.0f} s not shown)"
            record.args = ()  # the text is final (mode's formatter makes None an argument)
        return True


def quiet_repeats(prefix: str = "aiokafka", interval: float = REPEAT_SECONDS) -> None:
    """Put one :class:`RepeatFilter` on every logger of the client that has none (a logger's
    filter sees only the records logged to it, not those of its children)."""
    repeats = RepeatFilter(interval)
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and (name == prefix or name.startswith(prefix + ".")) \
                and not any(isinstance(f, RepeatFilter) for f in logger.filters):
            logger.addFilter(repeats)


#: Faust's consumer thread logs its stall checks here
FAUST_CONSUMER_LOGGER = "faust.transport.drivers.aiokafka"


class AssignmentStallFilter(logging.Filter):
    """Drops Faust's stall errors that measure from the worker's start (``Aiokafka has not sent
    fetch request for TP(...) since start (started 32.52 minutes ago)``, and the like for fetch
    responses, highwaters, streams and commits) while the latest assignment is younger than
    ``timeout``, the check's own threshold. Faust's check runs every few seconds outside
    rebalances; run between an assignment and the first fetch of a partition it was given, in a
    worker up longer than ``timeout``, it reported a stall that was none (a QA soak: after each
    broker pause, one ERROR per partition, and fetching resumed at once). A partition that has
    still not fetched ``timeout`` after its assignment is reported as before."""

    def __init__(self, assigned_at: Callable[[], float | None], timeout: float):
        super().__init__()
        self.assigned_at = assigned_at
        self.timeout = timeout

    def filter(self, record: logging.LogRecord) -> bool:
        if "(started %s)" not in str(record.msg):
            return True
        assigned = self.assigned_at()
        return assigned is None or time.monotonic() - assigned >= self.timeout


@contextlib.contextmanager
def bootstrap_errors_unlogged() -> Iterator[None]:
    """Keep aiokafka's own ERROR lines about the bootstrap servers (``Unable connect to
    "host:port": [Errno 111] ...``) out of the log: the caller reports an unreachable broker in
    one line that names kafka.bootstrap. Before the worker sets up logging they reached the
    terminal raw, above that line (found by a QA pass as an operator)."""
    client_log = logging.getLogger("aiokafka")  # aiokafka.client logs here

    def unlogged(record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR

    client_log.addFilter(unlogged)
    try:
        yield
    finally:
        client_log.removeFilter(unlogged)
