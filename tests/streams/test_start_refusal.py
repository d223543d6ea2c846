"""Which setting a worker names when Faust's own start fails after the preflight
(streams/worker.py, start_refusal): found by where the OSError was raised, the web server's bind
or a directory of Faust's data directory; any other OSError keeps its traceback. The errors here
are raised by Faust itself, with no broker: a bound port and a file where a directory goes."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import faust
import pytest

from setveil.streams.settings import load_settings
from setveil.streams.worker import is_within, start_refusal


def web_bind_failure(port: int) -> OSError:
    """The OSError of Faust's web server binding 127.0.0.1:``port``."""
    app = faust.App("setveil-start-refusal", web_bind="127.0.0.1", web_port=port)

    async def start() -> None:
        await app.web.start_server()

    with pytest.raises(OSError) as failed:
        asyncio.run(start())
    return failed.value


def data_dir_failure(data_dir: Path) -> OSError:
    """The OSError of Faust creating its directories in ``data_dir``, where a file stands in the
    place of its first one."""
    data_dir.mkdir()
    (data_dir / "v1").write_text("")
    with pytest.raises(OSError) as failed:
        faust.App("setveil-start-refusal", datadir=str(data_dir))._create_directories()
    return failed.value


def test_the_web_port_taken_names_web_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        exc = web_bind_failure(port)
    settings = load_settings(env={"SETVEIL_WEB_PORT": str(port), "SETVEIL_WEB_BIND": "127.0.0.1"})
    refusal = start_refusal(settings, "/nonexistent/faust", exc)
    assert refusal is not None and str(refusal) == (
        f"parameter 'web.port': {port} (from $SETVEIL_WEB_PORT) is in use on 127.0.0.1 by another process; "
        "allowed: a free port in [1, 65535]")


@pytest.mark.parametrize("given", [True, False], ids=["worker.data_dir", "temporary"])
def test_a_directory_of_faust_data_names_worker_data_dir(tmp_path, given):
    data_dir = tmp_path / "faust"
    exc = data_dir_failure(data_dir)
    settings = load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(data_dir) if given else ""})
    refusal = start_refusal(settings, str(data_dir), exc)
    where = f"{str(data_dir)!r} (from $SETVEIL_WORKER_DATA_DIR)" if given else "not set, so in a temporary one"
    # the directory Faust could not create, not the data directory, which it had
    assert refusal is not None and str(refusal) == (
        f"parameter 'worker.data_dir': {where}: Faust cannot create {data_dir / 'v1'} (File exists); allowed: a "
        "directory the worker may write, or one it may create")


def test_an_oserror_of_faust_elsewhere_keeps_its_traceback(tmp_path):
    # raised in Faust, but neither by its web server nor in the data directory the worker gave it
    # (a sibling whose name begins as the data directory's does): no setting is at fault
    exc = data_dir_failure(tmp_path / "faust-other")
    settings = load_settings(env={"SETVEIL_WORKER_DATA_DIR": str(tmp_path / "faust")})
    assert start_refusal(settings, str(tmp_path / "faust"), exc) is None


@pytest.mark.parametrize("path, within", [
    ("/srv/faust", True),
    ("/srv/faust/v1/tables", True),
    ("/srv/faust/../faust/v1", True),
    ("/srv/faust/../faust-other", False),
    ("/srv/faust-other", False),
    ("/srv", False),
])
def test_is_within_compares_whole_names(path, within):
    assert is_within(path, "/srv/faust") is within
