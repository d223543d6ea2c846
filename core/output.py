"""Where the command line writes: releases, reports, item lists, hierarchies, patterns, tables.

Every output path goes through :func:`check_output` before any data is read, so a bad path costs
nothing and an output that names an input is refused before it could destroy it. Writing
(:func:`write_output`, or :func:`write_outputs` for every output of a run at once) renders
everything first and then writes it in one go, so an error never leaves half an output behind
(nor half a release on stdout, nor a release without its report):

- ``-`` is standard output;
- a regular file (or a new one) is replaced atomically through a temporary file in its directory,
  keeping the permissions an existing file had;
- a symbolic link is followed, and the file it points to replaced, except a name of an open
  descriptor (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/3``), which is written to (descriptor
  1 as ``-`` is);
- anything else that exists (``/dev/null``, a FIFO, a terminal) is opened and written, never
  replaced: replacing ``/dev/null`` with a regular file would break the machine.

A path ending in ``.gz``, in any case, is written gzipped, whatever the output: a release
(:func:`setveil.core.formats.render_window`) or text (:func:`text_bytes`), with no time in the
gzip header, so the same output is the same bytes whenever it is written.

One exception: of two outputs that cannot be replaced, such as ``-o - --report /dev/full``, the
one written first stays written when the other fails, since what went to standard output or a
device cannot be taken back.

Failures are :class:`~setveil.core.errors.InputError` naming the path and the reason (exit 2).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import io
import json
import math
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TextIO

from .errors import InputError, ParameterError

STDOUT = "-"
STDIN = "-"


class WriteError(InputError):
    """An output that cannot be written, where ``-`` is standard output, named as it is given
    (``-: cannot write: Broken pipe``), not as the standard input an input's ``-`` is."""

    dash = STDOUT


def check_output(path: str | os.PathLike, flag: str, inputs=()) -> None:
    """Refuse, before anything is read, an output ``path`` (given as ``flag``) that cannot be
    written: a directory, a missing directory, a file or directory the user may not write, or one
    of the ``inputs`` (paths read by the run)."""
    text = os.fspath(path)
    _refuse_reading_back(text, flag, inputs)
    if text == STDOUT:
        return
    if not text:
        raise ParameterError(flag.lstrip("-"), "the path is empty")
    target = Path(text)
    if _is_dir(target, text, flag):
        raise InputError(text, f"cannot write {flag}: it is a directory")
    if text.endswith(os.sep) or os.path.basename(text) in (".", ".."):
        # pathlib drops a trailing "/" or "/.", and the file would be written without it
        raise InputError(text, f"cannot write {flag}: a path ending in {os.sep}, {os.sep}. or {os.sep}.. names a "
                               "directory")
    real = target.resolve()
    parent = real.parent
    if not _is_dir(parent, text, flag):
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


#: the failures of a stat that mean "no such directory" (those pathlib's is_dir took for False, but
#: ELOOP: a loop of symbolic links is no file to write, and pathlib's resolve then raised RuntimeError)
_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF)


def _is_dir(path: Path, text: str, flag: str) -> bool:
    """Whether ``path`` is a directory; a stat that fails otherwise than for a missing file (a name
    longer than the system takes, a directory the user may not search) is the output's refusal,
    where pathlib passed it on as a traceback up to Python 3.13, and from 3.14 took it for "no
    such directory" (the Python 3.14 run)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno in _NOT_THERE:
            return False
        raise InputError(text, f"cannot write {flag}: {exc.strerror or exc}") from None
    except ValueError:  # a NUL in the name: pathlib's is_dir said False
        return False


def _identity(text: str, standard: int, regular_only: bool = False) -> tuple[int, int] | None:
    """The device and inode of the file ``text`` names, or that the standard stream ``standard``
    (0 or 1) is open on when ``text`` is ``-``; None for what cannot be stat'ed, and with
    ``regular_only`` for anything but a regular file (a terminal or pipe is no file to destroy)."""
    try:
        found = os.fstat(_descriptor(standard)) if text == STDOUT else _stat(text)
    except (OSError, ValueError):
        return None
    if regular_only and not stat.S_ISREG(found.st_mode):
        return None
    return found.st_dev, found.st_ino


def _descriptor(standard: int) -> int:
    """The descriptor of standard stream ``standard``: standard output's data is on the one
    :func:`reserve_stdout` moved it to, while descriptor 1 writes to standard error (QA of the
    move: ``-o - >> in.dat`` was checked against standard error and appended to the input)."""
    return _moved.fileno() if standard == 1 and _moved is not None else standard


def _stat(text: str) -> os.stat_result:
    """``os.stat`` of a path, where a name of descriptor 1 (``/dev/stdout``) is the data's
    descriptor while :func:`reserve_stdout` has moved it (QA re-check: `bench run /dev/stdout
    --json -` read standard error's file as its input)."""
    if _moved is not None and _descriptor_named(text) == 1:
        return os.fstat(_moved.fileno())
    return os.stat(text)


def names_standard_output(path: str | os.PathLike) -> bool:
    """Whether ``path`` is standard output: ``-``, or a name of descriptor 1 such as ``/dev/stdout``."""
    text = os.fspath(path)
    return text == STDOUT or _descriptor_named(text) == 1


def _descriptor_named(text: str) -> int | None:
    """The open descriptor a name such as ``/dev/stdout``, ``/dev/stderr`` or ``/dev/fd/3``
    stands for, else None."""
    path = os.path.abspath(text)
    streams = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
    if path in streams:
        return streams[path]
    for prefix in ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/"):
        number = path.removeprefix(prefix)
        if number != path and number.isascii() and number.isdigit():
            return int(number)
    return None


def _refuse_reading_back(text: str, flag: str, inputs) -> None:
    """Refuse an output that is a regular file the run reads, where one side is a standard
    stream: ``-o out.dat < out.dat`` with the input ``-``, or ``-o - >> in.dat`` (QA: the first
    replaced the input with its release, and the path check skipped ``-`` on both sides)."""
    if text == STDOUT:
        for other in inputs:
            if other is None:
                continue
            try:
                refuse_reading_standard_output(other)
            except InputError:
                raise ParameterError(flag.lstrip("-"), "standard output is also read by this run; give another "
                                     "path") from None
        return
    own = _identity(text, 1, regular_only=True)
    if own is not None and any(other is not None and os.fspath(other) == STDIN for other in inputs):
        if _identity(STDIN, 0, regular_only=True) == own:
            raise ParameterError(flag.lstrip("-"), f"{text} is also read by this run; give another path")


def refuse_reading_standard_output(path: str | os.PathLike) -> None:
    """Refuse to read what standard output is open on: a regular file (``verify in.dat r.dat >>
    in.dat``, or ``- < in.dat >> in.dat``), where what the command prints would land in a file it
    reads and be read as data by the next run (QA: verify appended its violations to the
    original), or the pipe it writes to (``/dev/stdout | cat``, which waited for itself). Every
    reader of a user's file calls it (``path`` ``-`` is standard input), so no command needs to
    know which of its files are read."""
    text = os.fspath(path)
    own = _identity(STDOUT, 1)
    if own is None or own == _identity(os.devnull, 1):
        return
    if text == STDIN:
        found = _identity(STDOUT, 0, regular_only=True)  # a terminal on both is no file to destroy
    else:
        try:
            status = _stat(text)
        except (OSError, ValueError):
            return  # the reader names what is wrong with it
        # a terminal read as /dev/stdout is typed into, not written back
        found = None if stat.S_ISCHR(status.st_mode) else (status.st_dev, status.st_ino)
    if found == own:
        raise InputError(text, "is also standard output, which this run would write into; redirect standard "
                               "output elsewhere")


def distinct_outputs(outputs: dict[str, str | os.PathLike | None]) -> None:
    """Refuse two outputs of one run (``{flag: path}``) that name the same file, or both
    standard output, by ``-`` or by a path such as ``/dev/stdout`` (their contents would
    interleave, or one file replace the other); ``/dev/null`` may take several."""
    seen: dict[object, str] = {}
    discard = _identity(os.devnull, 1)
    for flag, path in outputs.items():
        if path is None:
            continue
        text = os.fspath(path)
        key: object = _identity(text, 1) or (STDOUT if text == STDOUT else os.path.realpath(text))
        if discard is not None and key == discard:
            continue  # what is written there is dropped, so several outputs may go (a benchmark's run)
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
        direct: list[tuple[str, Path | int | None, bytes]] = []
        for path, data in outputs:
            text = os.fspath(path)
            # a name of an open descriptor is written there (descriptor 1 as "-" is): replacing the
            # file it resolves to would drop what the shell wrote to that file before and send
            # what it writes after to the replaced one (QA: `-o /dev/stdout >> log` lost the log)
            descriptor = None if text == STDOUT else _descriptor_named(text)
            if descriptor is not None and descriptor != 1:
                direct.append((text, descriptor, data))
                continue
            target = None if text == STDOUT or descriptor == 1 else Path(os.path.realpath(text))
            # stat the path as given: /dev/stdout on a pipe resolves to a name that is no file
            # (/proc/self/fd/pipe:[...]), yet opening the path itself writes to the pipe
            mode = _mode_of(None if target is None else Path(text), text)
            if target is None or (mode is not None and not stat.S_ISREG(mode)):
                direct.append((text, None if target is None else Path(text), data))
            else:
                staged.append((text, _stage(target, data, None if mode is None else stat.S_IMODE(mode), text), target))
        for text, where, data in direct:
            _write_direct(text, where, data)
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


#: standard output, while a command keeps it for its data (:func:`reserve_stdout`)
_reserved: TextIO | None = None
#: the file over the descriptor standard output's data went to, while descriptor 1 is moved
_moved: TextIO | None = None


def reserve_stdout() -> Callable[[], None]:
    """Keep standard output for the data written to ``-`` and send the text the command prints
    (tables, notes) to standard error, so that ``--json -`` is JSON alone (QA: a benchmark's
    table came first). With standard error closed that text is dropped, not mixed into the data
    (QA re-check: ``--json - 2>&-`` began with the table). When standard output is file
    descriptor 1, the descriptor is moved as well: plugin code that prints, in Python or from C
    (a solver's banner, ``os.write(1, ...)``), wrote lines into ``anonymize -o -``'s release
    (QA as a hostile plugin author). Returns the function that ends it, when the command is
    done: it closes the data's descriptor and leaves descriptor 1 where it is, since a plugin's
    thread or exit handler may still print (QA re-check: one appended a line to the release)."""
    global _reserved, _moved
    if _reserved is not None or sys.stdout is None:
        return lambda: None
    original = sys.stdout
    original.flush()
    moved = _moved = _move_descriptor(original)
    _reserved = original if moved is None else moved
    discard = open(os.devnull, "w") if sys.stderr is None else None
    sys.stdout = sys.stderr if discard is None else discard

    def release() -> None:
        global _reserved, _moved
        if _reserved is not None:
            if moved is not None:
                with contextlib.suppress(OSError):
                    moved.close()
            sys.stdout, _reserved, _moved = original, None, None
        if discard is not None:
            discard.close()

    return release


def _move_descriptor(stdout: TextIO) -> TextIO | None:
    """A file over a duplicate of descriptor 1 for the data, with descriptor 1 then writing to
    standard error's (or to /dev/null when that is closed); None when ``stdout`` is not on
    descriptor 1 (a test's captured output). The duplicate is above the standard three, which
    it would otherwise take when standard error is closed (QA re-check: ``2>&-`` left
    descriptor 1 on the data), and is not inherited by the programs the command starts."""
    try:
        if stdout.fileno() != 1:
            return None
    except (AttributeError, OSError, ValueError):
        return None
    data = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    # sys.stderr is None when descriptor 2 was closed at start: a file opened since may hold it
    # (libffi's trampolines keep their library open there, a plugin its log), which descriptor 1
    # must not join (a write failed the window, or went into the plugin's file)
    if sys.stderr is not None and _is_open(2):
        os.dup2(2, 1)
    else:
        sink = os.open(os.devnull, os.O_WRONLY)
        os.dup2(sink, 1)
        os.close(sink)
    return open(data, "w", encoding=stdout.encoding, errors=stdout.errors, closefd=True)


def _is_open(descriptor: int) -> bool:
    try:
        os.fstat(descriptor)
    except OSError:
        return False
    return True


def _write_direct(text: str, target: Path | int | None, data: bytes) -> None:
    try:
        if isinstance(target, int):
            for stream in (sys.stdout, sys.stderr):  # what the command printed there comes first
                if stream is not None:
                    stream.flush()
            with open(os.dup(target), "wb") as handle:
                _write_all(handle, data)
            return
        if target is None:
            out = _reserved if _reserved is not None else sys.stdout
            if out is None:
                raise WriteError(text, "cannot write: standard output is closed")
            out.flush()
            _write_all(out.buffer, data)
            out.buffer.flush()
            return
        with open(target, "wb") as handle:
            _write_all(handle, data)
    except OSError as exc:
        raise WriteError(text, f"cannot write: {exc.strerror or exc}") from None


def _write_all(handle: BinaryIO, data: bytes) -> None:
    """Write all of ``data``. A buffered write returns short when a signal cuts the system call
    short, as the SIGPIPE of a reader that goes away mid-write does: the rest is written again,
    which then fails with the pipe's error (QA: a release cut at 64 KiB, exit status 0)."""
    view = memoryview(data)
    while view:
        written = handle.write(view)
        if not written:
            raise OSError(errno.EIO, "the write made no progress")
        view = view[written:]


class _StdoutBuffer(io.BufferedIOBase):
    """Standard output's binary stream, whose write errors are :class:`InputError` naming ``-``.

    Every command's text reaches standard output through it (click's echo, tables, ``-o -``), so
    a full disk or a reader gone is one line and exit status 2 wherever it happens, not a traceback
    (ENOSPC) or click's silent status 1 (EPIPE), which ``verify`` uses for a failed check. After
    the first error the rest is dropped: it could not be written either, and the error said so."""

    def __init__(self, buffer: BinaryIO):
        super().__init__()
        self._buffer = buffer
        self._failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._buffer.fileno()

    def isatty(self) -> bool:
        return self._buffer.isatty()

    def write(self, data) -> int:
        size = len(memoryview(data).cast("B"))
        if not self._failed:
            self._guarded(_write_all, self._buffer, data)
        return size

    def flush(self) -> None:
        if not self._failed:
            self._guarded(self._buffer.flush)

    def _guarded(self, call, *args) -> None:
        try:
            call(*args)
        except OSError as exc:
            self._failed = True
            raise WriteError(STDOUT, f"cannot write: {exc.strerror or exc}") from None


class _StderrBuffer(_StdoutBuffer):
    """Standard error's binary stream. When it cannot be written (``2>&1 | head``: its reader is
    gone too) the rest is dropped without a word, since there is nowhere left to say it, and the
    command ends with its own status, not Python's 1 or 120 for an error it could not print."""

    def _guarded(self, call, *args) -> None:
        try:
            call(*args)
        except OSError:
            self._failed = True


def _guarded_stream(stream, buffer_type: type[_StdoutBuffer]):
    if stream is None or not hasattr(stream, "buffer") or isinstance(stream.buffer, _StdoutBuffer):
        return stream
    stream.flush()
    # as buffered as it was: line by line on a terminal, written through under python -u
    return io.TextIOWrapper(buffer_type(stream.buffer), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=bool(stream.line_buffering),
                            write_through=bool(getattr(stream, "write_through", False)))


def guard_standard_streams() -> None:
    """Route standard output through :class:`_StdoutBuffer` and standard error through
    :class:`_StderrBuffer` (the console script calls it first)."""
    sys.stdout = _guarded_stream(sys.stdout, _StdoutBuffer)
    sys.stderr = _guarded_stream(sys.stderr, _StderrBuffer)


def gzipped_name(path: str | os.PathLike) -> bool:
    """Whether ``path`` names gzip data: it ends in ``.gz``, in any case, as the format's suffix may
    be (``OUT.JSONL.GZ`` was written as plain FIMI, where ``OUT.JSONL`` was JSONL)."""
    return os.fspath(path).lower().endswith(".gz")


def gzip_writer(fileobj: BinaryIO) -> gzip.GzipFile:
    """A gzip stream into ``fileobj`` with no time in its header: the same output is the same
    bytes, whenever it is written."""
    return gzip.GzipFile(fileobj=fileobj, mode="wb", mtime=0)


def text_bytes(path: str | os.PathLike, text: str) -> bytes:
    """``text`` as the output ``path`` holds it: UTF-8, gzipped for a ``.gz`` name as a release is
    (privacy-auditor review: an itemsets file, a mapping and an item list named ``.gz`` were plain
    text, and a file gzipped by hand under that name was refused where it was read back)."""
    data = text.encode("utf-8")
    if not gzipped_name(path):
        return data
    rendered = io.BytesIO()
    with gzip_writer(rendered) as handle:
        handle.write(data)
    return rendered.getvalue()


def write_text_output(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` as :func:`text_bytes` renders it."""
    write_output(path, text_bytes(path, text))


def write_json(path: str | os.PathLike, body: object) -> None:
    """``body`` as indented JSON (a benchmark's ``--json``); what JSON has no type for, as text,
    and a number that is not finite (a plugin's stat, say) as null: Python's ``NaN`` and
    ``Infinity`` are not JSON, and strict parsers refuse the whole file (QA)."""
    write_text_output(path, json.dumps(_finite(body), indent=2, default=str, allow_nan=False) + "\n")


def _finite(value: object) -> object:
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):  # numpy's float64 is a float too
        return None
    return value


def _stage(target: Path, data: bytes, mode: int | None, text: str) -> str:
    """``data`` in a new temporary file beside ``target``, with the permissions ``target`` should have."""
    try:
        # named after the start of the output's name alone: the whole name, plus the dots and
        # mkstemp's 8 characters, is too long for the file system when the name is near its limit
        # (a name of 246 to 255 bytes failed once the run was done); 32 characters are at most
        # 128 bytes
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:32]}.", dir=target.parent)
    except OSError as exc:
        # the file may well exist: what failed is the file that would replace it (/proc/version
        # said "No such file or directory")
        raise InputError(text, f"cannot write: cannot create a temporary file in {target.parent} to replace it "
                         f"atomically: {exc.strerror or exc}") from None
    try:
        # mkstemp creates the file 0600; a new output gets the usual permissions, as open() would
        os.fchmod(fd, _default_mode() if mode is None else mode)
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data)
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
