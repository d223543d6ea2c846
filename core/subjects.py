"""One transaction per subject: the records that share a ``subject`` merged into one.

The papers' models assume one transaction per individual, so a person with several records
(visits, baskets) is protected only once they are one transaction. The service merges the
records of a window this way (``window.merge_subjects``, :func:`setveil.streams.processor.build_window`)
and ``setveil anonymize --merge-subjects`` a whole file or each of its windows; both share
:func:`merge_records`, so a file and a window of the same records give the same transactions
(docs/batch-format.md describes the shape a merged transaction is released in).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .labeltext import unmarked
from .window import Tid, Window

Subject = str | int


def merge_records(records: Iterable[tuple[Tid, list[str], Subject | None]]
                  ) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """The transactions of ``records`` (each its tid, items and subject, None for none) and what
    each released transaction carries besides its items, in the order of each one's first
    record. A subject's records become one transaction whose items are the union of theirs, in
    order of first appearance, with ``{"tid": <first tid>, "tids": [every tid]}``; a record
    without a subject stays a transaction of its own with ``{"tid": tid}``. The subject itself
    is in neither: released, it would link a subject's transactions across windows, and no
    model protects the union of one subject's windows. Subjects compare by value and type
    (``7`` and ``"7"`` are two)."""
    transactions: list[list[str]] = []
    fields: list[dict[str, Any]] = []
    by_subject: dict[Subject, tuple[int, set[str]]] = {}
    for tid, items, subject in records:
        if subject is None:
            fields.append({"tid": tid})
            transactions.append(items)
            continue
        seen = by_subject.get(subject)
        if seen is None:
            by_subject[subject] = (len(transactions), set(items))
            fields.append({"tid": tid, "tids": [tid]})
            transactions.append(list(items))
            continue
        position, present = seen
        # a subject's items grow in place: a subject with many records costs linear, not
        # quadratic, time
        merged = transactions[position]
        for item in items:
            if item not in present:
                present.add(item)
                merged.append(item)
        fields[position]["tids"].append(tid)
    return transactions, fields


def merge_window(window: Window, subjects: Sequence[Subject | None]) -> tuple[Window, list[list[Tid] | None]]:
    """``window`` (a file's records, ``subjects`` theirs) with each subject's records merged as
    :func:`merge_records` merges them, over the same vocabulary, and each merged transaction's
    tids (None for a record without a subject)."""
    transactions, fields = merge_records(
        (window.tid(position), labels, subject) for position, (labels, subject) in enumerate(zip(window, subjects)))
    merged = Window.from_transactions(transactions, [f["tid"] for f in fields], vocab=window.vocab)
    return merged, [f.get("tids") for f in fields]


def spelt_apart(subjects: Iterable[Subject | None]) -> int:
    """How many of ``subjects`` spell another's name otherwise, so that the merge, which compares
    exactly, keeps one person's records apart and that person counts twice towards k: subjects
    that differ only in type (``7`` and ``"7"``), in blanks (``" 7"``, a doubled space) or in
    what a reader cannot see (an NFC and an NFD ``"é"``, a zero-width space:
    :func:`~setveil.core.labeltext.unmarked`). Case does not count: identifiers may tell ``aB``
    from ``Ab`` on purpose."""
    distinct = {subject for subject in subjects if subject is not None}
    return len(distinct) - len({" ".join(unmarked(str(subject)).split()) for subject in distinct})
