"""Item classes (Xu et al. §2 and §4.1): private (sensitive), public (attacker knowledge), neutral.

A neutral item is neither: it is released as is and never part of an attack. When no public
list is given, every item that is not sensitive is public, as in the paper.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from .errors import InputError, also_lines, counted, first_lines
from .labeltext import LabelFolds, folded, label_folds, label_lines, label_text, read_utf8, turkic_folded, unmarked
from .output import text_bytes, write_output
from .vocabulary import Vocabulary, a_kind, label_collection


class ItemClass(IntEnum):
    """What an item is to a model: PRIVATE (sensitive), PUBLIC (what an attacker may know) or
    NEUTRAL (neither: a public list was given and does not hold it)."""

    NEUTRAL = 0
    PUBLIC = 1
    PRIVATE = 2


@dataclass(frozen=True)
class ItemSchema:
    """Which labels are private and which public; ``public=None`` means all non-private ones.
    Each is a collection of str labels, kept as a frozenset (one str, whose characters are no
    labels, is a ``TypeError``)."""

    private: frozenset[str] = frozenset()
    public: frozenset[str] | None = None
    #: label -> the lines of its list that give it as a JSON string (``"x"``, read as ``x``), for
    #: the refusal of a list that quotes what the data spells with quotes; kept here, as read,
    #: because a pipe (``--sensitive <(...)``) cannot be read again (QA)
    private_quoted: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    public_quoted: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    #: label -> the first line of its list that gives it, for refusals that point at a line
    private_lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    public_lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # frozen sets of str, whatever collection a caller gave: one str was taken as its
        # characters, so ItemSchema(private="hiv") made 'h' and 'i' private and left 'hiv' public,
        # which coherence then released unprotected (library walkthrough)
        object.__setattr__(self, "private", _labels(self.private, "private"))
        if self.public is not None:
            object.__setattr__(self, "public", _labels(self.public, "public"))
        if self.public is not None and self.private & self.public:
            both = len(self.private & self.public)
            raise ValueError(f"{counted(both, 'item', ('is', 'are'))} both private and public")

    @functools.cached_property
    def listed(self) -> frozenset[str]:
        """Every label the lists give, private or public: the spellings a user named. Made once:
        a worker's misspelling check asks it of every window, and the union of lists of 54,039
        and 3,296 labels cost 1.2 ms each time."""
        return self.private if self.public is None else self.private | self.public

    def class_of(self, label: str) -> ItemClass:
        """The :class:`ItemClass` of one label."""
        if label in self.private:
            return ItemClass.PRIVATE
        if self.public is None or label in self.public:
            return ItemClass.PUBLIC
        return ItemClass.NEUTRAL

    def classes(self, vocab: Vocabulary) -> np.ndarray:
        """An int8 array over the vocabulary's ids holding each item's :class:`ItemClass`."""
        out = np.full(len(vocab), ItemClass.PUBLIC if self.public is None else ItemClass.NEUTRAL, dtype=np.int8)
        if self.public is not None:
            out[vocab.mask(self.public)] = ItemClass.PUBLIC
        out[vocab.mask(self.private)] = ItemClass.PRIVATE
        return out

    @classmethod
    def from_files(
        cls, private: str | os.PathLike | None, public: str | os.PathLike | None = None
    ) -> ItemSchema:
        """The schema of a sensitive-item file and, optionally, a public-item file (one label
        per line); an item on both lists is an :class:`InputError`."""
        priv, priv_quoted, priv_lines = read_label_list(private) if private is not None else (frozenset(), {}, {})
        pub, pub_quoted, pub_lines = read_label_list(public) if public is not None else (None, {}, {})
        if pub is not None and priv & pub:
            # the lines, never the labels, as every refusal of an item list names them
            lines = sorted(pub_lines[label] for label in priv & pub)
            first = min(priv & pub, key=pub_lines.__getitem__)
            raise InputError(public, f"the item is listed as sensitive too, on line {priv_lines[first]} of {private}: "
                                     "list it as sensitive or as public, not both" + also_lines(lines), lines[0])
        return cls(priv, pub, priv_quoted, pub_quoted, priv_lines, pub_lines)


def read_label_file(path: str | os.PathLike) -> frozenset[str]:
    """One item label per line, bare or as a JSON string (:mod:`setveil.core.labeltext`); blank
    lines are skipped, a UTF-8 byte-order mark too (an editor's mark glued to the first label would
    leave that item unprotected). A line of several bare labels is refused rather than read as one
    label no item has."""
    return read_label_list(path)[0]


def _labels(given: object, name: str) -> frozenset[str]:
    """``given`` as the frozenset of its labels, refused unless it is a collection of str."""
    advice = "give its labels as a set of str"
    labels = frozenset(label_collection(given, f"ItemSchema's {name}", advice))
    others = [label for label in labels if not isinstance(label, str)]
    if others:
        # by type alone: a label is an item, which no message names
        raise TypeError(f"ItemSchema's {name}: {counted(len(others), 'label', ('is', 'are'))} not a str "
                        f"({a_kind(others[0])}); {advice}")
    return labels


def read_label_list(path: str | os.PathLike) -> tuple[frozenset[str], dict[str, tuple[int, ...]], dict[str, int]]:
    """The labels of :func:`read_label_file`, the lines that give each label as a JSON string and
    the first line of each label, for messages that point at them; the file is read once."""
    text = read_utf8(path)
    lines = text.split("\n")
    first: dict[str, int] = {}
    quoted: dict[str, tuple[int, ...]] = {}
    for number, found in label_lines(path, text):
        if len(found) > 1:
            raise InputError(
                path, 'a line holds several labels; give one item label per line (write a label with '
                'blanks inside as a JSON string: "New York")', number
            )
        first.setdefault(found[0], number)
        if lines[number - 1].strip().startswith('"'):
            quoted[found[0]] = quoted.get(found[0], ()) + (number,)
    return frozenset(first), quoted, first


def other_spellings(labels: frozenset[str], vocab: Vocabulary,
                    held_folds: LabelFolds | None = None) -> dict[str, frozenset[str]]:
    """The labels of ``vocab`` that spell a label of ``labels`` otherwise, for each label that has
    any. A label ``vocab`` lacks is spelt otherwise by a label that folds like it
    (:func:`~setveil.core.labeltext.folded`, or :func:`~setveil.core.labeltext.turkic_folded`
    with the same fold of the other: ``hiv`` for ``HIV``, ``istanbul`` for ``İstanbul``); a label
    ``vocab`` holds, by another that is alike :func:`~setveil.core.labeltext.unmarked` (é as e and
    a combining accent, a zero-width space pasted in). Case alone does not make a held label
    another spelling: data may tell ``Ca`` (calcium) from ``CA`` (cancer antigen) on purpose, but
    no one means two items by what no reader can see. ``held_folds``: :func:`label_folds` of
    ``vocab.labels``, where the caller checks several lists against one window and folds it once."""
    found: dict[str, set[str]] = {}
    held = vocab.labels
    folds = label_folds(held) if held_folds is None else held_folds
    # the window's Turkish folds the other folds themselves (label_folds, where no label holds an
    # I), and the list's grouped alike: the pass over the other fold finds all that one would
    turkic_as_other = folds[2] is folds[1] and _turkic_alike(labels)
    for by_form, forms, of_held, turkic, sole in zip(_spellings(labels), folds, (True, False, False),
                                                     (False, False, True), _sole_spellings(labels)):
        if of_held and forms is held:
            # every held label is its own unmarked form (label_folds gives the labels themselves
            # when all are ASCII and printable, as most windows' are), so none is another's
            continue
        if turkic and turkic_as_other:
            continue
        # a worker checks every window: only the labels whose form a listed label has are looked
        # at, and of those not one that is its form's only listed label, which spells no other
        # (the listed labels a window holds as listed, most of them); found in one pass of C
        # calls over the window's forms, with no set of them made
        for other, form in itertools.filterfalse(sole.__contains__, itertools.compress(
                zip(held, forms), map(by_form.__contains__, forms))):
            for label in by_form[form]:
                if (label != other and label in vocab) if of_held else label not in vocab:
                    found.setdefault(label, set()).add(other)
    return {label: frozenset(others) for label, others in found.items()}


@functools.lru_cache(maxsize=8)
def _spellings(labels: frozenset[str]) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """The labels of a list by their :func:`~setveil.core.labeltext.unmarked`,
    :func:`~setveil.core.labeltext.folded` and :func:`~setveil.core.labeltext.turkic_folded`
    forms. A worker checks each window against the same few lists: folding a list of 50,000
    labels again for every window cost 0.07 s a window, 0.5 s for Turkish labels (review), where
    folding the window's own 2,000 labels takes 1.5 ms and 22 ms."""
    by_unmarked: dict[str, list[str]] = {}
    by_fold: dict[str, list[str]] = {}
    by_turkic_fold: dict[str, list[str]] = {}
    for label in labels:
        by_unmarked.setdefault(unmarked(label), []).append(label)
        by_fold.setdefault(folded(label), []).append(label)
        by_turkic_fold.setdefault(turkic_folded(label), []).append(label)
    return by_unmarked, by_fold, by_turkic_fold


@functools.lru_cache(maxsize=8)
def _turkic_alike(labels: frozenset[str]) -> bool:
    """Whether the labels of a list are grouped alike by :func:`~setveil.core.labeltext.folded`
    and :func:`~setveil.core.labeltext.turkic_folded`, each group under the same form."""
    _, by_fold, by_turkic_fold = _spellings(labels)
    return by_fold == by_turkic_fold


@functools.lru_cache(maxsize=8)
def _sole_spellings(labels: frozenset[str]) -> tuple[frozenset[tuple[str, str]], ...]:
    """For each of :func:`_spellings`' forms, the pairs (label, its form) of the labels of a list
    that are the only one of the list with their form."""
    return tuple(frozenset((spelt[0], form) for form, spelt in by_form.items() if len(spelt) == 1)
                 for by_form in _spellings(labels))


def misspelt(labels: frozenset[str], vocab: Vocabulary, listed: frozenset[str] | None = None,
             held_folds: LabelFolds | None = None) -> frozenset[str]:
    """The labels of ``labels`` that ``vocab`` spells otherwise (:func:`other_spellings`) where
    ``listed`` (``labels`` when None) does not give that spelling too. The item meant is then
    unlisted, in every transaction or in those that spell it so: a sensitive one is released
    unprotected, a restrictive pattern hides nothing, while the release passes its check
    (adversarial QA pass; review: a byte-order mark on some records' ``HIV``, with ``HIV``
    listed). ``listed`` is every item list of the run: ``Ca`` sensitive while a window holds
    only ``CA``, which the public list names, is no misspelling but two items (review)."""
    known = labels if listed is None else listed
    return frozenset(label for label, others in other_spellings(labels, vocab, held_folds).items()
                     if not others <= known)


def misspelt_lines(labels: frozenset[str], first_lines: Mapping[str, int], vocab: Vocabulary,
                   listed: frozenset[str] | None = None,
                   held_folds: LabelFolds | None = None) -> list[int]:
    """The lines of an item list that give a :func:`misspelt` label, sorted; 0 for a label with
    no line."""
    return sorted(first_lines.get(label, 0) for label in misspelt(labels, vocab, listed, held_folds))


def misspelt_reason(listing: str, lines: list[int], consequence: str, remedy: str) -> str:
    """Why a window may not be released when ``listing`` (a setting's list, a parameter's file)
    names at ``lines`` an item the window spells otherwise, only or as well (:func:`misspelt`):
    the window fails closed, since the item meant goes unprotected while the release passes its
    check. Line numbers only, never a label, so that the reason may be logged and dead-lettered."""
    shown = first_lines(lines)
    return (f"{listing} names at {'line' if len(lines) == 1 else 'lines'} {shown} an item this window spells "
            "otherwise, in another case, Unicode "
            f"form or with an invisible character, {consequence}: {remedy}")


def write_label_file(path: str | os.PathLike, labels: Iterable[str]) -> None:
    write_output(path, label_file_bytes(path, labels))


def label_file_bytes(path: str | os.PathLike, labels: Iterable[str]) -> bytes:
    """An item list as :func:`read_label_file` reads it, one label per line, as the output ``path``
    holds it (:func:`setveil.core.output.text_bytes`: gzipped for a ``.gz`` name)."""
    return text_bytes(path, "".join(f"{label_text(label)}\n" for label in labels))
