"""Sanitization that hides restrictive frequent patterns (Oliveira & Zaïane, "A Framework for
Enforcing Privacy in Mining Frequent Patterns", TR 02-13, 2002) as the privacy model ``sanitize``.

The four steps of §4 on one window: find every restrictive pattern's sensitive transactions with
the retrieval engine (:mod:`.index`), let the policy pick victims (:mod:`.policies`), and remove
them from ⌈|T[rp]|·(1-ψ)⌉ of each pattern's sensitive transactions (:mod:`.sanitizer`). Items are
only removed, and no transaction is emptied.

On a stream, T[rp], ψ, the item supports and the degrees of conflict are those of the window: each
window is sanitized on its own. The union of windows then satisfies the bound too: if window w
leaves h_w ≤ ψ·|T_w[rp]| of its sensitive transactions holding rp, the union leaves
Σ h_w ≤ ψ·Σ |T_w[rp]| = ψ·|T[rp]|. A small window rounds ⌊ψ·|T_w[rp]|⌋ down, so it is, if
anything, sanitized more than the whole database would be.
"""

from __future__ import annotations

import time

import numpy as np

from setveil.core.errors import InputError, ParameterError, SpeltOtherwise, also_lines, first_lines
from setveil.core.mining import MiningTooLarge
from setveil.core.model import Context, PrivacyModel, Release, Transformation
from setveil.core.params import Parameter
from setveil.core.schema import misspelt_reason
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

from .checker import sanitize_violations
from .index import sensitive_index
from .metrics import PatternMetrics
from .patterns import PatternTable, RestrictivePatterns
from .policies import ItemOrder, SanitizePolicy
from .sanitizer import sanitize


class Sanitize(PrivacyModel[SanitizePolicy]):
    name = "sanitize"
    summary = "hide restrictive frequent patterns by removing items from sensitive transactions (Oliveira & Zaïane, TR 02-13)"
    guarantee = (
        "for every restrictive pattern, at most a share psi of the transactions that held it still hold it, "
        "so its support drops to at most psi times its original support, and that of every pattern containing it "
        "to at most the same count (psi times the listed pattern's support, not its own); items are only removed "
        "and no transaction is emptied"
    )
    transformation = Transformation.PARTIAL_SUPPRESSION
    parameters = (
        Parameter("restrictive", "file of restrictive patterns, one per line, items separated by spaces", "path"),
        Parameter(
            "psi",
            "privacy threshold: share of a pattern's sensitive transactions that may still hold it",
            "float",
            default=0.0,
            low=0,
            high=1,
        ),
        Parameter(
            "sigma",
            "mining support (share of transactions) for the report's hiding failure, misses cost and "
            "artifactual patterns, or off",
            "float",
            default=0.1,
            low=0,
            high=1,
            low_inclusive=False,
            choices=("off",),
            checked=False,
        ),
    )
    default_policy = "iga"
    policy_base = SanitizePolicy
    loss_metric = "share of item occurrences removed"
    peak_stats = frozenset({"restrictive_patterns"})

    def __init__(self, params, context: Context):
        super().__init__(params, context)
        try:
            self.patterns = RestrictivePatterns.load(self.params["restrictive"])
        except InputError as exc:
            raise ParameterError("restrictive", str(exc)) from None
        self._vocabulary: tuple[tuple[str, ...], PatternTable, np.ndarray, list[int]] | None = None

    def anonymize(self, window: Window, policy: SanitizePolicy, rng: np.random.Generator) -> Release:
        started = time.perf_counter()
        table, label_rank, misspelt_lines = self._by_vocabulary(window.vocab)
        # the command line refuses such patterns for its whole input; a worker sees its input a
        # window at a time, and a window lacking the listed spelling may hold another
        if misspelt_lines:
            raise SpeltOtherwise(misspelt_reason("the file of parameter 'restrictive'", misspelt_lines,
                                                 "so the patterns there would hide nothing",
                                                 "write it as the input spells it, a pattern for each "
                                                 "spelling the input uses"))
        # a pattern with an item the window lacks is held by none of its transactions
        occurs = np.where(table.items >= 0, window.supports[np.maximum(table.items, 0)] > 0, True).all(axis=1)
        table = table.take(np.flatnonzero(occurs))
        index = sensitive_index(window, table)
        # A pattern no transaction of this window holds has nothing to hide here; left in, it
        # would still shape IGA's groups, and through a vocabulary shared by several windows
        # (`anonymize --window`) one window's release would depend on another's items.
        held, index = index.held()
        table = table.take(held)
        indexed = time.perf_counter()
        items = ItemOrder(window.supports, label_rank)
        victims = policy.victims(table, items)
        order = policy.transaction_order(index.conflict, window.lengths)
        result = sanitize(window, table, index, victims, order, items, self.params["psi"])
        release = window.keep_occurrences(result.keep)
        finished = time.perf_counter()
        labels = window.vocab.labels
        bounds = victims.indptr.tolist()
        named = [labels[i] for i in np.asarray(victims.items, dtype=np.int64).tolist()]
        details = {
            "victims": {
                str(self.patterns.lines[number]): named[bounds[row] : bounds[row + 1]]
                for row, number in enumerate(table.number.tolist())
            },
        }
        stats = {
            "index_seconds": indexed - started,
            "sanitize_seconds": finished - indexed,
            "restrictive_patterns": len(table),
            "sensitive_transactions": int((index.conflict > 0).sum()),
            "sanitized_transactions": int(np.unique(window.owners()[~result.keep]).size),
            "sanitizations": int(result.sanitized.sum()),
            "already_sanitized": int(result.already.sum()),
            "kept_to_avoid_empty": result.spared,
            "removed_items": result.removed,
        }
        return Release(release, details, stats)

    def _by_vocabulary(self, vocab: Vocabulary) -> tuple[PatternTable, np.ndarray, list[int]]:
        """The patterns as item ids, the rank of every label's text and the lines of patterns
        spelt otherwise than the labels (:meth:`RestrictivePatterns.misspelt_lines`), which
        depend on the labels alone: the windows of a file share its vocabulary, and building the
        first two again for each window cost more than sanitizing it (QA, retail in windows of
        1000 with 1,000 patterns). A labels tuple is immutable, so the very same one has the same ids."""
        labels = vocab.labels
        known = self._vocabulary
        if known is None or known[0] is not labels:
            rank = ItemOrder.label_ranks(labels)
            rank.flags.writeable = False  # handed to the policy of every window that follows
            known = (labels, self.patterns.table(vocab), rank, self.patterns.misspelt_lines(vocab))
            self._vocabulary = known
        return known[1], known[2], known[3]

    def input_notes(self, original, source):
        known = set(self.patterns.table(original.vocab).number.tolist())
        lines = [line for number, line in enumerate(self.patterns.lines) if number not in known]
        # a pattern spelt otherwise than the input (hiv for HIV, é as e and a combining accent)
        # hides nothing and was only noted (QA, adversarial pass); one the input also spells
        # otherwise (a byte-order mark before some records' HIV) was not even noted (review).
        # Said before the refusal of a file none of whose patterns occurs, which names no line and
        # no cause a reader can see: a file typed in NFD or with a pasted zero-width space (walkthrough)
        if misspelt_patterns := self.patterns.misspelt_lines(original.vocab):
            first = misspelt_patterns[0]
            if first in lines:
                problem = (f"the pattern holds an item that never occurs in {source}, which holds it in another case, "
                           f"Unicode form or with an invisible character: write it exactly as the input spells it")
            else:
                problem = (f"the pattern holds an item that {source} also spells in another Unicode form or with an "
                           "invisible character, and no pattern gives that spelling: write a pattern for each "
                           "spelling the input uses")
            raise InputError(self.patterns.path, problem + also_lines(misspelt_patterns), first)
        if len(lines) == len(self.patterns):
            count = len(lines)
            every = f"each of its {count} restrictive patterns" if count > 1 else "its one restrictive pattern"
            raise InputError(self.patterns.path, f"{every} holds an item that never occurs in {source}, so nothing "
                                                 "would be hidden: labels must match the input's exactly, case "
                                                 "included")
        if not lines:
            return []
        shown = first_lines(lines)
        return [f"{len(lines)} of the {len(self.patterns)} restrictive patterns in {self.patterns.path} (line "
                f"{shown}) hold an item that never occurs in {source}: they hide nothing"]

    def violations(self, original, release):
        return sanitize_violations(original, release, self.patterns, self.params["psi"])

    def metrics(self, original, release):
        sigma = self.params["sigma"]
        try:
            return PatternMetrics(original, None if sigma == "off" else sigma).evaluate(release, self.patterns)
        except MiningTooLarge as exc:
            out = PatternMetrics(original, None).evaluate(release, self.patterns)
            out["skipped"] = {"patterns": f"{exc}: raise sigma or set it off"}
            return out
