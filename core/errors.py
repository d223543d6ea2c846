"""The errors setveil raises on purpose, each with the exit status the CLI gives it.

Messages never carry transaction contents: they name files, lines, parameters and counts.
"""

from __future__ import annotations

import os
import sys


def pickled_whole(error: BaseException) -> tuple:
    """``__reduce__`` of an error whose ``__init__`` takes more than its message: a worker
    process's error reaches its parent pickled (rho's parts, the audit's timed solve), and
    BaseException's own reduction calls ``__init__`` with the message alone (a TypeError, or a
    wrong attribute). This one skips ``__init__``, so a subclass's own signature, its notes and
    its attributes come back too."""
    return _rebuilt, (type(error), error.args, dict(vars(error)))


def _rebuilt(cls: type[BaseException], args: tuple, state: dict) -> BaseException:
    error = cls.__new__(cls)
    error.args = args
    vars(error).update(state)
    return error


class SetveilError(Exception):
    """Base class; ``exit_code`` is what the CLI exits with, and ``words``, when setveil's own
    code sets it, the message a failed window may carry (:func:`own_words`)."""

    exit_code = 1
    words: str | None

    def __reduce__(self) -> tuple:
        return pickled_whole(self)


#: how a message names the data read from ``-``, as every sentence of one names it
STANDARD_INPUT = "standard input"


def shown_path(path: str | os.PathLike[str], dash: str = STANDARD_INPUT) -> str:
    """``path`` as a message names it: ``-`` is standard input (or ``dash``)."""
    return dash if os.fspath(path) == "-" else os.fspath(path)


class InputError(SetveilError):
    """Unreadable or malformed input: names the file and, where it applies, the line. A ``path``
    of ``-`` is named :attr:`dash`, standard input, as the messages that name it in a sentence do
    (``standard input:3: not valid UTF-8``, where it read ``-:3:``)."""

    exit_code = 2
    #: what a ``path`` of ``-`` is named
    dash = STANDARD_INPUT

    def __init__(self, path: str | os.PathLike[str] | None, problem: str, line: int | None = None):
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.problem = problem
        where = shown_path(self.path, self.dash) if self.path is not None else "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {problem}")


def also_lines(lines: list[int]) -> str:
    """What an :class:`InputError` at ``lines[0]`` says of the other lines at fault, sorted:
    ``" (also lines 4, 9)"``, or nothing."""
    others = lines[1:]
    return f" (also {'line' if len(others) == 1 else 'lines'} {', '.join(map(str, others))})" if others else ""


def first_lines(lines: list[int]) -> str:
    """``lines`` as a message names them, the first five and ``...`` for more: ``"3, 8, 12"``. A
    file of thousands of faulty lines would otherwise fill the message."""
    return ", ".join(map(str, lines[:5])) + (", ..." if len(lines) > 5 else "")


def counted(number: int, noun: str, verbs: tuple[str, str] | None = None) -> str:
    """``1 record``, ``2 records``, with ``verbs=("is", "are")`` ``1 record is``, ``2 records are``:
    a message's counts read as English whatever the file."""
    one = number == 1
    said = f"{number} {noun}{'' if one else 's'}"
    return said if verbs is None else f"{said} {verbs[0] if one else verbs[1]}"


class ParameterError(SetveilError):
    """A parameter is missing, unknown, malformed or out of range; names the parameter."""

    exit_code = 2

    def __init__(self, name: str, problem: str):
        self.name = name
        self.problem = problem
        super().__init__(f"parameter {name!r}: {problem}")


class PluginError(SetveilError):
    """An installed plugin is broken: it cannot be imported, implements an unknown hook or a
    hook with the wrong signature, or registers a class that breaks the contract. Names the
    distribution and what to fix; nothing runs until it is fixed or uninstalled."""

    exit_code = 2


class ContractError(PluginError):
    """What a plugin returned breaks its contract, as setveil's own check of it found: the message
    names the plugin, types, shapes and counts, never a value, so the pipeline may give it as the
    reason a window failed closed (see :func:`own_words`)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.words = made_by_setveil(message)


def made_by_setveil(message: str) -> str | None:
    """``message`` if the code that creates the error calling this is setveil's own, else None.

    A plugin can import setveil's error classes too, and its message could quote the data:
    trusted is the message as setveil's own code made it (QA re-checks: "secret label HIV"
    reached a dead letter, raised by a plugin, then with a setveil-made one's args changed and
    re-raised)."""
    made_by = sys._getframe(2).f_globals.get("__name__", "")  # 0: here, 1: the error's __init__
    return message if made_by.split(".")[0] == "setveil" else None


def own_words(exc: BaseException) -> str | None:
    """The message of ``exc`` as setveil's own code made it (a :class:`ContractError`, a
    ``MiningTooLarge``: names, types and counts, never a value), else None."""
    words = vars(exc).get("words") if isinstance(exc, SetveilError) else None
    return words if isinstance(words, str) else None


#: numpy's whole messages for a write into a read-only array (an assignment, ``sort``, an ``out=``,
#: ``put``): they hold no data, so they may be given
READ_ONLY_WRITES = frozenset({"assignment destination is read-only", "sort array is read-only",
                              "output array is read-only", "put: output array is read-only"})


def wrote_read_only(exc: BaseException, who: str = "it",
                    hint: str = "the windows it is given are; compute on a copy") -> str | None:
    """Why plugin code that wrote into a read-only array (most likely a window it was given)
    failed, in words that tell its author what to do; None for any other error."""
    if type(exc) is ValueError and len(exc.args) == 1 and exc.args[0] in READ_ONLY_WRITES:
        return f"ValueError: {who} wrote into a read-only array ({hint})"
    return None


class SpeltOtherwise(SetveilError):
    """A window holds, only in another case, Unicode form or with an invisible character, an item its model's
    parameters name (:func:`setveil.core.schema.misspelt_reason` words why): raised by a model's
    ``anonymize``, it fails the window closed with that reason, which names lines, never a label."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.words = made_by_setveil(reason)


class WorkerDied(SetveilError):
    """A process a model started for part of a window died (the kernel's OOM killer sends SIGKILL
    to the largest process, often such a worker): raised by a model's ``anonymize``, it fails the
    window closed with this reason, and a benchmark counts its run as one that died."""

    exit_code = 1

    def __init__(self, reason: str):
        super().__init__(reason)
        self.words = made_by_setveil(reason)


class UnknownPluginError(SetveilError):
    """No installed plugin provides the requested model or policy."""

    exit_code = 2


class Infeasible(SetveilError):
    """No release of this window can satisfy the model (for example Theorem 1 of Xu et al.).

    The window must not be emitted. ``reason`` is safe to log: it holds no item labels.
    """

    exit_code = 1

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class WindowRejected(SetveilError):
    """A window failed closed: the model refused it, erred, or its release failed the check.
    ``cause`` is the model's exception (:class:`Infeasible` for a refusal), a
    :class:`PluginError` setveil made for what the model returned (no Release, a release of
    another length, a loss that is not a number), or None for a release that failed the check."""

    exit_code = 1

    def __init__(self, reason: str, cause: BaseException | None = None, refused: bool = False):
        self.reason = reason
        self.cause = cause
        #: the model's anonymize raised Infeasible: no safe release exists (cause ``infeasible``)
        self.refused = refused
        super().__init__(reason)


#: what plugin code may raise that is not its error: every handler of plugin code lets these pass
#: (``except NOT_PLUGIN_ERRORS: raise``) and takes any other BaseException as the plugin's error, a
#: plugin's own subclass included (QA: one was a traceback). Ctrl-C is the user stopping setveil,
#: whichever code it interrupted; GeneratorExit is how Python closes a generator (pluggy's
#: wrappers are ones), which would stay open were it caught. sys.exit() in a plugin is no stop of
#: setveil (a worker stopped by it with status 0 would meet the same window again on every
#: restart), so SystemExit is the plugin's error.
NOT_PLUGIN_ERRORS = (KeyboardInterrupt, GeneratorExit)
