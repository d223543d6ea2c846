"""Where the command line writes: releases, reports, item lists, hierarchies, patterns, tables.

Every output path goes through :func:`check_output` before any data is read, so a bad path costs
nothing and an output that names an input is refused before it could destroy it. Writing
(:func:`write_output`, or :func:`write_outputs` for every output of a run at once) renders
everything first and then writes it in one go, so an error never leaves half an output behind
(nor half a release on stdout, nor a release without its report):

- ``-`` is standard output;
- a regular file (or a new one) is replaced atomically through a temporary file in its directory,
  keeping the permissions an existing file had;
- a symbolic link is followed, and the file it points to replaced;
- anything else that exists (``/dev/null``, a FIFO, a terminal) is opened and written, never
  replaced: replacing ``/dev/null`` with a regular file would break the machine.

Failures are :class:`~setveil.core.errors.InputError` naming the path and the reason (exit 2).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from .errors import InputError, ParameterError

STDOUT = "-"


def check_output(path: str | os.PathLike, flag: str, inputs=()) -> None:
    """Refuse, before anything is read, an output ``path`` (given as ``flag``) that cannot be
    written: a directory, a missing directory, a file or directory the user may not write, or one
    of the ``inputs`` (paths read by the run)."""
    text = os.fspath(path)
    if text == STDOUT:
        return
    if not text:
        raise ParameterError(flag.lstrip("-"), "the path is empty")
    target = Path(text)
    if target.is_dir():
        raise InputError(text, f"cannot write {flag}: it is a directory")
    if text.endswith(os.sep) or os.path.basename(text) in (".", ".."):
        # pathlib drops a trailing "/" or "/.", and the file would be written without it
        raise InputError(text, f"cannot write {flag}: a path ending in {os.sep}, {os.sep}. or {os.sep}.. names a "
                               "directory")
    real = target.resolve()
    parent = real.parent
    if not parent.is_dir():
        raise InputError(text, f"cannot write {flag}: no directory {parent}")
    # a regular file is replaced by a rename inside its directory; a device or pipe is opened
    mode = _mode_of(target, text)
    if mode is None or stat.S_ISREG(mode):
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(text, f"cannot write {flag}: directory {parent} is not writable")
    if mode is not None and not os.access(text, os.W_OK):
        # replacing it by a rename would succeed, and hand a read-only file to its writer
        raise InputError(text, f"cannot write {flag}: permission denied")
    for other in inputs:
        if other is None or os.fspath(other) == STDOUT:
            continue
        with contextlib.suppress(OSError):
            if mode is not None and os.path.samefile(real, other):
                raise ParameterError(flag.lstrip("-"), f"{text} is also read by this run; give another path")


def distinct_outputs(outputs: dict[str, str | os.PathLike | None]) -> None:
    """Refuse two outputs of one run (``{flag: path}``) that name the same file, or both
    standard output (their contents would interleave)."""
    seen: dict[str, str] = {}
    for flag, path in outputs.items():
        if path is None:
            continue
        key = STDOUT if os.fspath(path) == STDOUT else os.path.realpath(os.fspath(path))
        if key in seen:
            raise ParameterError(flag.lstrip("-"), f"{seen[key]} writes the same file; give another path")
        seen[key] = flag


def write_output(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` as the module docstring says."""
    write_outputs([(path, data)])


def write_outputs(outputs: list[tuple[str | os.PathLike, bytes]]) -> None:
    """Write several outputs of one run so that a failure leaves none of them behind: every
    regular file is first written in full to a temporary file beside it, then the outputs that
    cannot be replaced (standard output, devices, FIFOs) are written, and only when all of that
    succeeded are the temporary files renamed over their targets. (A device written before a
    later one fails cannot be taken back; a run has at most one such output in practice.)"""
    staged: list[tuple[str, str, Path]] = []
    try:
        direct = []
        for path, data in outputs:
            text = os.fspath(path)
            target = None if text == STDOUT else Path(os.path.realpath(text))
            # stat the path as given: /dev/stdout on a pipe resolves to a name that is no file
            # (/proc/self/fd/pipe:[...]), yet opening the path itself writes to the pipe
            mode = _mode_of(None if target is None else Path(text), text)
            if target is None or (mode is not None and not stat.S_ISREG(mode)):
                direct.append((text, None if target is None else Path(text), data))
            else:
                staged.append((text, _stage(target, data, None if mode is None else stat.S_IMODE(mode), text), target))
        for text, target, data in direct:
            _write_direct(text, target, data)
        for text, tmp, target in staged:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise InputError(text, f"cannot write: {exc.strerror or exc}") from None
    finally:
        for _, tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _mode_of(target: Path | None, text: str) -> int | None:
    if target is None:
        return None
    try:
        return target.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(text, f"cannot write: {exc.strerror or exc}") from None


def _write_direct(text: str, target: Path | None, data: bytes) -> None:
    try:
        if target is None:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        with open(target, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise InputError(text, f"cannot write: {exc.strerror or exc}") from None


def write_text_output(path: str | os.PathLike, text: str) -> None:
    write_output(path, text.encode("utf-8"))


def _stage(target: Path, data: bytes, mode: int | None, text: str) -> str:
    """``data`` in a new temporary file beside ``target``, with the permissions ``target`` should have."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        # the file may well exist: what failed is the file that would replace it (/proc/version
        # said "No such file or directory")
        raise InputError(text, f"cannot write: cannot create a temporary file in {target.parent} to replace it "
                         f"atomically: {exc.strerror or exc}") from None
    try:
        # mkstemp creates the file 0600; a new output gets the usual permissions, as open() would
        os.fchmod(fd, _default_mode() if mode is None else mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(text, f"cannot write: {exc.strerror or exc}") from None
        raise
    return tmp


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
