"""Where the command line writes: releases, reports, item lists, hierarchies, patterns, tables.

Every output path goes through :func:`check_output` before any data is read, so a bad path costs
nothing and an output that names an input is refused before it could destroy it. Writing
(:func:`write_output`) renders everything first and then writes it in one go, so an error never
leaves half an output behind (nor half a release on stdout):

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
    written: a directory, a missing directory, or one of the ``inputs`` (paths read by the run)."""
    text = os.fspath(path)
    if text == STDOUT:
        return
    target = Path(text)
    if target.is_dir():
        raise InputError(text, f"cannot write {flag}: it is a directory")
    parent = target.resolve().parent
    if not parent.is_dir():
        raise InputError(text, f"cannot write {flag}: no directory {parent}")
    for other in inputs:
        if other is None or os.fspath(other) == STDOUT:
            continue
        with contextlib.suppress(OSError):
            if target.exists() and os.path.samefile(target, other):
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
    text = os.fspath(path)
    try:
        if text == STDOUT:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        target = Path(os.path.realpath(text))
        try:
            mode = target.stat().st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            with open(target, "wb") as handle:
                handle.write(data)
            return
        _replace(target, data, None if mode is None else stat.S_IMODE(mode))
    except OSError as exc:
        raise InputError(text, f"cannot write: {exc.strerror or exc}") from None


def write_text_output(path: str | os.PathLike, text: str) -> None:
    write_output(path, text.encode("utf-8"))


def _replace(target: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        # mkstemp creates the file 0600; a new output gets the usual permissions, as open() would
        os.fchmod(fd, _default_mode() if mode is None else mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
