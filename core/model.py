"""The plugin contract: privacy models, suppression policies, releases and violations.

A privacy model is a class registered through ``setveil_register_privacy_models``. The
registry validates its parameters, then instantiates it with them and a :class:`Context`;
``anonymize`` turns a window into a :class:`Release` and ``violations`` checks any release
against the original independently of how it was made. A policy is the heuristic a model
consults to pick what to suppress or generalize; each model names the base class its
policies extend (``policy_base``), so a third party can add a policy without touching the model.
"""

from __future__ import annotations

import abc
import copy
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from .errors import ParameterError
from .hierarchy import Hierarchy
from .metrics import suppressed_share
from .params import Parameter
from .schema import ItemSchema
from .window import Window


class Transformation(str, Enum):
    """How a model changes data."""

    GLOBAL_SUPPRESSION = "global-suppression"
    PARTIAL_SUPPRESSION = "partial-suppression"
    GENERALIZATION = "generalization"


#: The names of ``Context.digests``: a file parameter's digest sits beside them in a batch's
#: ``model.context``, so no file parameter may take one of them.
CONTEXT_NAMES = ("sensitive", "public", "hierarchy")


def file_digest(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes: what a batch says of the file a parameter names (a
    model's own format, so unlike the item lists its line order counts)."""
    with open(path, "rb") as file:
        return "sha256:" + hashlib.file_digest(file, "sha256").hexdigest()


@dataclass(frozen=True)
class Context:
    """What a model may need besides its parameters and the window.

    ``schema`` classifies items (private/public/neutral); ``hierarchy_file`` and ``fanout``
    describe a generalization hierarchy for models that generalize, and ``hierarchy`` is one
    already resolved (it wins over the other two). :meth:`hierarchy_for` resolves them for a
    window: a file is read once; a fan-out hierarchy is built over the window's own items, so in
    a stream each window gets its own (the offline CLI pins one built over the whole input with
    :meth:`pinned`; operators who want one meaning for every window give a file).
    """

    schema: ItemSchema | None = None
    hierarchy_file: Path | None = None
    fanout: int | None = None
    hierarchy: Hierarchy | None = field(default=None, compare=False)
    _fanout_built: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # the range --fanout takes: a context built in Python with fanout=1 was taken, and every
        # window it served failed as 'model error: ValueError' (library walkthrough)
        fanout = self.fanout
        if fanout is not None:
            if isinstance(fanout, bool) or not isinstance(fanout, int | np.integer) or fanout < 2:
                raise ParameterError("fanout", f"got {fanout!r}, allowed: an integer in [2, inf)")
            object.__setattr__(self, "fanout", int(fanout))

    @property
    def has_hierarchy(self) -> bool:
        """Whether a hierarchy was given, built or to be built (a ``needs_hierarchy`` model
        requires one)."""
        return self.hierarchy is not None or self.hierarchy_file is not None or self.fanout is not None

    def copied(self) -> Context:
        """This context with hierarchies of its own: what a model gets, so that nothing it changes
        in them (a node's label, in place) reaches the hierarchy the core checks its releases
        against (QA re-check as a hostile plugin author)."""
        return copy.deepcopy(self)

    @cached_property
    def file_hierarchy(self) -> Hierarchy | None:
        """The hierarchy file, parsed on first use (InputError naming file and line if bad)."""
        return None if self.hierarchy_file is None else Hierarchy.read(self.hierarchy_file)

    def hierarchy_for(self, window: Window) -> Hierarchy:
        """The hierarchy to generalize ``window`` with; callers check it covers the window's items."""
        if self.hierarchy is not None:
            return self.hierarchy
        if self.file_hierarchy is not None:
            return self.file_hierarchy
        if self.fanout is not None:
            labels = window.vocab.labels
            items = frozenset(labels[i] for i in np.flatnonzero(window.supports))
            built = self._fanout_built.get(items)
            if built is None:
                built = Hierarchy.balanced(items, self.fanout)
                self._fanout_built.clear()  # one window's worth: anonymize, check and loss reuse it
                self._fanout_built[items] = built
            return built
        raise ParameterError("hierarchy", "this model needs a hierarchy: give --hierarchy FILE or --fanout N")

    def digests(self) -> dict[str, str]:
        """``sha256:<hex>`` of each item list and of the hierarchy file this context holds, by name
        (``sensitive``, ``public``, ``hierarchy``): a batch carries them so that a consumer can tell
        that two batches were made with the same lists (equal digests) without seeing them. Each is
        of the JSON array of the sorted labels (of the sorted ``[child, parent]`` pairs), so neither
        the order of a file's lines nor its blank lines change it."""
        found: dict[str, Any] = {}
        if self.schema is not None:
            found["sensitive"] = sorted(self.schema.private)
            if self.schema.public is not None:
                found["public"] = sorted(self.schema.public)
        hierarchy = self.hierarchy if self.hierarchy is not None else self.file_hierarchy
        if hierarchy is not None:
            found["hierarchy"] = sorted(hierarchy.edges())
        return {name: "sha256:" + hashlib.sha256(json.dumps(value, ensure_ascii=False).encode("utf-8")).hexdigest()
                for name, value in found.items()}

    def pinned(self, window: Window, data: str | None = None) -> Context:
        """This context with the hierarchy for ``window`` (read from ``data``) resolved once, for
        every later window."""
        hierarchy = self.hierarchy_for(window)
        hierarchy.leaf_nodes(window, data)
        return replace(self, hierarchy=hierarchy)


@dataclass(frozen=True, init=False)
class Violation:
    """One way a release breaks its model.

    ``summary`` is safe to log (no item labels, no transaction contents); ``itemset``,
    ``target`` (the inferred item of a rule) and ``transaction`` locate the problem for a
    user inspecting their own data.
    """

    rule: str
    summary: str
    itemset: tuple[str, ...]
    transaction: int | None
    target: str | None

    def __init__(
        self,
        rule: str,
        summary: str,
        itemset: tuple[str, ...] | list[str] = (),
        transaction: int | np.integer[Any] | None = None,
        target: str | None = None,
    ) -> None:
        # a list and a numpy position (np.flatnonzero's) are taken, and kept as the verifier and a
        # report read them, and as a type checker then sees them: a tuple (hashable, like the
        # Violation) and an int; anything else is kept for core.verify to name
        if isinstance(itemset, list):
            itemset = tuple(itemset)
        if isinstance(transaction, np.integer):
            transaction = int(transaction)
        for name, value in (("rule", rule), ("summary", summary), ("itemset", itemset), ("transaction", transaction),
                            ("target", target)):
            object.__setattr__(self, name, value)

    def describe(self) -> str:
        """One line for people: the rule and summary, then the itemset, target and transaction
        where set."""
        parts = [f"{self.rule}: {self.summary}"]
        if self.itemset or self.target is not None:
            text = "itemset {" + ", ".join(self.itemset) + "}"
            if self.target is not None:
                text += f" -> {self.target}"
            parts.append(text)
        if self.transaction is not None:
            parts.append(f"transaction {self.transaction}")
        return "; ".join(parts)


@dataclass
class Release:
    """A window's anonymized transactions, aligned 1:1 with the input window.

    ``details`` holds what the algorithm decided (e.g. the suppressed items) and ``stats``
    its counters and timings, which a report over several windows sums (except the model's
    ``peak_stats``); observers get both, ``--report`` the stats, the checker trusts neither.
    """

    window: Window
    details: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)


class Policy(abc.ABC):
    """A heuristic that a model consults; subclasses extend the model's ``policy_base``."""

    name: ClassVar[str]
    model: ClassVar[str]
    summary: ClassVar[str]
    parameters: ClassVar[tuple[Parameter, ...]] = ()

    def __init__(self, params: Mapping[str, Any] | None = None):
        self.params = dict(params or {})


#: the policies a model takes: ``class Coherence(PrivacyModel[CoherencePolicy])`` types the
#: ``policy`` its ``anonymize`` is given as its own policy base
PolicyT = TypeVar("PolicyT", bound=Policy)


class PrivacyModel(abc.ABC, Generic[PolicyT]):
    """A privacy model: anonymizes a window and independently checks a release."""

    name: ClassVar[str]
    summary: ClassVar[str]
    guarantee: ClassVar[str]
    transformation: ClassVar[Transformation]
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    default_policy: ClassVar[str]
    #: not a ClassVar, which cannot hold PolicyT: so a type checker holds it to the policies the
    #: class says it takes (PrivacyModel[TruncatePolicy] with policy_base = OtherBase is an error)
    policy_base: type[PolicyT]
    needs_schema: ClassVar[bool] = False
    needs_hierarchy: ClassVar[bool] = False
    union_safe: ClassVar[bool] = True
    loss_metric: ClassVar[str] = "share of item occurrences suppressed"
    #: names of ``Release.stats`` that describe a window (a size, a setting, a largest value)
    #: rather than count work: a report over several windows gives their largest value, not a sum
    peak_stats: ClassVar[set[str] | frozenset[str]] = frozenset()

    def __init__(self, params: Mapping[str, Any], context: Context):
        self.params = dict(params)
        self.context = context

    @abc.abstractmethod
    def anonymize(self, window: Window, policy: PolicyT, rng: np.random.Generator) -> Release:
        """Return a release of ``window`` that satisfies the model, or raise :class:`Infeasible`."""

    @abc.abstractmethod
    def violations(self, original: Window, release: Window) -> Iterator[Violation]:
        """Yield every way ``release`` fails the model or is not a valid transformation of
        ``original``. Must not rely on anything ``anonymize`` computed."""

    def smallest_window(self) -> int:
        """The fewest transactions a window must hold for a safe release of it to exist (1: any
        window can be made safe). The service holds a smaller window until more input arrives
        instead of dead-lettering it (``window.min_transactions`` = auto), and refuses to start with
        a smaller ``window.min_transactions``."""
        return 1

    def information_loss(self, original: Window, release: Window) -> float:
        """The model's loss measure; by default the share of item occurrences removed (S/N)."""
        return suppressed_share(original, release)

    def input_notes(self, original: Window, source: str) -> list[str]:
        """What the command line should tell the user about the input ``source`` before
        anonymizing it: parameters that select nothing in it (a misspelt label protects nothing,
        and the release still passes its check). One line each, counts and line numbers, no labels.
        Raise :class:`~setveil.core.errors.InputError` instead when the input leaves the parameters
        nothing to protect at all: the release would be the input."""
        return []

    def metrics(self, original: Window, release: Window) -> dict[str, Any]:
        """Extra utility measures for offline reports (e.g. NCP, KL divergence, rule loss).

        Only ``setveil anonymize --report`` and the benchmarks call it, once over the whole
        input; the streaming service never does, so it may be as expensive as mining rules."""
        return {}
