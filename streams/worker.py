"""Running one worker process: create the topics, build the app, run it until stopped."""

from __future__ import annotations

import asyncio
import shutil
import tempfile

import faust

from setveil.core.plugins import Configured

from .app import create_app
from .kafka import ensure_topics
from .settings import Settings


def run_worker(settings: Settings, configured: Configured) -> int:
    """Serve until SIGINT/SIGTERM; the exit status is 1 after a fatal error (e.g. a refused batch)."""
    counts = asyncio.run(ensure_topics(settings))
    data_dir = settings.worker.data_dir or tempfile.mkdtemp(prefix="setveil-faust-")
    try:
        app, service = create_app(settings, configured, counts[settings.topics.windows], data_dir)
        worker = faust.Worker(app, loglevel=settings.worker.log_level, quiet=True, redirect_stdouts=False)
        worker.spinner = None
        try:
            worker.execute_from_commandline()
        except SystemExit:
            pass
    finally:
        if not settings.worker.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 1 if service.fatal is not None else 0
