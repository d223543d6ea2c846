"""Terminal lines for batches and dead letters as they arrive (``setveil tail`` and ``setveil demo``).

Only counts, losses and timings are shown, never transaction contents.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from setveil.core.cli import printable
from setveil.core.errors import counted

from .deadletters import DeadLetter, DeadLetters, missing
from .kafka import cut
from .tail import Collected, WindowSummary

HEADER = (f"{'window (partition/offsets)':<26} {'tx':>6} {'loss':>6} {'latency':>9} {'check':>6} {'total tx':>9} "
          f"{'tx/s':>8}")


def shown(text: str) -> str:
    """Text any producer may write to a topic (a header, a window id) as tail shows it: one line,
    escapes shown as such (:func:`~setveil.core.cli.printable`), cut to its first characters
    (:func:`~setveil.streams.kafka.cut`)."""
    return printable(cut(text))


class WindowDisplay:
    def __init__(self, echo: Callable[[str], None]):
        self.echo = echo
        self.first: float | None = None
        self.first_count = 0

    def window(self, summary: WindowSummary, collected: Collected) -> None:
        now = time.monotonic()
        if self.first is None:
            self.echo(HEADER)
            self.first, self.first_count = now, collected.transactions
        tx_per_second = (collected.transactions - self.first_count) / (now - self.first) if now > self.first else 0.0
        check = "ok" if summary.verified else "off"
        # a worker's id is topic/partition/offsets, shown without the topic; any producer may write
        # the output topic, and an id of its own is shown as header text is
        where = shown(summary.id.split("/", 1)[-1])
        self.echo(f"{where:<26} {summary.transactions:>6} {summary.information_loss:>6.3f} "
                  f"{summary.latency * 1000:>7.0f}ms {check:>6} {collected.transactions:>9} {tx_per_second:>8,.0f}")

    def summary(self, collected: Collected) -> str:
        counts = (f"{counted(collected.windows, 'window')} ({counted(collected.duplicates, 'duplicate')} dropped), "
                  f"{counted(collected.transactions, 'transaction')}")
        if not collected.latencies:  # nothing to measure: a loss or latency of 0 would read as the best
            return counts
        p50, p99 = np.percentile(np.asarray(collected.latencies), [50, 99])
        return (f"{counts}, information loss {collected.information_loss:.4f}, "
                f"window latency p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")


class DeadLetterDisplay:
    """One line per dead letter: what failed closed or could not be read, where, and why."""

    def __init__(self, echo: Callable[[str], None]):
        self.echo = echo
        self.shown = False

    def letter(self, letter: DeadLetter) -> None:
        if not self.shown:
            self.echo(f"{'dead letter':<12} {'cause':<12} {'where (topic/partition/offsets)':<36} {'tx':>6}  reason")
            self.shown = True
        transactions = "" if letter.transactions is None else str(letter.transactions)
        # headers come from whoever may write the topic: one line each, escapes shown as such, and
        # those setveil writes short cut as a foreign ce_type is (a forged one of a megabyte was
        # shown whole); a reason is setveil's sentence, shown whole
        where = letter.where or missing("ce_id")
        self.echo(f"{shown(letter.kind):<12} {shown(letter.cause or '-'):<12} "
                  f"{shown(where):<36} {transactions:>6}  {printable(letter.reason)}")

    def summary(self, collected: DeadLetters) -> str:
        def counts(counter) -> str:
            # causes and kinds are header text: forged ones must not rewrite the terminal
            return ", ".join(f"{shown(name or '-')} {n}" for name, n in sorted(counter.items()))

        parts = [f"windows failed closed {sum(collected.windows.values())}" +
                 (f" ({counts(collected.windows)})" if collected.windows else ""),
                 f"input messages dead-lettered {sum(collected.records.values())}" +
                 (f" ({counts(collected.records)})" if collected.records else "")]
        if collected.unknown:
            parts.append(f"messages of an unknown type {collected.unknown}")
        return (f"{counted(collected.letters, 'dead letter')} ({counted(collected.duplicates, 'duplicate')} dropped): "
                + "; ".join(parts))
