"""The released transactions of the batches ``setveil tail --out`` and the demo read back, held
compact: each label once, a batch's items as an array of ids and its tids as an array when they
are integers. Held as a list of label strings per tid, the 2.98 M transactions of a 50-minute
soak took 1.75 GB in ``tail --out``; the release a stream makes is as long as the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from setveil.core.arrays import concat_ranges
from setveil.core.errors import SetveilError, counted
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

from .codec import is_integer
from .kafka import cut

#: integer tids below this are marked in a bitmap (8 MiB at most) to tell a repeat at once, others in a set
_MARKED_TIDS = 1 << 26


class ReleaseError(SetveilError):
    """The batches do not make a release that lines up with the input."""


class Released:
    """The transactions of the batches added so far, with the window of each."""

    def __init__(self) -> None:
        self._labels: dict[str, int] = {}
        self._tids: list[Any] = []
        self._lengths: list[np.ndarray] = []
        self._items: list[np.ndarray] = []
        self._windows: list[str] = []
        self._marked = bytearray()
        self._other_tids: set[Any] = set()
        self._integer_tids = True
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, window_id: str, transactions: list[dict[str, Any]]) -> None:
        """Add a batch's transactions. Raises :class:`ReleaseError` naming two windows, never
        the tid (a producer's, a patient number say), when a tid was released already; KeyError
        or TypeError for a transaction without a tid or items, or whose items are not an array of
        strings (a string's characters, a map's keys or a number's text were taken for labels)."""
        tids = [transaction["tid"] for transaction in transactions]
        for transaction in transactions:
            items = transaction["items"]
            if not (isinstance(items, list) and all(isinstance(label, str) for label in items)):
                raise TypeError("a transaction's items are not an array of strings")
        for tid in tids:
            if self._seen(tid):
                # any producer may write the topic, and a forged id of a megabyte was shown whole
                raise ReleaseError(f"windows {cut(self._window_of(tid, window_id))} and {cut(window_id)} release one "
                                   "tid under different window ids")
        intern = self._labels.setdefault
        labels = self._labels
        lengths = np.fromiter((len(transaction["items"]) for transaction in transactions), dtype=np.int64,
                              count=len(transactions))
        items = np.fromiter((intern(label, len(labels)) for transaction in transactions
                             for label in transaction["items"]), dtype=np.int32, count=int(lengths.sum()))
        self._tids.append(self._tid_array(tids))
        self._lengths.append(lengths)
        self._items.append(items)
        self._windows.append(window_id)
        self._count += len(tids)

    def _seen(self, tid: Any) -> bool:
        """Whether ``tid`` was added before, marking it."""
        if is_integer(tid) and 0 <= tid < _MARKED_TIDS:
            byte, bit = divmod(tid, 8)
            if byte >= len(self._marked):
                self._marked.extend(bytes(max(byte + 1 - len(self._marked), len(self._marked))))
            if self._marked[byte] >> bit & 1:
                return True
            self._marked[byte] |= 1 << bit
            return False
        if tid in self._other_tids:
            return True
        self._other_tids.add(tid)
        return False

    def _window_of(self, tid: Any, adding: str) -> str:
        """The window that released ``tid`` first: ``adding`` when it is repeated within it."""
        for window_id, tids in zip(self._windows, self._tids):
            if any(tid == other for other in np.asarray(tids, dtype=object).tolist()):
                return window_id
        return adding

    def _tid_array(self, tids: list[Any]) -> Any:
        if all(is_integer(tid) for tid in tids):
            try:
                return np.array(tids, dtype=np.int64)
            except OverflowError:
                pass
        self._integer_tids = False
        return tids

    def by_tid(self) -> tuple[Window, list[str]]:
        """The transactions ordered by tid, each with its tid, and the window of each. Their
        labels are numbered in the order the transactions first name them, as a release read
        from a file is. Raises :class:`ReleaseError` when a tid is not an integer."""
        tids, build, windows = self._ordered()
        return build(tids.tolist()), windows

    def numbered(self) -> tuple[Window, list[str]]:
        """:meth:`by_tid` when the tids are 0..n-1, as ``setveil replay`` numbers a file's
        transactions: transaction i of the window is tid i. Raises :class:`ReleaseError` else."""
        tids, build, windows = self._ordered()
        n = len(tids)
        if n and (tids[0] != 0 or tids[-1] != n - 1):
            # counted, not quoted: an integer tid may be a producer's record number
            missing = n - int(((tids >= 0) & (tids < n)).sum())
            raise ReleaseError(f"the batches hold {n} transactions, but not every tid from 0 to {n - 1}: "
                               f"{counted(missing, 'tid', ('is', 'are'))} missing (dead-lettered, not emitted yet, or "
                               "merged into another record's transaction by window.merge_subjects?)")
        # no two are alike, so the tids are 0..n-1 and a transaction's tid is its position
        return build(None), windows

    def _ordered(self) -> tuple[np.ndarray, Callable[[list[int] | None], Window], list[str]]:
        """The tids ascending, what builds the window of their transactions given its tids, and
        the window of each transaction."""
        if not self._integer_tids:
            raise ReleaseError("--out needs integer tids 0..n-1, as setveil replay gives records without a tid of "
                               "their own; these batches hold other tids (a file's own tids?)")
        if not self._count:
            return np.zeros(0, dtype=np.int64), lambda tids: Window.empty().with_tids(tids), []
        tids = np.concatenate(self._tids)
        lengths = np.concatenate(self._lengths)
        items = np.concatenate(self._items)
        batch = np.repeat(np.arange(len(self._windows)), [len(part) for part in self._lengths])
        starts = np.cumsum(lengths) - lengths
        order = np.argsort(tids, kind="stable")
        lengths = lengths[order]
        flat = items[concat_ranges(starts[order], starts[order] + lengths)]
        ids, first = np.unique(flat, return_index=True)
        named = ids[np.argsort(first)]
        renumbered = np.empty(len(self._labels), dtype=np.int32)
        renumbered[named] = np.arange(len(named), dtype=np.int32)
        labels = list(self._labels)
        vocab = Vocabulary(labels[i] for i in named.tolist())

        def build(window_tids: list[int] | None) -> Window:
            return Window.from_flat(vocab, lengths, renumbered[flat], tids=window_tids)

        return tids[order], build, [self._windows[i] for i in batch[order].tolist()]
