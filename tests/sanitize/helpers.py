"""Helpers shared by the sanitize tests: the six-transaction database of §3-4 of Oliveira &
Zaïane (TR 02-13), pattern files and configured models.

Fig. 3 itself is an image absent from the text; §4 gives only R_P = {ABD, ACD}, the sensitive
transactions T1, T3, T4 and their degrees of conflict 2, 1, 1. This database is reconstructed to
agree with that; T2, T5, T6 and the item supports (A 5, B 5, C 4, D 4) are ours.
"""

from pathlib import Path

from setveil.core.plugins import get_registry
from setveil.core.window import Window

FIG3 = [["A", "B", "C", "D"], ["A", "B", "C"], ["A", "B", "D"], ["A", "C", "D"], ["A", "B", "C"], ["B", "D"]]


def write_patterns(path: Path, *patterns: str) -> str:
    path.write_text("".join(p + "\n" for p in patterns), encoding="utf-8")
    return str(path)


def configure(policy: str | None, restrictive: str, psi="0", **extra):
    return get_registry().configure("sanitize", policy, {"restrictive": restrictive, "psi": str(psi), **extra})


def as_text(window: Window) -> list[str]:
    return ["".join(sorted(t)) for t in window]
