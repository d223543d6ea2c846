"""Restrictive patterns (Oliveira & Zaïane, TR 02-13, §2.4 Definition 1): the file a user gives,
and their item ids in one window.

The file holds one pattern per line, item labels separated by whitespace, lines split at ``\n``
alone as in the FIMI data; blank lines are skipped. A label with blanks inside is written as a
JSON string (:mod:`setveil.core.labeltext`). There are no comments: ``#`` is a legal first
character of a label, and a line read as a comment would leave its pattern unprotected (a stray
note becomes a pattern of labels the data does not hold, which ``anonymize`` and ``verify`` point
out). A pattern needs at least two items: the sanitizer never empties
a transaction (§4.1 keeps one item), so a transaction holding nothing but a one-item pattern could
never be sanitized. A line that repeats an item, or repeats an earlier line's pattern, is an error.
Patterns that contain another listed pattern are kept as listed: §4 notes that they are restrictive
anyway, and each listed pattern gets its own bound.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from setveil.core.errors import InputError
from setveil.core.labeltext import label_lines
from setveil.core.schema import other_spellings
from setveil.core.vocabulary import Vocabulary


@dataclass(frozen=True)
class RestrictivePatterns:
    """The patterns of a file, in file order; ``lines`` holds each one's line number."""

    path: str
    patterns: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]

    @classmethod
    def load(cls, path: str | os.PathLike) -> RestrictivePatterns:
        """Read and validate a pattern file; raises :class:`InputError` naming file and line."""
        path = os.fspath(path)
        patterns: list[tuple[str, ...]] = []
        lines: list[int] = []
        seen: dict[frozenset[str], int] = {}
        for number, tokens in label_lines(path):
            items = frozenset(tokens)
            if len(items) != len(tokens):
                raise InputError(path, "an item is repeated in this pattern", number)
            if len(items) < 2:
                # a pattern written as CSV is one label: say so, as "needs 2 items" of two given did not
                why = (", separated by blanks: this line's one item holds a comma (a label with a comma is one item)"
                       if "," in tokens[0] else "")
                raise InputError(path, f"a restrictive pattern needs at least 2 items{why}", number)
            if items in seen:
                raise InputError(path, f"repeats the pattern of line {seen[items]}", number)
            seen[items] = number
            patterns.append(tuple(sorted(items)))
            lines.append(number)
        if not patterns:
            raise InputError(path, "no restrictive patterns")
        return cls(path, tuple(patterns), tuple(lines))

    def __len__(self) -> int:
        return len(self.patterns)

    @cached_property
    def labels(self) -> frozenset[str]:
        """Every label the patterns name."""
        return frozenset(label for pattern in self.patterns for label in pattern)

    def misspelt_lines(self, vocab: Vocabulary) -> list[int]:
        """The lines of the patterns that name an item ``vocab`` spells otherwise, only or as well
        (:func:`setveil.core.schema.other_spellings`): the pattern in ``vocab``'s spelling would
        go unhidden while the release passes its check (adversarial QA pass). A pattern is let
        through when each pattern it makes with one item spelt as ``vocab`` spells it is listed
        too; that another pattern names the item so is not enough (review: ``hiv aids`` passed
        for a file that also held ``HIV flu``, and ``HIV aids`` was left whole)."""
        spellings = other_spellings(self.labels, vocab)
        if not spellings:
            return []
        listed = {frozenset(pattern) for pattern in self.patterns}
        return [
            line for pattern, line in zip(self.patterns, self.lines)
            if any(frozenset(pattern).difference((item,)) | {other} not in listed
                   for item in pattern for other in spellings.get(item, ()))
        ]

    def table(self, vocab: Vocabulary) -> PatternTable:
        """The patterns whose items are all in ``vocab``, as item ids. A pattern with an item
        outside the vocabulary occurs in no transaction, so it has nothing to sanitize."""
        width = max(len(p) for p in self.patterns)
        ids = np.full((len(self.patterns), width), -1, dtype=np.int64)
        for row, pattern in enumerate(self.patterns):
            ids[row, : len(pattern)] = vocab.ids(pattern)
        lengths = np.fromiter((len(p) for p in self.patterns), dtype=np.int64, count=len(self.patterns))
        padding = np.arange(width)[None, :] >= lengths[:, None]
        known = np.flatnonzero(((ids >= 0) | padding).all(axis=1))
        items = np.where(padding, -1, ids)[known]
        items = np.sort(np.where(items < 0, np.iinfo(np.int64).max, items), axis=1)
        items[items == np.iinfo(np.int64).max] = -1
        return PatternTable(items, lengths[known], known)


@dataclass(frozen=True)
class PatternTable:
    """Restrictive patterns as rows of item ids (ascending, padded with -1).

    ``number[r]`` is row r's position in :attr:`RestrictivePatterns.patterns` (file order);
    rows stay in file order.
    """

    items: np.ndarray
    lengths: np.ndarray
    number: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    def row(self, r: int) -> np.ndarray:
        return self.items[r, : self.lengths[r]]

    def take(self, rows: np.ndarray) -> PatternTable:
        return PatternTable(self.items[rows], self.lengths[rows], self.number[rows])
