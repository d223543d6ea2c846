"""Interning of item labels to dense integer ids.

Labels are strings. Integer items from JSON or msgpack input are interned by their decimal
text, so ``5`` and ``"5"`` are the same item; releases carry labels as strings.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Set
from typing import Any

import numpy as np


class Vocabulary:
    """An append-only two-way map between item labels and ids ``0..len-1``."""

    __slots__ = ("_ids", "_labels", "_frozen")

    def __init__(self, labels: Iterable[str] = ()):
        """A vocabulary of ``labels``, in order, each once. A label is a str: numpy's ``np.str_``
        (of ``np.unique`` over an array of labels) is kept as the plain str, and anything else is a
        ``TypeError``, as is one str given for ``labels``."""
        self._labels: list[str] = []
        self._ids: dict[str, int] = {}
        self._frozen: tuple[str, ...] = ()
        given = list(label_collection(labels, "Vocabulary: labels", LABELS_ADVICE))
        if set(map(type, given)) - {str}:
            given = [_label(label) for label in given]
        ids = dict(zip(given, range(len(given))))
        if len(ids) == len(given):
            # distinct labels (a snapshot of another vocabulary, which the core takes several
            # times for every window) are mapped in C: interned one by one, the snapshots of
            # retail's 16,470 labels cost more than checking its windows of 1000 (QA)
            self._labels, self._ids = given, ids
        else:
            for label in given:
                self.intern(label)

    def intern(self, label: str) -> int:
        """The id of ``label``, assigning the next free id if it is new (as :meth:`__init__` takes it)."""
        ident = self._ids.get(label)
        if ident is None:
            label = _label(label)
            ident = len(self._labels)
            self._ids[label] = ident
            self._labels.append(label)
        return ident

    def intern_many(self, labels: Iterable[str], count: int = -1) -> np.ndarray:
        """The ids of ``labels`` (``count`` of them, -1 when not known) as an int32 array: what
        :meth:`intern` gives each in turn, new labels taking the next free ids in the order they
        first occur. The labels are looked up, and new ones numbered, in C: interned one by one,
        reading retail's 908,576 items spent longer in :meth:`intern` than in splitting the text."""
        found, new = self.numbering(labels, count)
        # the new labels, in the order they were numbered, take the same ids here
        for label in new:
            self.intern(label)
        return found

    def numbering(self, labels: Iterable[str], count: int = -1) -> tuple[np.ndarray, list[str]]:
        """The ids :meth:`intern_many` gives ``labels``, and the labels new to the vocabulary in the
        order they take the next free ids, without interning them: a reader checks a file's records
        by their ids and interns the new labels only when every record has passed, so that a file
        it refuses leaves the vocabulary as it was."""
        known = len(self._labels)
        numbered = defaultdict(itertools.count(known).__next__, self._ids)
        found = np.fromiter(map(numbered.__getitem__, labels), dtype=np.int32, count=count)
        return found, list(itertools.islice(numbered, known, None))

    def get(self, label: str) -> int | None:
        """The id of ``label``, or None when it has none."""
        return self._ids.get(label)

    def __contains__(self, label: object) -> bool:
        return label in self._ids

    def label(self, ident: int | np.integer[Any]) -> str:
        """The label of id ``ident``."""
        return self._labels[ident]

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label by id. A tuple: the release is checked through the label-to-id map and
        written through this sequence, so a plugin must not be able to change one and not the
        other (the vocabulary is append-only, so an equal length means an equal tuple)."""
        if len(self._frozen) != len(self._labels):
            self._frozen = tuple(self._labels)
        return self._frozen

    def ids(self, labels: Iterable[str]) -> np.ndarray:
        """Ids of ``labels`` as an int64 array; labels not in the vocabulary map to -1. One str is a
        ``TypeError``, as in :meth:`__init__` and :meth:`mask`."""
        get = self._ids.get
        given = label_collection(labels, "Vocabulary.ids: labels", LABELS_ADVICE)
        return np.fromiter((get(lab, -1) for lab in given), dtype=np.int64)

    def mask(self, labels: Iterable[str]) -> np.ndarray:
        """Boolean array over ids: True where the id's label is in ``labels``. A set is looked up
        from the shorter of the two: the models ask it of every window with the item lists, and a
        list of 54,000 labels looked up one by one in a worker's window of 3,000 cost 9.7 ms a call."""
        given = label_collection(labels, "Vocabulary.mask: labels", LABELS_ADVICE)
        if isinstance(given, Set) and len(self._labels) < len(given):
            return np.fromiter(map(given.__contains__, self._labels), dtype=bool, count=len(self._labels))
        out = np.zeros(len(self._labels), dtype=bool)
        ids = self.ids(given)
        out[ids[ids >= 0]] = True
        return out

    def copy(self) -> Vocabulary:
        """A vocabulary of its own with the same labels under the same ids."""
        copied = Vocabulary()
        copied._labels, copied._ids, copied._frozen = list(self._labels), dict(self._ids), self._frozen
        return copied

    @classmethod
    def snapshot(cls, labels: tuple[str, ...], ids: dict[str, int]) -> Vocabulary:
        """A vocabulary of ``labels``, distinct, given with their map to ids (``ids`` is copied),
        whose ``labels`` is that very tuple until it grows."""
        made = cls()
        made._labels, made._ids, made._frozen = list(labels), dict(ids), labels
        return made

    def __len__(self) -> int:
        return len(self._labels)

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} items)"


def _label(label: object) -> str:
    """``label`` as a plain str. The core copies every window it hands on or checks, and refused
    a vocabulary of numpy's str subclass there, as the release's (library walkthrough: a window
    over ``Vocabulary(np.unique(items))`` failed every run); a label of another type names no
    item the data can hold, since setveil reads every item as text."""
    if isinstance(label, str):
        return str.__str__(label)
    # by type alone: a label is an item, which no message names
    raise TypeError(f"a Vocabulary's labels are str; got {a_kind(label)}")


#: what a message refusing one str for a collection of labels advises
LABELS_ADVICE = "give the labels as a collection of str"


def label_collection(given: object, name: str, advice: str) -> Iterable[Any]:
    """``given``, where a collection of labels is expected, refused with a ``TypeError`` naming
    ``name`` and the type, never the value, when it is one str or bytes (iterated, its characters
    or byte values would be taken for labels: ``ids("hiv")`` looked up 'h', 'i' and 'v') or is
    not iterable."""
    if isinstance(given, str | bytes):
        raise TypeError(f"{name} is one {type(given).__name__}; {advice}")
    if not isinstance(given, Iterable):
        raise TypeError(f"{name} is {a_kind(given)}; {advice}")
    return given


def a_kind(value: object) -> str:
    """The type of ``value`` with its article ("an int"), for a message that must not quote it."""
    kind = type(value).__name__
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
