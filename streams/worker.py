"""Running one worker process: create the topics, build the app, run it until stopped."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import tempfile
import threading

import click
import faust
from mode import Service

from setveil.core.errors import ParameterError
from setveil.core.plugins import Configured

from . import codec, interrupt
from .app import StreamService, create_app, window_processor
from .clientlog import CLIENT_LOGGERS, FAUST_CONSUMER_LOGGER, AssignmentStallFilter, quiet_repeats
from .isolation import check_picklable
from .kafka import ensure_topics
from .preflight import (check_data_dir, check_group_id, check_web_listen, data_dir_refusal, no_temporary_dir,
                        web_listen_refusal)
from .processor import model_map
from .settings import Settings, describe, fit_to_model

#: seconds a worker may take to stop before it exits without waiting for the rest
STOP_SECONDS = 10.0

log = logging.getLogger("setveil.streams")


class Worker(faust.Worker):
    """faust's worker, keeping the client libraries at info level or above whatever
    ``worker.log_level`` says: at debug they print every message they send or fetch."""

    def on_setup_root_logger(self, logger: logging.Logger, level: int) -> None:
        super().on_setup_root_logger(logger, level)
        for name in CLIENT_LOGGERS:
            logging.getLogger(name).setLevel(max(level or logging.INFO, logging.INFO))
        quiet_repeats()
        service = self.service
        if service is not None:
            conf = self.app.conf
            logging.getLogger(FAUST_CONSUMER_LOGGER).addFilter(AssignmentStallFilter(
                lambda: service.assigned_at,
                max(conf.stream_processing_timeout, conf.broker_commit_livelock_soft_timeout)))

    #: :func:`~.settings.describe` of the settings in force
    settings_lines: list[str] = []
    #: warnings about the model's item files, its windows' union and an unchecked release (:func:`start_notes`)
    notes: list[str] = []
    #: the worker's service: its fatal error makes the exit status of a stop that hangs
    service: StreamService | None = None
    #: Faust's temporary data directory, removed by a stop that hangs too
    temporary_dir: str | None = None
    #: the settings in force, which :func:`start_refusal` names
    settings: Settings | None = None
    #: why the worker could not start, as the setting at fault, raised once Faust has stopped
    refusal: ParameterError | None = None

    async def start(self) -> None:
        try:
            await super().start()
        except OSError as exc:
            # the web port taken, or the data directory made unwritable, after the preflight:
            # mode logged a traceback as an error and exited 1, naming no setting
            assert self.settings is not None  # set before the worker runs
            refusal = start_refusal(self.settings, str(self.app.conf.datadir), exc)
            if refusal is None:
                raise
            self.refusal = refusal

    async def on_first_start(self) -> None:
        await super().on_first_start()  # sets up logging: only now does a line reach the log
        for line in self.settings_lines:
            log.info("%s", line)
        for note in self.notes:
            log.warning("%s", note)

    async def on_stop(self) -> None:
        # a daemon thread: it runs on even while Python waits at exit for the consumer's thread
        watchdog = threading.Timer(STOP_SECONDS, self._stop_hangs)
        watchdog.daemon = True
        watchdog.start()
        await super().on_stop()

    def _stop_hangs(self) -> None:
        """Exit now: the stop has taken ``STOP_SECONDS``. With the broker gone, the consumer's
        thread retries to commit and to leave the group: Faust waited 60 s for it, then Python
        waited for it at exit for ever, /healthz hanging (found by a QA pass as an operator).
        What it would commit is committed by the partitions' next owner, or re-delivered."""
        status = 1 if self.service is not None and self.service.fatal is not None else 0
        if self.temporary_dir is not None:
            shutil.rmtree(self.temporary_dir, ignore_errors=True)
        try:
            stopping = still_stopping(self.loop)
        except Exception:  # read across threads, as the loop runs on: the watchdog must exit whatever it reads
            stopping = "not known"
        sys.stdout.flush()
        print(f"setveil: the worker did not stop within {STOP_SECONDS:g} s (still stopping: {stopping}); exiting "
              "without waiting for the rest of its stop", file=sys.stderr, flush=True)
        os._exit(status)


def start_refusal(settings: Settings, data_dir: str, exc: OSError) -> ParameterError | None:
    """The setting at fault in ``exc``, raised as Faust's worker started in ``data_dir``, found by
    where it was raised: its web server's bind, or the making of a directory in its data
    directory. None for any other cause, whose traceback is kept."""
    if exc.filename is not None and is_within(str(exc.filename), data_dir):
        return data_dir_refusal(settings, exc)
    traceback = exc.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_globals.get("__name__", "").startswith("faust.web."):
            return web_listen_refusal(settings, exc)
        traceback = traceback.tb_next
    return None


def is_within(path: str, directory: str) -> bool:
    """``path`` is ``directory`` or lies in it."""
    path, directory = os.path.abspath(path), os.path.abspath(directory)
    return os.path.commonpath([path, directory]) == directory


def still_stopping(loop: asyncio.AbstractEventLoop) -> str:
    """The services whose stop ``loop`` runs, each as the path of services stopping down to it
    (``ServiceApp > Consumer > AIOKafkaConsumerThread``), for a stop that overran its limit: it
    used to ask whether the broker was reachable, and one held by a group join had a broker that
    was. mode stops each child service in a task of its own; read from the watchdog's thread."""
    stopping = set()
    for task in asyncio.all_tasks(loop):
        frame = getattr(task.get_coro(), "cr_frame", None)
        if frame is not None and frame.f_code.co_name == "stop" and isinstance(frame.f_locals.get("self"), Service):
            stopping.add(frame.f_locals["self"])
    return "; ".join(stopping_paths(stopping)) or "none, the process waited at its exit"


def stopping_paths(stopping: set) -> list[str]:
    """Each service of ``stopping`` none of whose children is stopping, as the path of its stopping
    parents down to it, sorted. A parent already on the path ends it: the watchdog must reach its
    exit even if the services' tree, read as it changes, holds a cycle."""
    parents = {child: service for service in stopping for child in service._children if child in stopping}
    paths = []
    for service in stopping:
        if any(child in stopping for child in service._children):
            continue
        path = [service]
        while path[0] in parents and parents[path[0]] not in path:
            path.insert(0, parents[path[0]])
        paths.append(" > ".join(node.shortlabel for node in path))
    return sorted(paths)


def item_file_notes(settings: Settings, configured: Configured) -> list[str]:
    """A public list that lists no items, as ``setveil anonymize`` notes it. Paths only, no labels."""
    schema = configured.model.context.schema
    path = settings.model.public
    if schema is None or path is None or schema.public:
        return []
    # the consequence, as anonymize says it: a user may read an empty list as the default, every item not private
    return [f"{path} (model.public, from {settings.source('model.public')}) lists no items, so no item would be public"]


def union_notes(configured: Configured) -> list[str]:
    """A model that does not promise the union of safe windows safe (``union_safe`` False): each
    batch keeps its guarantee, batches joined by a consumer do not (QA as a plugin author)."""
    model = configured.model
    if model.union_safe:
        return []
    return [f"model {model.name!r} does not promise that the union of safe windows is safe: each batch is safe on "
            "its own, but batches joined by a consumer are not covered by its guarantee"]


def verify_notes(settings: Settings) -> list[str]:
    """``model.verify`` turned off: windows reach the output without the model's independent check,
    which the service's fail-closed guarantee rests on; said once at the start, not only by the
    settings line (QA as an operator)."""
    if settings.model.verify:
        return []
    return [f"model.verify=false (from {settings.source('model.verify')}): windows are released without the model's "
            "independent check, so a release the model got wrong reaches the output (batches say verified: false)"]


def start_notes(settings: Settings, configured: Configured) -> list[str]:
    """Every warning a worker gives at its start, as ``setveil serve --check`` gives them too."""
    return item_file_notes(settings, configured) + union_notes(configured) + verify_notes(settings)


def check_dead_letter_room(settings: Settings, configured: Configured) -> None:
    """``producer.max_request_bytes`` against a window's dead letter with these topic names and
    this model: one the Kafka client refused would stop the worker at that window on every
    restart (QA as a consumer: 1,024 bytes, the smallest allowed, with the default names)."""
    limit = settings.producer.max_request_bytes
    need = codec.largest_window_dead_letter(settings.topics.input, model_map(configured),
                                            codec.event_source(settings.consumer.group_id))
    if limit < need:
        raise ParameterError("producer.max_request_bytes", f"{limit} (from {settings.source('producer.max_request_bytes')}) "
                             f"is below the {need} bytes a window's dead letter may take with topic "
                             f"{settings.topics.input!r} and model {configured.model.name!r}; give at least {need}")


def prepare_worker(settings: Settings, configured: Configured) -> Settings:
    """Every check a worker makes before it connects (``setveil serve --check`` stops after
    them); the settings fitted to the model."""
    settings = fit_to_model(settings, configured.model)
    check_web_listen(settings)
    check_data_dir(settings)
    check_group_id(settings)
    check_dead_letter_room(settings, configured)
    if settings.model.time_limit:
        check_picklable(configured)
    return settings


def temporary_data_dir() -> str:
    """A temporary directory for Faust's data, the setting at fault named when none can be made."""
    try:
        return tempfile.mkdtemp(prefix="setveil-faust-")
    except OSError as exc:
        raise no_temporary_dir(exc) from None


def run_worker(settings: Settings, configured: Configured) -> int:
    """Serve until SIGINT/SIGTERM; the exit status is 1 after a fatal error (e.g. a refused batch).
    ``settings`` are those :func:`prepare_worker` returned."""
    counts = interrupt.run_stoppable(ensure_topics(settings))
    processor = window_processor(settings, configured)
    data_dir = settings.worker.data_dir
    try:
        # in the try: a failure here left the window process running, and the exit waited for it
        # (a temporary directory gone since the preflight: a traceback, then a hang until SIGTERM)
        data_dir = data_dir or temporary_data_dir()
        app, service = create_app(settings, processor, counts[settings.topics.windows], data_dir)
        worker = Worker(app, loglevel=settings.worker.log_level, quiet=True, redirect_stdouts=False)
        worker.spinner = None
        # now, not once the worker runs as Faust does: a signal in between stopped it inside Faust's
        # start, as serve's early handler raised it there (status 1, no word)
        worker.install_signal_handlers()
        worker.settings_lines = describe(settings)
        worker.notes = start_notes(settings, configured)
        worker.service = service
        worker.temporary_dir = None if settings.worker.data_dir else data_dir
        worker.settings = settings
        status = 0
        try:
            worker.execute_from_commandline()
        except SystemExit as stopped:
            # mode turns a failure to start (the web port taken, say) into a non-zero SystemExit
            status = stopped.code if isinstance(stopped.code, int) else 1 if stopped.code else 0
    except BaseException:
        # a stop signal before Faust took them, or any failure to start: the window process must
        # go first, or the exit waits for it (multiprocessing joins it) while it waits for the worker
        processor.close()
        raise
    finally:
        if data_dir and not settings.worker.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    interrupted = service.processing.is_set()
    # Only now: a window's child process killed while the agents ran would fail that window closed
    # instead of leaving it to be re-delivered.
    processor.close()
    if worker.refusal is not None:
        raise worker.refusal
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
