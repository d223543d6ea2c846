"""Running one worker process: create the topics, build the app, run it until stopped."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile

import click
import faust

from setveil.core.plugins import Configured

from .app import create_app
from .isolation import check_picklable
from .kafka import ensure_topics
from .preflight import check_web_listen
from .settings import Settings, describe, fit_to_model


#: the client libraries log whole messages (keys, values: transaction contents) at debug level
CLIENT_LOGGERS = ("aiokafka", "kafka", "faust", "mode")

log = logging.getLogger("setveil.streams")


class Worker(faust.Worker):
    """faust's worker, keeping the client libraries at info level or above whatever
    ``worker.log_level`` says: at debug they print every message they send or fetch."""

    def on_setup_root_logger(self, logger: logging.Logger, level: int) -> None:
        super().on_setup_root_logger(logger, level)
        for name in CLIENT_LOGGERS:
            logging.getLogger(name).setLevel(max(level or logging.INFO, logging.INFO))

    #: :func:`~.settings.describe` of the settings in force
    settings_lines: list[str] = []

    async def on_first_start(self) -> None:
        await super().on_first_start()  # sets up logging: only now does a line reach the log
        for line in self.settings_lines:
            log.info("%s", line)


def run_worker(settings: Settings, configured: Configured) -> int:
    """Serve until SIGINT/SIGTERM; the exit status is 1 after a fatal error (e.g. a refused batch)."""
    settings = fit_to_model(settings, configured.model)
    check_web_listen(settings)
    if settings.model.time_limit:
        check_picklable(configured)
    counts = asyncio.run(ensure_topics(settings))
    data_dir = settings.worker.data_dir or tempfile.mkdtemp(prefix="setveil-faust-")
    try:
        app, service = create_app(settings, configured, counts[settings.topics.windows], data_dir)
        worker = Worker(app, loglevel=settings.worker.log_level, quiet=True, redirect_stdouts=False)
        worker.spinner = None
        worker.settings_lines = describe(settings)
        status = 0
        try:
            worker.execute_from_commandline()
        except SystemExit as stopped:
            # mode turns a failure to start (the web port taken, say) into a non-zero SystemExit
            status = stopped.code if isinstance(stopped.code, int) else 1 if stopped.code else 0
    finally:
        if not settings.worker.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    interrupted = service.processing.is_set()
    # Only now: a window's child process killed while the agents ran would fail that window closed
    # instead of leaving it to be re-delivered.
    service.processor.close()
    status = 1 if service.fatal is not None or status != 0 else 0
    if interrupted:
        # Python would wait at exit for the window thread, which nothing can interrupt: a long
        # window kept a stopped worker alive for minutes. Nothing of that window was
        # acknowledged, so the next owner of its partition re-delivers it.
        # faust has closed the log handlers by now
        click.echo("setveil: stopping while a window is being anonymized; it is re-delivered to the partition's "
                   "next owner", err=True)
        os._exit(status)
    return status
