"""Exact comparisons of counts against a share typed in decimal (ρ, ψ).

In binary floating point 0.7 is a little below 7/10, so ``63 > 0.7 * 90`` is true: a rule of
confidence exactly 63/90 = ρ was judged unsafe, two safe windows made an "unsafe" union (against
Lemma 1 of Jia et al.), and a safe window was suppressed further. A :class:`Share` holds the
decimal the user typed (the shortest text of the float: 0.7 is 7/10) as a fraction and compares in
integers: k/s > num/den is k·den > num·s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, overload

import numpy as np
import numpy.typing as npt

#: one count: a Python or numpy integer
Count = int | np.integer[Any]
#: many counts. Not ArrayLike: a numpy integer is array-like too, and a count given as one must
#: not be typed as the array the overloads below return for many
Counts = npt.NDArray[np.integer[Any]] | Sequence[Count]

#: products below this fit in int64 with room to spare
_SAFE = 2**62


@dataclass(frozen=True)
class Share:
    num: int
    den: int

    @classmethod
    def of(cls, value: float) -> Share:
        exact = Fraction(repr(float(value)))
        return cls(exact.numerator, exact.denominator)

    @overload
    def exceeded(self, k: Count, s: Count) -> np.bool: ...

    @overload
    def exceeded(self, k: Counts, s: Count | Counts) -> npt.NDArray[np.bool]: ...

    @overload
    def exceeded(self, k: Count, s: Counts) -> npt.NDArray[np.bool]: ...

    def exceeded(self, k: Count | Counts, s: Count | Counts) -> np.bool | npt.NDArray[np.bool]:
        """k/s > share, elementwise, for non-negative integer counts k and s."""
        if isinstance(s, (int, np.integer)):
            # one support (the common case in the suppressors' loops): k > ⌊share·s⌋, with the
            # floor in Python integers; NumPy compares with any Python integer exactly
            return np.asarray(k) > self.num * int(s) // self.den
        k, s = np.asarray(k), np.asarray(s)
        if _largest(k) * self.den < _SAFE and _largest(s) * self.num < _SAFE:
            return k.astype(np.int64, copy=False) * self.den > s.astype(np.int64, copy=False) * self.num
        return _objects(k) * self.den > _objects(s) * self.num

    @overload
    def floor_of(self, s: Count) -> np.int64: ...

    @overload
    def floor_of(self, s: Counts) -> npt.NDArray[np.int64]: ...

    def floor_of(self, s: Count | Counts) -> np.int64 | npt.NDArray[np.int64]:
        """⌊share·s⌋, elementwise, for non-negative integer counts s."""
        if isinstance(s, (int, np.integer)):
            # one count, in Python integers as in exceeded; the floor is at most the count
            return np.int64(self.num * int(s) // self.den)
        s = np.asarray(s)
        if _largest(s) * self.num < _SAFE and self.den < _SAFE:
            return s.astype(np.int64, copy=False) * self.num // self.den
        return (_objects(s) * self.num // self.den).astype(np.int64)


def _largest(values: np.ndarray) -> int:
    """The largest count, but at least 1: NumPy converts the other factor of a product to int64
    too, so the check must bound it even when every count is 0 (ρ = 1e-20 is 1/10^20)."""
    return max(int(values.max()), 1) if values.size else 1


def _objects(values: np.ndarray) -> np.ndarray:
    """Python integers, which do not overflow."""
    return values.astype(np.int64).astype(object)
