"""Frequent itemsets with their frequencies: F(σ, D) of Mielikäinen (2004), §2, Problem 1.

A collection holds its own item labels and stores the itemsets as CSR arrays (``indptr``,
``items``) with one frequency each, the items of an itemset sorted. It is what the data owner
publishes (the non-anonymized itemsets, possibly perturbed) and what the attacker mines from the
item-renamed data.

The file a collection is written to holds one itemset per line: its frequency (a decimal share
of the transactions, written exactly as Python's ``repr`` so that it reads back to the same
float) followed by its item labels, separated by whitespace; a label with blanks inside is a JSON
string (:mod:`setveil.core.labeltext`). Blank lines are skipped. Frequencies may lie outside
[0, 1]: the paper's owner perturbs them with zero-mean noise.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from setveil.core.errors import InputError, ParameterError
from setveil.core.labeltext import label_lines, label_text
from setveil.core.mining import ITEMSET_BUDGET, frequent_itemset_arrays
from setveil.core.params import written_plainly
from setveil.core.window import Window


@dataclass(frozen=True)
class ItemsetCollection:
    """Itemsets over ``labels``: itemset j is ``items[indptr[j]:indptr[j+1]]`` (ids into
    ``labels``, ascending) with frequency ``frequencies[j]``. ``lines`` gives each itemset's
    line in the file ``source`` it was read from (empty and None when it was not read from a
    file)."""

    labels: tuple[str, ...]
    indptr: np.ndarray
    items: np.ndarray
    frequencies: np.ndarray
    lines: tuple[int, ...] = ()
    source: str | None = None

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.indptr)

    def itemset(self, j: int) -> np.ndarray:
        return self.items[self.indptr[j]:self.indptr[j + 1]]

    def origin(self, j: int) -> str:
        """Where itemset j was read, as 'line L of FILE', or '' when it was not read from a file."""
        if not self.lines:
            return ""
        return f"line {self.lines[j]}" + (f" of {self.source}" if self.source else "")

    def level(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the itemsets of ``size`` items, and their items as a (n, size) array."""
        positions = np.flatnonzero(self.sizes == size)
        return positions, self.items_at(positions, size)

    def items_at(self, positions: np.ndarray, size: int) -> np.ndarray:
        """The items of the itemsets at ``positions``, all of ``size`` items, as a (n, size) array."""
        return self.items[self.indptr[positions][:, None] + np.arange(size)]

    def restrict(self, keep: np.ndarray) -> ItemsetCollection:
        """The itemsets where ``keep`` (boolean, one per itemset) is true, same labels."""
        keep = np.asarray(keep, dtype=bool)
        sizes = self.sizes[keep]
        indptr = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        owners = np.repeat(np.arange(len(self)), self.sizes)
        lines = tuple(line for line, kept in zip(self.lines, keep) if kept) if self.lines else ()
        return ItemsetCollection(self.labels, indptr, self.items[keep[owners]], self.frequencies[keep], lines,
                                 self.source)

    def over_held_labels(self) -> ItemsetCollection:
        """The same itemsets over only the labels some itemset holds, in their order (so each
        itemset's items stay ascending and the itemsets in order)."""
        held = np.unique(self.items)
        position = np.full(len(self.labels), -1, dtype=np.int64)
        position[held] = np.arange(len(held))
        return ItemsetCollection(tuple(self.labels[i] for i in held), self.indptr, position[self.items],
                                 self.frequencies, self.lines, self.source)

    def renamed(self, names: dict[str, str]) -> ItemsetCollection:
        """The same itemsets with every label replaced through ``names``, the labels ordered
        by their new text (so no position carries the old naming) and each itemset's items
        sorted again."""
        labels = sorted(names[label] for label in self.labels)
        position = {label: i for i, label in enumerate(labels)}
        old_to_new = np.array([position[names[label]] for label in self.labels], dtype=np.int64)
        return canonical(tuple(labels), self.indptr, old_to_new[self.items], self.frequencies)

    def text(self) -> str:
        """The collection in the file format of this module."""
        lines = []
        for j in range(len(self)):
            labels = " ".join(label_text(self.labels[i]) for i in self.itemset(j))
            lines.append(f"{float(self.frequencies[j])!r} {labels}\n")
        return "".join(lines)

    @classmethod
    def mine(cls, window: Window, sigma: float, max_size: int | None = None) -> ItemsetCollection:
        """F(σ, D): every itemset of at most ``max_size`` items whose frequency is at least
        ``sigma``, the items sorted by label and the itemsets by size, then items."""
        if not 0 < sigma <= 1:
            raise ParameterError("sigma", f"{sigma} is not in (0, 1]")
        n = len(window)
        min_support = max(1, math.ceil(sigma * n - 1e-9 * n))
        # counted a few sizes at a time: long records are refused at the first sizes past the budget;
        # unordered, since canonical() sorts them
        indptr, ids, supports = frequent_itemset_arrays(
            window, min_support, max_size=max_size, budget=ITEMSET_BUDGET, by_size=True, unordered=True)
        used = np.unique(ids)
        used_labels = [window.vocab.label(int(i)) for i in used]
        order = np.argsort(np.array(used_labels, dtype=object), kind="stable")
        new_id = np.empty(len(window.vocab), dtype=np.int64)
        new_id[used[order]] = np.arange(len(used))
        labels = tuple(used_labels[i] for i in order)
        return canonical(labels, indptr, new_id[ids], supports / max(n, 1))

    @classmethod
    def load(cls, path: str | os.PathLike, text: str | None = None) -> ItemsetCollection:
        """Read a collection file (or ``text``, its text already read, as :func:`label_lines`
        takes it); raises :class:`InputError` naming the file and line."""
        path = os.fspath(path)
        ids: dict[str, int] = {}
        lengths: list[int] = []
        flat: list[int] = []
        frequencies: list[float] = []
        lines: list[int] = []
        seen: dict[frozenset[int], int] = {}
        # whether a frequency written as a whole number, and one written as a share (0.25, 1e-05),
        # has been read: a file of whole numbers alone is no file `audit publish` writes
        whole = shares = False
        for number, (head, *tokens) in label_lines(path, text):
            try:
                if not written_plainly(head):  # float() reads 0_5 as 5 and other scripts' digits
                    raise ValueError
                frequency = float(head)
            except ValueError:
                if whole and not shares:  # a FIMI line after lines that began with integer labels
                    raise _transactions(path, number) from None
                if not lengths and not _number(head):  # the first line of a FIMI file of text labels
                    raise _transactions(path, number,
                                        " (its first line starts with a label, not a frequency)") from None
                raise InputError(path, "an itemset line starts with its frequency, a decimal number in ASCII digits",
                                 number) from None
            if not math.isfinite(frequency):
                raise InputError(path, "the frequency is not a finite number", number)
            written_whole = _whole(head)
            if not tokens:
                if written_whole and not shares:  # a transaction of one integer label
                    raise _transactions(path, number)
                raise InputError(path, "the itemset has no items", number)
            whole = whole or written_whole
            shares = shares or not written_whole
            itemset = [ids.setdefault(token, len(ids)) for token in tokens]
            key = frozenset(itemset)
            if len(key) != len(itemset):
                raise InputError(path, "an item is repeated in this itemset", number)
            if key in seen:
                if not shares:  # transactions repeat, itemsets never do
                    raise _transactions(path, number)
                raise InputError(path, f"repeats the itemset of line {seen[key]}", number)
            seen[key] = number
            lengths.append(len(itemset))
            flat.extend(itemset)
            frequencies.append(frequency)
            lines.append(number)
        if not lengths:
            raise InputError(path, "no itemsets")
        if not shares and min(frequencies) <= 1 < max(frequencies):
            # whole numbers on both sides of 1 are neither shares nor counts but a transaction file's
            # first labels (whole numbers all above 1 are left to deanonymize's refusal of counts)
            raise _transactions(path, next(line for line, f in zip(lines, frequencies) if f > 1))
        labels = sorted(ids)
        new_id = np.empty(len(ids), dtype=np.int64)
        new_id[[ids[label] for label in labels]] = np.arange(len(labels))
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return canonical(tuple(labels), indptr, new_id[np.array(flat, dtype=np.int64)],
                         np.array(frequencies, dtype=np.float64), tuple(lines), path)


def _whole(head: str) -> bool:
    """Whether a frequency is written as a whole number, as a transaction file's first label may
    be and no share ``audit publish`` writes is (``repr`` of a float has a point or an exponent)."""
    return head.lstrip("+-").isdigit()


def _number(head: str) -> bool:
    """Whether ``head`` is a number in any writing (``0_5``, other scripts' digits): one that is
    none is a label, where one written otherwise than plainly may be a frequency mistyped."""
    try:
        float(head)
    except ValueError:
        return False
    return True


def _transactions(path: str, number: int, why: str = "") -> InputError:
    """The error for a file that reads as a transaction file rather than itemsets, at line
    ``number``, ``why`` saying what gave it away; the line itself is not quoted (it holds
    transaction data)."""
    return InputError(path, f"looks like a transaction file, not itemsets{why}: an itemsets line is the itemset's "
                            "frequency as a share of the transactions with a decimal point or exponent (0.25, "
                            "as `audit publish` writes it), then its labels", number)


def count_itemsets(text: str, max_size: int | None) -> int:
    """About how many itemsets of at most ``max_size`` items (any, for None) a collection file's
    ``text`` holds, without parsing it: a line's blank-separated fields less its frequency. A quoted label
    with blanks inside counts as several, so a line may be taken as larger than it is and the
    count is never above the truth: it is used to refuse a file too large to attack before the
    file is parsed (one of 3.76 million itemsets took 59 s and 6 GB to read)."""
    lines = (line for line in text.split("\n") if line and not line.isspace())
    if max_size is None:
        return sum(1 for _ in lines)
    return sum(1 for line in lines if len(line.split()) - 1 <= max_size)


def canonical(labels, indptr, items, frequencies, lines=(), source=None) -> ItemsetCollection:
    """Sort each itemset's items, then the itemsets by size and items."""
    sizes = np.diff(indptr)
    owners = np.repeat(np.arange(len(sizes)), sizes)
    items = np.asarray(items, dtype=np.int64)[np.lexsort((items, owners))]
    width = int(sizes.max()) if len(sizes) else 0
    padded = np.full((len(sizes), width), -1, dtype=np.int64)
    padded[owners, np.arange(len(items)) - indptr[owners]] = items
    order = np.lexsort(tuple(padded[:, c] for c in reversed(range(width))) + (sizes,))
    items = padded[order][padded[order] >= 0]
    new_indptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes[order], out=new_indptr[1:])
    lines = tuple(lines[i] for i in order) if lines else ()
    return ItemsetCollection(labels, new_indptr, items, np.asarray(frequencies, dtype=np.float64)[order], lines,
                             source)
