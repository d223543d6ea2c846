"""Is the release a release of this original? The check every path runs, and its pieces.

A release must have one transaction per original transaction. Suppression may only remove
occurrences: nothing added (R2 of Xu et al.), and some items (private or neutral ones, say)
must not lose any. Generalization may only replace each item by one of its ancestors-or-self.
:func:`release_violations` is what the pipeline, ``setveil verify``, the demo and the
conformance kit ask: the core's structural checks first, so that no plugin's checker can forget
them, then the model's own. The helpers recount from the two windows alone, like the
checkers that use them.
"""

from __future__ import annotations

import numbers
from collections.abc import Generator, Iterable, Iterator

import numpy as np

from .arrays import in_sorted
from .errors import ContractError, counted
from .generalization import generalization_violations
from .model import Context, PrivacyModel, Transformation, Violation
from .window import Window, detached


class BrokenViolation(ContractError):
    """A model's checker yielded something other than a :class:`Violation` of labels; the message
    names types alone, never a value (it is logged and sent with the dead letter)."""


def release_violations(model: PrivacyModel, original: Window, release: Window,
                       context: Context) -> Iterator[Violation]:
    """Every way ``release`` is not a safe release of ``original`` under ``model``: one
    transaction per original one and nothing added, or, when the model generalizes, every item
    replaced by one of its ancestors-or-self in the hierarchy; then, when
    those hold, ``model.violations`` (asked only then: it would compare unrelated windows),
    which gets detached read-only copies over one vocabulary: a checker that wrote into what it
    was given would change what the caller goes on to emit or compare. A generalization is
    checked against the hierarchy of ``context``, the one setveil gave the model
    (``Configured.context``): a model that replaced its own would otherwise be checked against
    what it chose."""
    structural = list(structure_violations(model, original, release, context))
    if structural:
        yield from structural
        return
    checked = model.violations(*on_one_vocabulary(*detached(original, release)))
    if not isinstance(checked, Iterable):
        # a checker that ends in `return` where it found nothing returns None, which failed the
        # window as a bare TypeError (QA as a plugin author)
        raise BrokenViolation(f"model {model.name!r}: its checker returned {_a(checked)}, not an iterable of "
                              "Violations (yield each one, or return a list, empty when the release holds)")
    yield from _held_to_contract(model, checked, len(original))


def _held_to_contract(model: PrivacyModel, violations: Iterable[Violation], n: int) -> Iterator[Violation]:
    # Every caller reads the fields (the pipeline's reason, describe()'s join of labels): a checker
    # that yields a string or item ids would crash the caller, outside the checker's error handling.
    for violation in violations:
        problem = _contract_problem(violation, n)
        if problem is not None:
            raise BrokenViolation(f"model {model.name!r}: its checker yielded {problem}")
        yield violation


def _contract_problem(violation: object, n: int) -> str | None:
    if not isinstance(violation, Violation):
        return f"{_a(violation)}, not a Violation"
    fields: dict[str, type | tuple[type, ...]] = {"rule": str, "summary": str, "target": (str, type(None))}
    for name, kind in fields.items():
        if not isinstance(getattr(violation, name), kind):
            return f"a Violation whose {name} is {_a(getattr(violation, name))}, not a str"
    if not isinstance(violation.itemset, (tuple, list)):
        return f"a Violation whose itemset is {_a(violation.itemset)}, not a tuple of labels"
    odd = next((item for item in violation.itemset if not isinstance(item, str)), None)
    if odd is not None:
        return f"a Violation whose itemset holds {_a(odd)}, not labels (str): map ids with window.vocab"
    position = violation.transaction
    if position is not None and (isinstance(position, bool) or not isinstance(position, numbers.Integral)):
        return f"a Violation whose transaction is {_a(position)}, not a position (int)"
    if position is not None and not 0 <= position < n:
        return f"a Violation whose transaction is outside the window's {n} positions"
    return None


def _a(value: object) -> str:
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def structure_violations(model: PrivacyModel, original: Window, release: Window,
                         context: Context) -> Iterator[Violation]:
    """What a release breaks whatever the model's parameters: one transaction per original one, a
    well-formed release, and nothing added (or, for a generalizing model, every item one of its
    ancestors-or-self)."""
    problem = shape_violation(original, release) or malformed_violation(release)
    if problem is not None:
        yield problem
    elif model.transformation is not Transformation.GENERALIZATION:
        yield from added_occurrences(*on_one_vocabulary(original, release))
    elif original.n_occurrences or release.n_occurrences:
        # the registry holds a generalizing model to need a hierarchy, so the context has one
        yield from generalization_violations(original, release, context.hierarchy_for(original))


def malformed_violation(window: Window) -> Violation | None:
    """Whether ``window`` breaks the CSR invariants every support count relies on.

    Files are parsed into well-formed windows, but a plugin builds its release from arrays: an
    item listed twice in one transaction would count twice in every support (and carry into the
    next transaction's bit of a packed tidset), so a checker could pass an unsafe release."""
    indptr, ids = window.indptr, window.indices
    if len(indptr) == 0 or indptr[0] != 0 or indptr[-1] != len(ids) or (np.diff(indptr) < 0).any():
        return Violation("malformed", "the release's transaction offsets do not cover its item ids")
    if len(ids) and (int(ids.min()) < 0 or int(ids.max()) >= len(window.vocab)):
        return Violation("malformed", "the release holds an item id outside its vocabulary")
    inside = np.ones(max(len(ids) - 1, 0), dtype=bool)
    starts = indptr[1:-1]
    inside[starts[(starts > 0) & (starts < len(ids))] - 1] = False
    unordered = inside & (np.diff(ids.astype(np.int64)) <= 0)
    if unordered.any():
        position = int(np.searchsorted(indptr, int(np.flatnonzero(unordered)[0]) + 1, side="right")) - 1
        return Violation(
            "malformed", "a released transaction lists an item twice or out of order", transaction=position
        )
    return None


def shape_violation(original: Window, release: Window) -> Violation | None:
    if len(original) == len(release):
        return None
    return Violation("shape", f"release has {len(release)} transactions, original {len(original)}")


def on_one_vocabulary(original: Window, release: Window) -> tuple[Window, Window]:
    """Both windows over one vocabulary (a copy of the original's when they differ), so item ids
    compare; labels only the release holds get new ids."""
    if release.vocab is original.vocab:
        return original, release
    vocab = original.vocab.copy()
    return Window(vocab, original.indptr, original.indices, original.tids), release.relabel(vocab)


def suppression_basics(
    original: Window, release: Window, added_rule: str = "added-item"
) -> Generator[Violation, None, tuple[Window, Window] | None]:
    """What every suppression checker checks first: one released transaction per original one,
    a well-formed release, then nothing added. Yields those violations and returns both windows
    on one vocabulary, or None when the release is not comparable (then nothing else compares).
    Use as
    ``aligned = yield from suppression_basics(original, release)``."""
    problem = shape_violation(original, release) or malformed_violation(release)
    if problem is not None:
        yield problem
        return None
    original, release = on_one_vocabulary(original, release)
    yield from added_occurrences(original, release, added_rule)
    return original, release


def occurrence_keys(window: Window) -> np.ndarray:
    """One sorted int64 key per occurrence: transaction position * vocabulary size + item id."""
    return window.owners() * len(window.vocab) + window.indices


def added_occurrences(original: Window, release: Window, rule: str = "added-item") -> Iterator[Violation]:
    """Occurrences of the release that its original transaction does not hold (same vocabulary)."""
    added = ~in_sorted(occurrence_keys(release), occurrence_keys(original))
    if added.any():
        first, count = int(np.flatnonzero(added)[0]), int(added.sum())
        yield Violation(
            rule,
            f"{counted(count, 'released occurrence', ('is', 'are'))} not in the original transaction "
            "at the same position (a release keeps the window's order)",
            (release.vocab.label(int(release.indices[first])),),
            int(release.owners()[first]),
        )


def removed_occurrences(
    original: Window, release: Window, protected: np.ndarray, rule: str, what: str
) -> Iterator[Violation]:
    """Occurrences of ``protected`` items (a boolean mask over ids) that the release lost."""
    keep = protected[original.indices]
    lost = keep & ~in_sorted(occurrence_keys(original), occurrence_keys(release))
    if lost.any():
        first, count = int(np.flatnonzero(lost)[0]), int(lost.sum())
        yield Violation(
            rule,
            f"{counted(count, 'occurrence')} of {what} {'was' if count == 1 else 'were'} removed",
            (original.vocab.label(int(original.indices[first])),),
            int(original.owners()[first]),
        )

