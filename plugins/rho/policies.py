"""Suppression policies of the ``rho`` model: which item of an unsafe rule to delete, and where.

SANITIZEBUFFER (Jia et al. Algorithm 2, lines 5-8) asks the policy for the victim (d, e) of
an unsafe qid q: e is a consequent with conf(q -> e) > ρ and d ∈ q ∪ {e}; the model then
deletes N_s(d, q -> e) instances of d (Definition 1) from records of C(q ∪ {e}) chosen by
:meth:`RhoPolicy.pick_records`, or, for a policy with ``global_suppression``, every instance
of d in the table.

- ``dist`` maximizes H_dist (eq. 6) = T(d) log(T(d)/T0(d)) / N_s: keep the item distribution
  close to the original (§3.2.1). T(t) is the share of t among all item occurrences of T
  (the distribution the K-L divergence of §4.1 compares); footnote 2 divides by |T| instead,
  which never exceeds T0(t) after deletions and would make every H_dist <= 0.
- ``mine`` minimizes H_mine (eq. 7) = leftover(d) · N_s: keep deleting item types that were
  deleted before, to keep minable rules (§3.2.2).
- ``global`` is the baseline of Cao et al. (VLDB'10) as the paper runs it: remove every
  occurrence of an item type at a time. The model then offers every item type of the current
  level's unsafe rules (``deletions`` = its support) and the policy takes the one that settles
  the most unsafe qids and rules per occurrence removed (``State.unsafe_rules`` / support).
  Cao et al.'s own payoff is not in our copy of the papers; this is our reconstruction,
  documented in docs/rho.md.

Ties are broken, in order, by fewer deletions, by preferring the consequent (deleting e
disables q -> e in every record, deleting an item of q only this qid), and by a seeded
random rank of the items, so a run is a function of its seed. A third party adds a policy by
subclassing :class:`RhoPolicy` and implementing :meth:`score` (and, if it wishes,
:meth:`pick_records`).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from setveil.core.errors import counted
from setveil.core.model import Policy


@dataclass
class Options:
    """The candidate victims of one unsafe qid q, whose items ``qid`` holds (empty where global
    suppression offers whole item types): option i deletes ``deletions[i]`` instances of
    ``victim[i]`` to disable the rule q -> ``consequent[i]``; ``in_qid[i]`` says whether the
    victim is an item of q (else it is the consequent). Items are the table's local ids."""

    qid: np.ndarray
    victim: np.ndarray
    consequent: np.ndarray
    deletions: np.ndarray
    in_qid: np.ndarray


@dataclass
class State:
    """What a policy may read about the table: current and original item supports and
    occurrence totals, what removing each item type would settle in the current level (read by
    global policies), the current record lengths and the seeded tie-break ranks of items and
    records."""

    support: np.ndarray
    support0: np.ndarray
    total: int
    total0: int
    unsafe_rules: np.ndarray
    record_length: np.ndarray
    item_rank: np.ndarray
    record_rank: np.ndarray

    def share(self, items: np.ndarray) -> np.ndarray:
        """T(t): the share of t among the current item occurrences."""
        return self.support[items] / max(self.total, 1)

    def share0(self, items: np.ndarray) -> np.ndarray:
        """T0(t): the share of t among the original item occurrences."""
        return self.support0[items] / max(self.total0, 1)

    def leftover(self, items: np.ndarray) -> np.ndarray:
        """leftover(t) of Definition 2: sup_T'(t) / sup_T(t)."""
        return self.support[items] / np.maximum(self.support0[items], 1)


class PolicyError(RuntimeError):
    """A policy broke the contract of :class:`RhoPolicy`; the window fails closed."""


class RhoPolicy(Policy):
    """Base class of ``rho`` policies: the model calls :meth:`choose` and :meth:`pick_records`."""

    model = "rho"
    #: delete every occurrence of the victim (global suppression) instead of N_s of them
    global_suppression: ClassVar[bool] = False

    @abc.abstractmethod
    def score(self, options: Options, state: State) -> np.ndarray:
        """The heuristic value of each option, one number per option (``len(options.victim)``
        of them, in their order); the highest is chosen. Any other count, or a NaN, fails the window
        closed."""

    def choose(self, options: Options, state: State) -> int:
        """Index of the option to apply: best score, then the tie-breaks of the module doc.
        An index outside the options fails the window closed."""
        score = np.asarray(self.score(options, state), dtype=np.float64)
        if score.shape != options.victim.shape:  # lexsort's "all keys need to be the same shape" named no one
            raise PolicyError(f"the policy scored {score.size} options of {len(options.victim)}")
        unscored = int(np.count_nonzero(np.isnan(score)))
        if unscored:  # lexsort ranks a NaN last, so a policy's bug passed as a choice of its other options
            raise PolicyError(f"the policy {self.name!r} gave {unscored} of {counted(score.size, 'option')} "
                              "a NaN score")
        keys = (state.item_rank[options.victim], options.in_qid, options.deletions, -score)
        if len(score) > 32:
            # the tie-breaks only among the best: global offers thousands of types a step, where
            # sorting them all took 10 of its 79 s on retail (a qid's few options sort at once)
            best = np.flatnonzero(score == score.max())
            return int(best[np.lexsort(tuple(key[best] for key in keys))[0]])
        return int(np.lexsort(keys)[0])

    def pick_records(self, records: np.ndarray, count: int, state: State) -> np.ndarray:
        """Which ``count`` of ``records`` (those of C(q ∪ {e})) lose the victim. The answer
        must be at least one distinct record of ``records`` (fewer than ``count`` only delays
        the rule's safety to the next step); anything else fails the window closed. It may be
        given a single record, the only answer then; a qid the buffer found in one record alone
        is sanitized without asking, since every option deletes from that record.

        The paper picks at random "for simplicity" (§3.2.3); we take the longest records
        first, ties at random (seeded): a long record holds the most qids, so deleting there
        disables the most rules at once (in Table 1 it removes the condom that also makes
        {bread, beer} -> condom safe).
        """
        order = np.lexsort((state.record_rank[records], -state.record_length[records]))
        return records[order[:count]]


_TINY = np.finfo(np.float64).tiny


class Dist(RhoPolicy):
    name = "dist"
    summary = "partial suppression maximizing H_dist (eq. 6): keep the item distribution close to the original"

    def score(self, options, state):
        share, share0 = state.share(options.victim), state.share0(options.victim)
        # every victim occurs in T0, so share0 > 0; flooring share keeps 0·log 0 at 0 without
        # a warning context on this per-deletion path
        return share * np.log(np.maximum(share, _TINY) / share0) / options.deletions


class Mine(RhoPolicy):
    name = "mine"
    summary = "partial suppression minimizing H_mine (eq. 7): keep deleting the same item types, to keep minable rules"

    def score(self, options, state):
        return -(state.leftover(options.victim) * options.deletions)


class Global(RhoPolicy):
    name = "global"
    summary = "global suppression (Cao et al., VLDB'10): remove every occurrence of one item type at a time"
    global_suppression = True

    def score(self, options, state):
        return state.unsafe_rules[options.victim] / np.maximum(state.support[options.victim], 1)
