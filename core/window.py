"""Columnar transactions: the unit every privacy model anonymizes.

A :class:`Window` holds ``n`` transactions in CSR form over interned item ids: ``indptr``
(n+1 offsets) and ``indices`` (item ids, ascending and unique inside each transaction).
Derived views (item supports, the inverted index item -> transactions, bitset tidsets) are
computed once on demand. A window is never changed once built (its cached views rely on it);
transformations return new windows that share the vocabulary, which only grows.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from .arrays import concat_ranges
from .bitset import pack_tidlists
from .deferred import DeferredModule
from .errors import ContractError, pickled_whole
from .vocabulary import Vocabulary, a_kind, label_collection

if TYPE_CHECKING:
    from scipy import sparse
else:
    sparse = DeferredModule("scipy.sparse")

Tid = str | int
#: a transaction position or an item id: a numpy integer as well, as np.flatnonzero gives them
Position = int | np.integer[Any]
#: the integer type of a window's array, int64 offsets or int32 item ids
Stored = TypeVar("Stored", bound=np.signedinteger[Any])


class DuplicateItem(ValueError):
    """A transaction lists the same item twice; ``position`` is its index in the input."""

    def __init__(self, position: int):
        self.position = position
        super().__init__(f"transaction {position} repeats an item")

    def __reduce__(self) -> tuple:
        return pickled_whole(self)


class Window:
    """``n`` transactions over a vocabulary, stored as CSR arrays."""

    def __init__(
        self,
        vocab: Vocabulary,
        indptr: npt.ArrayLike,
        indices: npt.ArrayLike,
        tids: Sequence[Tid] | None = None,
    ):
        """``indptr`` (n+1 offsets into ``indices``, from 0) and ``indices`` (item ids of ``vocab``,
        ascending inside each transaction) are kept as given when they are int64 and int32 arrays,
        not copied: write nothing into them afterwards, since the window and its cached views read
        them. Other integer (or integral float) arrays are converted, and a value the conversion
        would change is a ``ValueError``, as is an empty ``indptr`` (a window of no transactions
        has the one offset 0); the rest is not checked here (a release is, before it is emitted:
        ``setveil.core.verify``). ``tids``, one per transaction, are kept as plain str and int
        (numpy's scalars converted), and a tid of another type is a ``TypeError``."""
        self.vocab = vocab
        self.indptr = _exactly(indptr, np.int64, "indptr", "transaction offsets")
        if not len(self.indptr):
            # taken, it failed later and elsewhere: len() raised "__len__() should return >= 0"
            raise ValueError("Window's indptr is empty: it holds n+1 offsets for n transactions, so at least one "
                             "offset, 0 (Window.empty() gives a window of no transactions)")
        self.indices = _exactly(indices, np.int32, "indices", "item ids")
        if tids is not None and len(tids) != len(self.indptr) - 1:
            raise ValueError("tids must have one entry per transaction")
        self.tids = None if tids is None else _tids(tids)

    @classmethod
    def from_transactions(
        cls,
        transactions: Iterable[Iterable[str]],
        tids: Sequence[Tid] | None = None,
        vocab: Vocabulary | None = None,
    ) -> Window:
        """Build from label lists. Duplicate items inside a transaction raise ValueError, and one str
        given for the transactions or for a transaction a ``TypeError``: its characters are no items."""
        vocab = Vocabulary() if vocab is None else vocab
        intern = vocab.intern
        indptr = [0]
        indices: list[int] = []
        rows = label_collection(transactions, "Window.from_transactions: transactions",
                                "give a collection of transactions, each a collection of str labels")
        for position, items in enumerate(rows):
            # "ab" was read as the transaction of items a and b (library walkthrough)
            items = list(label_collection(items, f"Window.from_transactions: transaction {position}",
                                          "give its items as a collection of str labels"))
            ids = sorted({intern(str(item)) for item in items})
            if len(ids) != len(items):
                raise DuplicateItem(position)
            indices.extend(ids)
            indptr.append(len(indices))
        return cls(vocab, np.array(indptr, dtype=np.int64), np.array(indices, dtype=np.int32), tids)

    @classmethod
    def from_flat(
        cls, vocab: Vocabulary, lengths: npt.ArrayLike, ids: npt.ArrayLike, tids: Sequence[Tid] | None = None
    ) -> Window:
        """Build from per-transaction lengths and their concatenated item ids (any order inside a
        transaction). A transaction that repeats an item raises :class:`DuplicateItem`."""
        counts = _exactly(lengths, np.int64, "lengths", "transaction lengths")
        flat = _exactly(ids, np.int32, "ids", "item ids")
        owners = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        # one stable sort of a combined key: 20x faster than lexsort on retail
        span = int(flat.max()) + 1 if len(flat) else 1
        order = np.argsort(owners * span + flat, kind="stable")
        flat = flat[order]
        same = (flat[1:] == flat[:-1]) & (owners[1:] == owners[:-1])
        if same.any():
            raise DuplicateItem(int(owners[1:][same][0]))
        indptr = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return cls(vocab, indptr, flat, tids)

    @classmethod
    def empty(cls, vocab: Vocabulary | None = None) -> Window:
        """A window of no transactions over ``vocab`` (a new, empty vocabulary if None)."""
        return cls(Vocabulary() if vocab is None else vocab, np.zeros(1, np.int64), np.zeros(0, np.int32), [])

    # -- shape -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_occurrences(self) -> int:
        """Item occurrences in all transactions (N in Xu et al. §4)."""
        return int(self.indptr[-1])

    @cached_property
    def lengths(self) -> np.ndarray:
        """Each transaction's number of items."""
        return np.diff(self.indptr)

    def tid(self, position: Position) -> Tid:
        """The tid of the transaction at ``position``; the position itself in a window
        without tids."""
        return int(position) if self.tids is None else self.tids[position]

    # -- transactions ------------------------------------------------------------------
    def row(self, position: Position) -> np.ndarray:
        """The item ids of the transaction at ``position``, ascending (a view of ``indices``)."""
        return self.indices[self.indptr[position] : self.indptr[position + 1]]

    def labels(self, position: Position) -> list[str]:
        """The item labels of the transaction at ``position``, in id order."""
        label = self.vocab.label
        return [label(i) for i in self.row(position)]

    def __iter__(self) -> Iterator[list[str]]:
        labels = self.vocab.labels
        ind, ptr = self.indices.tolist(), self.indptr.tolist()
        for start, stop in zip(ptr, ptr[1:]):
            yield [labels[i] for i in ind[start:stop]]

    def owners(self) -> np.ndarray:
        """For each occurrence in ``indices``, the position of its transaction."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)

    # -- derived views -----------------------------------------------------------------
    @cached_property
    def supports(self) -> np.ndarray:
        """Support (transaction count) of every item id, length ``len(vocab)``."""
        return np.bincount(self.indices, minlength=len(self.vocab)).astype(np.int64)

    @cached_property
    def inverted(self) -> tuple[np.ndarray, np.ndarray]:
        """The inverted index: (indptr, rows), rows[indptr[i]:indptr[i+1]] = tidset of item i."""
        order = np.argsort(self.indices, kind="stable")
        rows = self.owners()[order]
        indptr = np.zeros(len(self.vocab) + 1, dtype=np.int64)
        np.cumsum(self.supports, out=indptr[1:])
        return indptr, rows

    def tidset(self, item: Position) -> np.ndarray:
        """Sorted positions of the transactions holding ``item``."""
        indptr, rows = self.inverted
        if item >= len(indptr) - 1:
            return rows[:0]
        return rows[indptr[item] : indptr[item + 1]]

    def bitsets(self, items: npt.ArrayLike) -> np.ndarray:
        """Packed tidset bitsets for ``items``, shape (len(items), ceil(n/64))."""
        ids = np.asarray(items, dtype=np.int64)
        indptr, rows = self.inverted
        starts, stops = indptr[ids], indptr[ids + 1]
        sub_ptr = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(stops - starts, out=sub_ptr[1:])
        sub_rows = rows[concat_ranges(starts, stops)]
        return pack_tidlists(sub_ptr, sub_rows, len(self))

    def matrix(self, dtype: npt.DTypeLike = np.float32) -> sparse.csr_array:
        """The window as a sparse (transactions x items) 0/1 matrix."""
        data = np.ones(len(self.indices), dtype=dtype)
        return sparse.csr_array((data, self.indices, self.indptr), shape=(len(self), len(self.vocab)))

    # -- transformations -----------------------------------------------------------------
    def keep_occurrences(self, keep: npt.ArrayLike) -> Window:
        """A window with only the occurrences ``keep`` chooses: a boolean mask aligned to
        ``indices`` (True where kept), or the positions in ``indices`` of those kept."""
        kept = np.asarray(keep)
        if kept.dtype != bool or kept.shape != self.indices.shape:
            # converted to bool, positions read as a mask and a mask of another length failed
            # in numpy's words, or not at all (QA as a plugin author)
            chosen = _positions(kept, len(self.indices), "keep_occurrences", "occurrence")
            kept = np.zeros(len(self.indices), dtype=bool)
            kept[chosen] = True
        indptr = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.owners()[kept], minlength=len(self)), out=indptr[1:])
        return Window(self.vocab, indptr, self.indices[kept], self.tids)

    def suppress(self, items: npt.ArrayLike) -> Window:
        """Global suppression: remove every occurrence of the given item ids, or of the items where
        a boolean mask over the vocabulary (``window.supports < k``) is True."""
        drop = np.zeros(len(self.vocab), dtype=bool)
        drop[_positions(items, len(self.vocab), "suppress", "vocabulary item")] = True
        return self.keep_occurrences(~drop[self.indices])

    def take(self, positions: npt.ArrayLike) -> Window:
        """The transactions at ``positions`` (in that order), or where a boolean mask over the
        transactions is True, sharing the vocabulary."""
        taken = _positions(positions, len(self), "take", "transaction")
        starts, stops = self.indptr[taken], self.indptr[taken + 1]
        indptr = np.zeros(len(taken) + 1, dtype=np.int64)
        np.cumsum(stops - starts, out=indptr[1:])
        tids = None if self.tids is None else [self.tids[p] for p in taken.tolist()]
        return Window(self.vocab, indptr, self.indices[concat_ranges(starts, stops)], tids)

    def slices(self, size: int) -> Iterator[Window]:
        """Consecutive windows of ``size`` transactions (the last may be shorter)."""
        for start in range(0, len(self), size):
            part = self.take(np.arange(start, min(start + size, len(self))))
            yield part if part.tids is not None else part.with_tids(range(start, start + len(part)))

    def read_only_copy(self) -> Window:
        """The same transactions over read-only copies of this window's arrays: what a model and
        observers are given. A plugin that writes into its input then fails loudly, and one that
        sets the arrays writable again changes only its copy, never the original its release is
        checked against (a view would share that memory: ``view.base`` is writable)."""
        return Window(self.vocab, _read_only(self.indptr.copy()), _read_only(self.indices.copy()), self.tids)

    def with_tids(self, tids: Sequence[Tid] | None) -> Window:
        """The same transactions under other tids (None: their positions)."""
        return Window(self.vocab, self.indptr, self.indices, tids)

    def relabel(self, vocab: Vocabulary) -> Window:
        """The same transactions re-interned into ``vocab`` (new labels are added to it)."""
        mapping = _id_mapping(self.vocab.labels, vocab)
        relabeled = Window(vocab, self.indptr, mapping[self.indices], self.tids)
        # ids that keep their order keep a sorted row sorted: a snapshot of ``vocab`` extended (the
        # core's copy of a release over its input's vocabulary) needs no sort; rows that were not
        # sorted (a release nothing checked) still get one (QA re-check)
        keeps_order = bool((np.diff(mapping) > 0).all()) and self._rows_ascend()
        return relabeled if keeps_order else relabeled.sorted_rows()

    def _rows_ascend(self) -> bool:
        """Whether every transaction lists its ids in ascending order."""
        ascending = np.diff(self.indices.astype(np.int64)) > 0
        starts = self.indptr[1:-1]
        ascending[starts[(starts > 0) & (starts < len(self.indices))] - 1] = True  # across a row boundary
        return bool(ascending.all())

    def sorted_rows(self) -> Window:
        """Items in ascending id order inside each transaction (needed after relabelling)."""
        owners = self.owners()
        order = np.lexsort((self.indices, owners))
        return Window(self.vocab, self.indptr, self.indices[order], self.tids)

    @staticmethod
    def concat(windows: Sequence[Window], vocab: Vocabulary | None = None) -> Window:
        """Transactions of all ``windows`` in order, over one vocabulary."""
        if not windows:
            return Window.empty(vocab)
        vocab = windows[0].vocab if vocab is None else vocab
        parts = [w if w.vocab is vocab else w.relabel(vocab) for w in windows]
        indptr = [np.zeros(1, np.int64)]
        offset = 0
        for part in parts:
            indptr.append(part.indptr[1:] + offset)
            offset += part.n_occurrences
        tids: list[Tid] = []
        start = 0
        for part in parts:
            tids.extend(part.tids if part.tids is not None else range(start, start + len(part)))
            start += len(part)
        return Window(vocab, np.concatenate(indptr), np.concatenate([p.indices for p in parts]), tids)

    def __repr__(self) -> str:
        return f"Window({len(self)} transactions, {self.n_occurrences} occurrences, {len(self.vocab)} items)"


def detached(*windows: Window) -> tuple[Window, ...]:
    """Read-only copies of ``windows`` that share no array and no vocabulary with them, built by
    reading each window's attributes once into plain arrays and a snapshot of its labels, never
    through a method a ``Window`` or ``Vocabulary`` subclass could override: what the core takes
    from a plugin (a release) or hands to one is fixed from then on (QA re-check as a hostile
    plugin author: a subclass whose read_only_copy returned itself, and a vocabulary renamed by
    an observer, emitted suppressed items). Windows whose labels all extend one window's (a
    release over its input's vocabulary, which only grows) share one snapshot, so their ids
    still compare."""
    found = [(window, _labels_of(window.vocab)) for window in windows]
    longest = max((labels for _, labels in found), key=len, default=())
    # the same tuple is not compared: the windows of `anonymize --window` share one, which took
    # 0.15 ms a copy to compare with itself label by label on retail's 16,470
    shared = all(labels is longest or longest[:len(labels)] == labels for _, labels in found)
    common = _snapshot(longest) if shared else None
    copies = []
    for window, labels in found:
        vocab = common if common is not None else _snapshot(labels)
        copies.append(Window(vocab, _read_only(np.array(window.indptr, dtype=np.int64)),
                             _read_only(np.array(window.indices, dtype=np.int32)), window.tids))  # tids: copied by Window
    return tuple(copies)


def _exactly(values: npt.ArrayLike, dtype: type[Stored], name: str, what: str) -> npt.NDArray[Stored]:
    """``values`` as a one-dimensional array of ``dtype``, refused where the cast would change a
    value: numpy's truncated 0.5 to item 0 and wrapped an int64 id of 2**32 + 1 to item 1, both
    valid ids that no check could tell from the ones meant (library walkthrough)."""
    given = np.asarray(values)
    if given.ndim != 1:
        raise ValueError(f"Window's {name} must be one-dimensional; got shape {given.shape}")
    if given.dtype == dtype:
        return given
    try:
        with np.errstate(invalid="ignore"):  # nan and inf are refused below, not warned of
            cast = given.astype(dtype)
            changed = np.flatnonzero(cast != given)
    except (OverflowError, TypeError, ValueError):
        changed = np.flatnonzero([not _held(value, dtype) for value in given.tolist()])
    if len(changed):
        bits = np.iinfo(dtype).bits - 1
        raise ValueError(f"Window's {name} hold a value that is not an integer an {np.dtype(dtype).name} holds (the "
                         f"first at position {changed[0]}): {what} are whole numbers below 2**{bits}, and the cast "
                         "would change it")
    return cast


def _tids(given: Sequence[Tid]) -> list[Tid]:
    """``given`` as a list of plain str and int tids: numpy's integer and str scalars (of
    ``np.arange``, or of an array of text) are converted, since JSON and msgpack writers refused
    them (library walkthrough: ``write_window`` raised TypeError for tids=np.arange(n)); a tid of
    another type, a bool among them, is a ``TypeError``, as in a record."""
    tids = given.tolist() if isinstance(given, np.ndarray) else list(given)
    if set(map(type, tids)) <= {int, str}:
        return tids
    for position, tid in enumerate(tids):
        if isinstance(tid, str):
            tids[position] = str.__str__(tid)
        elif isinstance(tid, int | np.integer) and not isinstance(tid, bool):
            tids[position] = int(tid)
        else:
            # by type and position alone: a tid may be a producer's record id
            raise TypeError(f"Window's tids hold {a_kind(tid)} (the first at position {position}); a tid is a str "
                            "or an int")
    return tids


def _held(value: object, dtype: type[np.signedinteger[Any]]) -> bool:
    """Whether ``dtype`` holds ``value`` as it is (for arrays numpy cannot cast whole)."""
    limits = np.iinfo(dtype)
    return isinstance(value, int | float) and math.isfinite(value) and limits.min <= value <= limits.max \
        and value == int(value)


def _positions(chosen: npt.ArrayLike, size: int, method: str, entry: str) -> np.ndarray:
    """Ids or positions as int64, each refused outside 0 to ``size`` - 1; a boolean mask as the
    positions where it is True. Converted as numbers, a mask chose 0 and 1 alone:
    suppress(window.supports < k) removed items 0 and 1, not the rare ones (QA as a plugin author)."""
    given = np.asarray(chosen)
    if given.dtype.kind in "US":
        # numpy's own error quoted the first label (QA as a plugin author: suppress given labels)
        vocabulary = entry == "vocabulary item"
        takes = "item ids (window.vocab.ids maps labels to them)" if vocabulary else f"{entry} positions"
        raise ValueError(f"{method} was given text; it takes {takes} or a boolean mask")
    if given.dtype != bool:
        try:
            with np.errstate(invalid="ignore"):  # nan is refused below, not warned of
                ids = given.astype(np.int64, copy=False)
                exact = np.can_cast(given.dtype, np.int64)
                changed = np.zeros(0, np.int64) if exact else np.flatnonzero(ids != given)
        except (OverflowError, TypeError, ValueError):
            changed = np.flatnonzero([not _held(value, np.int64) for value in given.ravel().tolist()])
        if len(changed):
            # numpy's cast chose position 0 for 0.5 and -1, refused below, for 2**64 - 1
            # (library walkthrough: take([0.5, 1.7]) took transactions 0 and 1)
            raise ValueError(f"{method} was given {entry} {given.flat[changed[0]]}; {entry}s run from 0 to {size - 1}, "
                             "in whole numbers")
        if ids.size and not 0 <= ids.min() <= ids.max() < size:
            # numpy reads -1 as the last entry, and Vocabulary.ids gives -1 for a label it lacks
            outside = int(ids[(ids < 0) | (ids >= size)].flat[0])
            hint = " (Vocabulary.ids gives -1 for a label it lacks)" if entry == "vocabulary item" else ""
            raise ValueError(f"{method} was given {entry} {outside}; {entry}s run from 0 to {size - 1}{hint}")
        return ids
    if given.shape != (size,):
        raise ValueError(f"{method} was given a boolean mask of shape {given.shape}; a mask holds one entry per "
                         f"{entry} ({size})")
    return np.flatnonzero(given)


def _id_mapping(labels: tuple[str, ...], vocab: Vocabulary) -> np.ndarray:
    """The id in ``vocab`` of each of ``labels``, interning those it lacks. A vocabulary whose
    labels start as ``labels`` do (a snapshot of the same one, which only grows) maps them to
    their own positions, found by one comparison of tuples instead of a lookup per label."""
    known = vocab.labels
    shared = min(len(labels), len(known))
    if labels[:shared] != known[:shared]:
        shared = 0
    intern = vocab.intern
    rest = np.fromiter((intern(label) for label in labels[shared:]), dtype=np.int32, count=len(labels) - shared)
    return np.concatenate([np.arange(shared, dtype=np.int32), rest])


#: label tuples already found to be distinct strs, each with its label -> id map. The windows of
#: ``anonymize --window`` share the input's whole vocabulary, and checking and mapping all of it
#: again for each of the copies the core takes of every window cost more than the model's check
#: (QA, sanitize on retail in windows of 1000). A tuple of strs cannot change: the same object
#: needs no second look. Snapshots return that very tuple, so copies of copies hit as well.
_CHECKED: deque[tuple[tuple[str, ...], dict[str, int]]] = deque(maxlen=4)


def _checked_ids(labels: tuple[str, ...]) -> dict[str, int] | None:
    # over a copy: the service's window thread and its event loop may both take snapshots
    return next((ids for known, ids in tuple(_CHECKED) if known is labels), None)


def _labels_of(vocab: Vocabulary) -> tuple[str, ...]:
    labels = tuple(vocab.labels)
    if _checked_ids(labels) is None:
        if set(map(type, labels)) - {str} or len(set(labels)) != len(labels):
            raise ContractError("the release's vocabulary holds a label that is not a str, or one label twice")
        _CHECKED.append((labels, dict(zip(labels, range(len(labels))))))
    return labels


def _snapshot(labels: tuple[str, ...]) -> Vocabulary:
    ids = _checked_ids(labels)
    return Vocabulary(labels) if ids is None else Vocabulary.snapshot(labels, ids)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array
