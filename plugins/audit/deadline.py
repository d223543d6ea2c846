"""A time limit that holds, for the test solves of the determined names (ours, next to
Mielikäinen, 2004, §3's programs).

HiGHS does not always stop at its own ``time_limit`` (ERGO-Code/HiGHS#885, #2226): on mushroom
at σ = 0.3 with noise, each test solve of ``--determined`` ran about 46 s at a limit of 5 s. A C
call cannot be interrupted from Python, so :func:`call_within` runs the solve in a forked child
and kills the child's process group once the limit and a grace have passed. Forking shares the
program already built in memory, so nothing is pickled but the small answer; the child's own
process group and :func:`setveil.core.orphans.follow_parent` make sure nothing outlives the
parent, as in ``streams/isolation.py``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from typing import Any

from setveil.core.errors import SetveilError
from setveil.core.orphans import follow_parent, how_ended, kill_follower, start_follower

#: seconds a child may run past the solver's own limit before it is killed: the solver reports
#: at its limit when it honours it, so the grace only absorbs the fork and the answer's return
GRACE_SECONDS = 1.0

#: what :func:`call_within` returns for a call killed at its limit
KILLED = None


class SolverDied(SetveilError):
    """The child running a solve ended without an answer (the OOM killer, a crash in C)."""

    exit_code = 1


def call_within(function: Callable[[], Any], seconds: float) -> Any:
    """``function()`` run in a forked child; its value (which must pickle), or :data:`KILLED`
    when the child was still running :data:`GRACE_SECONDS` after ``seconds``. An exception in
    the child is raised here."""
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe(duplex=False)
    child = context.Process(target=_run, args=(theirs, function), name="setveil-audit-solve", daemon=True)
    start_follower(child)
    theirs.close()
    answer = None
    try:
        if not ours.poll(seconds + GRACE_SECONDS):
            return KILLED
        with contextlib.suppress(EOFError):  # the child ended without sending
            answer = ours.recv()
    finally:
        code = kill_follower(child)
        ours.close()
    if answer is None:
        raise SolverDied(f"the process of a test solve ended without an answer ({how_ended(code)})")
    failed, value = answer
    if failed:
        raise value
    return value


def _run(conn, function: Callable[[], Any]) -> None:
    # its own process group, ended with the parent however the parent goes
    follow_parent()
    try:
        answer = (False, function())
    except Exception as exc:
        answer = (True, exc)
    conn.send(answer)
    conn.close()
