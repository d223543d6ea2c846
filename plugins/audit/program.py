"""The attack of Mielikäinen (2004): find the item naming g : f(I) → I under which the itemsets
mined from the renamed data match the published ones (Problem 2), as the integer program of §2,
its mixed-integer and linear relaxations (§3), solved by HiGHS through ``scipy.optimize.milp``.

Variables, all in [0, 1]:

- ``u[A, B]``: original item A is named by renamed item B (the item matching);
- ``x[X, Y]``: published itemset X is matched with mined itemset Y, for |X| = |Y| and
  frequencies within the tolerance;
- ``s[Z]`` (only with an unmatched cost): itemset Z is matched with none, the paper's way of
  allowing omitted and falsely claimed itemsets.

Constraints: every published and every mined itemset is matched exactly once (``x`` plus its
``s``); every item names at most one item either way; and a matched pair brings its items along:
for every published X and renamed item B, Σ_{Y∋B} x[X, Y] ≤ Σ_{A∈X} u[A, B] (X is matched with an
itemset holding B only if one of X's items is named B), and the same for every mined Y and
original item A. The objective is Σ c_XY x[X, Y] + Σ c_Z s[Z], with
c_XY = ((fr(X) − fr(Y)) / tolerance)^2, the maximum-likelihood cost under Gaussian noise (§2), and
c_Z the unmatched cost.

Choices where the paper is brief:

- The paper's singleton variables are its item matching. We keep ``u`` apart from the singleton
  pairs (x[{A}, {B}] ≤ u[A, B] by the same linking constraint) so an item whose singleton was
  omitted can still be named through the larger itemsets that hold it. With every singleton
  published and no unmatched cost the two are the same: u[A, B] = x[{A}, {B}].
- **The linking rows are ours ("cover").** The paper's third constraint is one row per pair,
  Σ_{A∈X, B∈Y} u[A, B] ≥ |X| x[X, Y]. Both have the same integral solutions, but the paper's
  row lets a relaxation match X half with each of two itemsets that hold one of its items each:
  on Theorem 1's database of an asymmetric graph, with exact frequencies, the paper's ``mip``
  returned a naming that maps no vertex right (a test keeps this). With the cover rows an
  integral item matching g allows x[X, Y] > 0 only for Y ⊆ g(X), that is Y = g(X), so every
  ``mip`` naming solves Problem 2. The rows are one per (itemset, item) that occurs rather than
  one per pair: 19,566 against 63,120 on mushroom at σ = 0.3 with noisy frequencies (a row per
  pair and item of the pair would be 360,686, and its LP took 112 s). ``linking="aggregate"``
  keeps the paper's rows for comparison.
- **No equation follows from the others** (ours, :func:`_independent_matches`): when every
  itemset must be matched, the "matched exactly once" row of one mined itemset is left out of
  each connected group of candidate pairs with as many published itemsets as mined ones, as
  the group's other rows imply it. HiGHS's presolve
  would look for it under a clock of its own and remove it or not depending on how fast that
  search ran, and the two programs can return different namings of equal cost.
- **Determined names** (ours, :func:`determine_names`): one more solve per named item, with
  the pair forbidden and the cost held to the optimum; it proves the name forced, finds an
  equally good naming, or stops at the time limit, and the three are reported apart. A proof
  (the solve infeasible) counts only when a solve without presolve agrees (:data:`INFEASIBLE_ANSWERS`).
- Pairs are candidates only within the tolerance (ours): §2's noisy program pairs every
  published and mined itemset of a size, so ours is the most likely naming among those that
  match every itemset within the tolerance; the cost's division by the tolerance only sets the
  scale of the unmatched cost.
- ``ip`` makes every variable integral, ``mip`` only ``u`` (the paper: "only the variables
  corresponding to the singleton itemsets"), ``lp`` none; the LP's ``u`` is the paper's vote
  over the namings, a vote within :data:`VOTE_TOLERANCE` of 0 or 1 taken as exact.
- §3's pruning ("some items cannot be matched with some numbers ... setting some variables to be
  zero in advance") is done to a fixpoint before the program is built, when every itemset must be
  matched: an item pair survives only if the singletons' frequencies agree and, for every
  published itemset X holding A, some candidate partner of X holds B (and the same the other way);
  an itemset pair survives only if each of its items has a surviving partner in the other.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np

from setveil.core.arrays import concat_ranges, in_sorted
from setveil.core.deferred import DeferredModule
from setveil.core.errors import Infeasible, ParameterError, SetveilError, counted

from .deadline import KILLED, call_within
from .itemsets import ItemsetCollection

if TYPE_CHECKING:
    from scipy import sparse
else:
    sparse = DeferredModule("scipy.sparse")

METHODS = ("ip", "mip", "lp")
LINKINGS = ("cover", "aggregate")

#: frequencies closer than this are equal: a published frequency read from text differs from
#: the miner's count / n by rounding only
EXACT = 1e-9

#: most itemset pairs a program may hold before the attack refuses to build it
MAX_PAIRS = 2_000_000

#: largest tolerance: a difference of 1 spans every exact frequency (noisy ones may lie outside
#: [0, 1], so it need not span theirs), and a wider one mostly flattens the costs until every
#: matching looks alike
MAX_TOLERANCE = 1.0

#: largest unmatched cost. A matched pair costs at most 1 (pairs farther apart than the
#: tolerance are no candidates), so a cost past the number of itemsets already prefers any
#: complete matching; HiGHS reads a coefficient of 1e20 or more as infinite
MAX_UNMATCHED_COST = 1e6

#: itemsets of at most this many items are checked against every published subset for
#: frequencies no database allows (:func:`impossible_itemsets`): 2^5 - 2 subsets each at most
EVERY_SUBSET = 5

#: longest time limit, in seconds, of one solve: a day
MAX_TIME_LIMIT = 86_400.0

#: scipy's answers (its status, and how its message starts) by which HiGHS says a program has no
#: solution: HiGHS's "infeasible", and its "unbounded or infeasible", which scipy gives status 4,
#: "other". Every variable here lies in [0, 1], so no program is unbounded and the second says
#: infeasible as far as HiGHS could tell (its presolve answers so on finding a column it could push
#: without bound, which these bounds rule out). scipy gives status 2 to HiGHS's refusal of a model
#: too, with no text of its own before "(HiGHS Status 2": that proves nothing. HiGHS's presolve has
#: called feasible programs infeasible (ERGO-Code/HiGHS#2432, #2446, #3090; QA: a --determined test
#: solve here, which called a name determined that an equally good naming gave otherwise) and ended
#: in "Solve error" on a feasible one, so the attack takes either only when a solve without presolve
#: agrees (:func:`_confirmed`)
INFEASIBLE_ANSWERS = ((2, "The problem is infeasible."), (4, "The problem is unbounded or infeasible."))

T = TypeVar("T")

#: an LP vote this close to 0 or 1 is the solver's round-off (HiGHS's feasibility tolerance is
#: 1e-7), written as 0 (dropped) or 1
VOTE_TOLERANCE = 1e-6


class SolverStopped(SetveilError):
    """The solver reached its time limit before it found any naming."""

    exit_code = 1


class SolverFailed(SetveilError):
    """HiGHS ended in an error without presolve, after an error or an infeasible verdict with it:
    nothing is known of the program."""

    exit_code = 1


class ProgramTooLarge(SetveilError):
    """The program would hold more itemset pairs than the budget; names the counts."""

    exit_code = 2


@dataclass(frozen=True)
class Naming:
    """The attack's result: ``weights[A, B]`` is the weight the solution puts on original item
    ``published_labels[A]`` being renamed item ``renamed_labels[B]`` (0 or 1 for ``ip`` and
    ``mip``, a vote for ``lp``). ``candidates`` marks the item pairs whose singleton frequencies
    agree, before pruning: the pairs the uniform baseline votes over.

    When asked to test the names (and the naming is proven optimal), each named original item
    is in one of three tuples: ``determined``, every naming as good as this one names it the
    same way; ``named_otherwise``, a naming as good was found that names it otherwise;
    ``unsettled``, the solve stopped at the time limit before it could tell. All three are
    None when the names were not tested."""

    method: str
    published_labels: tuple[str, ...]
    renamed_labels: tuple[str, ...]
    weights: sparse.csr_array
    candidates: sparse.csr_array
    optimal: bool
    status: str
    objective: float
    variables: int
    constraints: int
    pairs_before_pruning: int
    seconds: float
    determined: tuple[str, ...] | None = None
    named_otherwise: tuple[str, ...] | None = None
    unsettled: tuple[str, ...] | None = None
    #: the program solved, kept so that :func:`determine_names` can solve it again
    program: _Program | None = field(default=None, repr=False, compare=False)

    def pairs(self) -> list[tuple[str, str, float]]:
        """(original, renamed, weight) for every pair of positive weight, heaviest first per item."""
        coo = self.weights.tocoo()
        order = np.lexsort((-coo.data, coo.row))
        return [(self.published_labels[coo.row[i]], self.renamed_labels[coo.col[i]], float(coo.data[i]))
                for i in order if coo.data[i] > 0]

    def accuracy(self, truth: dict[str, str]) -> float:
        """The weight on the true naming divided by the number of published items (§4)."""
        return _weight_on_truth(self.weights, self.published_labels, self.renamed_labels, truth)

    def uniform_accuracy(self, truth: dict[str, str]) -> float:
        """The same for a uniform vote over each item's candidates (§4's baseline)."""
        return _weight_on_truth(_uniform_votes(self.candidates), self.published_labels, self.renamed_labels, truth)

    def rounded(self, rng: np.random.Generator) -> dict[str, str]:
        """A naming drawn from the weights by §3's procedure, over items: take the renamed
        items in random order; name each by an original item still free, drawn with probability
        proportional to its weight (none when every free one weighs 0)."""
        dense = self.weights.toarray()
        free = np.ones(dense.shape[0], dtype=bool)
        naming: dict[str, str] = {}
        for b in rng.permutation(dense.shape[1]):
            weight = np.where(free, dense[:, b], 0.0)
            total = weight.sum()
            if total <= 0:
                continue
            a = int(rng.choice(len(weight), p=weight / total))
            free[a] = False
            naming[self.published_labels[a]] = self.renamed_labels[b]
        return naming


def uniform_accuracy(published: ItemsetCollection, mined: ItemsetCollection, tolerance: float,
                     truth: dict[str, str]) -> float:
    """§4's baseline without solving anything: the accuracy of a uniform vote over each item's
    candidates, the renamed items whose singleton frequency is within ``tolerance`` (all of them
    when either singleton is not listed). The same as :meth:`Naming.uniform_accuracy`."""
    candidates = _singleton_candidates(published, mined, tolerance + EXACT)
    return _weight_on_truth(_uniform_votes(candidates), published.labels, mined.labels, truth)


def unique_singletons(published: ItemsetCollection, tolerance: float) -> int:
    """How many published items have a singleton frequency that no other published singleton's
    is within ``tolerance`` of. When the renamed data holds them at those frequencies, these are
    the items a uniform vote over singleton frequencies (§4's baseline) names alone, with no
    program: the release names them by their frequency."""
    positions, _ = published.level(1)
    if not len(positions):
        return 0  # the concatenations below would count a lone item in an empty list
    frequencies = np.sort(published.frequencies[positions])
    apart = np.diff(frequencies) > tolerance + EXACT
    # an item is alone when it is apart from its neighbours on both sides of the sorted order
    alone = np.concatenate([[True], apart]) & np.concatenate([apart, [True]])
    return int(alone.sum())


def impossible_itemsets(published: ItemsetCollection, tolerance: float) -> np.ndarray:
    """Which published itemsets (a boolean per itemset) are more frequent than a published
    subset by more than twice ``tolerance``: no database holds them at frequencies each within
    the tolerance of the published one, since support is anti-monotone. If the subset J is a
    false itemset, so is I (no superset of an infrequent itemset is frequent); if J is true,
    I's frequency is false. So with exact frequencies I is false, and with noise I is false or
    one of the two is noisier than the tolerance; either way no naming matches both I and J to
    mined itemsets within the tolerance.

    An itemset of at most :data:`EVERY_SUBSET` items is compared with every published subset
    (a false one's pairs are often not published, its items are); a larger one with the
    subsets reached through published itemsets one item smaller at each step, each of them
    compared likewise: every published subset when the release is closed under subsets. Going
    through every subset of a large itemset would take 2^|I| look-ups."""
    indptr, items = published.indptr.tolist(), published.items.tolist()
    # lowest[S], S published: the lowest frequency of S and of the published subsets it is compared with
    lowest: dict[tuple[int, ...], float] = {}
    flagged = np.zeros(len(published), dtype=bool)
    bound = 2 * (tolerance + EXACT)
    # the collection is ordered by size, so every subset's entry is made before it is looked up
    for j, frequency in enumerate(published.frequencies.tolist()):
        itemset = tuple(items[indptr[j]:indptr[j + 1]])  # ascending, as combinations keeps it
        if len(itemset) <= EVERY_SUBSET:
            subsets: Iterable[tuple[int, ...]] = itertools.chain.from_iterable(
                itertools.combinations(itemset, size) for size in range(1, len(itemset)))
        else:
            subsets = (itemset[:k] + itemset[k + 1:] for k in range(len(itemset)))
        floor = min((lowest.get(subset, math.inf) for subset in subsets), default=math.inf)
        flagged[j] = frequency > floor + bound
        lowest[itemset] = min(floor, frequency)
    return flagged


def _uniform_votes(candidates: sparse.csr_array) -> sparse.csr_array:
    counts = np.asarray(candidates.sum(axis=1)).ravel()
    share = np.divide(1.0, counts, out=np.zeros(len(counts)), where=counts > 0)
    return sparse.csr_array(sparse.diags(share) @ candidates.astype(np.float64))


def _weight_on_truth(weights, published_labels, renamed_labels, truth) -> float:
    if not published_labels:
        return 0.0
    column = {label: j for j, label in enumerate(renamed_labels)}
    rows, cols = [], []
    for a, label in enumerate(published_labels):
        b = column.get(truth.get(label, ""))
        if b is not None:
            rows.append(a)
            cols.append(b)
    if not rows:
        return 0.0
    return float(np.asarray(weights[np.array(rows), np.array(cols)]).sum()) / len(published_labels)


def check_settings(method: str, tolerance: float, unmatched_cost: float | None, time_limit: float | None,
                   linking: str = "cover") -> None:
    """Validate the attack's parameters before anything is read."""
    if method not in METHODS:
        raise ParameterError("method", f"{method!r} is not one of {', '.join(METHODS)}")
    if linking not in LINKINGS:
        raise ParameterError("linking", f"{linking!r} is not one of {', '.join(LINKINGS)}")
    if not 0 <= tolerance <= MAX_TOLERANCE:
        raise ParameterError("tolerance", f"{tolerance} is not a frequency difference in [0, {MAX_TOLERANCE:g}]")
    if unmatched_cost is not None and not 0 < unmatched_cost <= MAX_UNMATCHED_COST:
        raise ParameterError("unmatched-cost", f"{unmatched_cost} is not a cost in (0, {MAX_UNMATCHED_COST:g}]")
    if time_limit is not None and not 0 < time_limit <= MAX_TIME_LIMIT:
        raise ParameterError("time-limit", f"{time_limit} is not a number of seconds in (0, {MAX_TIME_LIMIT:g}]")


def deanonymize(
    published: ItemsetCollection,
    mined: ItemsetCollection,
    *,
    method: str = "ip",
    tolerance: float = 0.0,
    unmatched_cost: float | None = None,
    time_limit: float | None = None,
    linking: str = "cover",
    determine: bool = False,
    max_pairs: int = MAX_PAIRS,
) -> Naming:
    """Solve Problem 2 for ``published`` (original names) against ``mined`` (renamed data).

    ``tolerance`` is the largest frequency difference a matched pair may have (0: equal);
    ``unmatched_cost`` allows itemsets to stay unmatched at that cost each (None: every itemset
    must be matched). ``time_limit`` bounds each solve. With ``determine`` (``ip`` and ``mip``),
    each item's name is tested by :func:`determine_names`. Raises :class:`Infeasible` when
    no naming matches the collections and :class:`ProgramTooLarge` past ``max_pairs`` candidate
    pairs.
    """
    check_settings(method, tolerance, unmatched_cost, time_limit, linking)
    # imported here, not at the top (it costs every command 0.2-0.6 s at start-up), and before the
    # clock starts, so that a one-off import is not counted in the first solve's seconds
    from scipy.optimize import Bounds, milp

    started = time.perf_counter()
    if len(published) == 0 and len(mined) == 0:
        empty = sparse.csr_array((len(published.labels), len(mined.labels)))
        return Naming(method, published.labels, mined.labels, empty, empty, True, "nothing to match", 0.0, 0, 0, 0,
                      time.perf_counter() - started)
    slack = unmatched_cost is not None
    width = tolerance + EXACT
    n_a, n_b = len(published.labels), len(mined.labels)
    candidates = _singleton_candidates(published, mined, width)
    allowed = _pair_keys(candidates)
    levels = _frequency_pairs(published, mined, tolerance, max_pairs)
    before = sum(len(pairs) for _, pairs in levels)
    while True:
        levels = [(size, pairs[_structural(published, mined, size, pairs, allowed, n_b)]) for size, pairs in levels]
        if slack:
            break
        _require_every_itemset_matched(published, mined, levels, tolerance)
        refined = allowed[_supported(published, mined, levels, allowed, n_a, n_b)]
        if len(refined) == len(allowed):
            break
        allowed = refined
    pairs = np.concatenate([pairs for _, pairs in levels]) if levels else np.zeros((0, 2), np.int64)
    program = _build(published, mined, pairs, allowed, (n_a, n_b), tolerance, unmatched_cost, method, linking)

    answers = []

    def solve(presolve: bool):
        answers.append(milp(program.cost, integrality=program.integrality, bounds=Bounds(0, 1),
                            constraints=program.constraints, options=_options(time_limit, presolve)))
        return answers[-1]

    result, verdict = _confirmed(solve, lambda result: _verdict(result.status, result.message, result.x is not None))
    if verdict != "naming":
        if verdict == "infeasible":
            raise Infeasible("no naming of the items matches the published itemsets with the mined ones "
                             f"{_unmatched_advice(tolerance)}")
        if verdict == "stopped":
            # say what to change (QA as an auditor: the message named the size alone); scipy's
            # status 1 is an iteration limit as well, which no option here sets
            limit = "" if time_limit is None else f" of {time_limit:g} s"
            raise SolverStopped(f"the solver reached the time limit{limit} before it found a naming "
                                f"({len(program.cost):,} variables, {program.rows:,} constraints): raise "
                                "--time-limit, or shrink the program (a higher sigma, a smaller --max-size or a "
                                "narrower tolerance)")
        raise SolverFailed(_failure(answers[0], result))
    u = _votes(result.x[: len(program.item_a)], method)
    weights = sparse.csr_array((u, (program.item_a, program.item_b)), shape=(n_a, n_b))
    weights.eliminate_zeros()
    naming = Naming(
        method=method,
        published_labels=published.labels,
        renamed_labels=mined.labels,
        weights=weights,
        candidates=candidates,
        optimal=result.status == 0,
        status=result.message,
        objective=float(result.fun),
        variables=len(program.cost),
        constraints=program.rows,
        pairs_before_pruning=before,
        seconds=time.perf_counter() - started,
        program=program,
    )
    if not determine:
        return naming
    tested = determine_names(naming, time_limit)
    return replace(tested, seconds=time.perf_counter() - started)


def _verdict(status: int, message: str, found: bool) -> str:
    """What scipy's answer to a solve says: ``"naming"``, a solution came with it (optimal or
    not); ``"infeasible"``, one of :data:`INFEASIBLE_ANSWERS`; ``"stopped"``, status 1, the time
    limit (or an iteration limit, which no option here sets) before any naming; ``"failed"``,
    anything else: an error of HiGHS's."""
    if found:
        return "naming"
    if any(status == code and message.startswith(text) for code, text in INFEASIBLE_ANSWERS):
        return "infeasible"
    return "stopped" if status == 1 else "failed"


def _failure(presolved, result) -> str:
    """:class:`SolverFailed`'s reason: HiGHS's error without presolve, and the answer with it
    where that was no error (an infeasible verdict, which the failed solve was to confirm)."""
    if _verdict(presolved.status, presolved.message, presolved.x is not None) == "failed":
        return f"the solver failed, with presolve and without: {result.message}"
    return f"the solver failed without presolve: {result.message}; with presolve it had answered: {presolved.message}"


def _confirmed(solve: Callable[[bool], T], verdict: Callable[[T], str]) -> tuple[T, str]:
    """``solve(presolve)``'s answer with presolve on and its ``verdict`` (:func:`_verdict`), or,
    when that is infeasible or failed, the answer and verdict of the same solve without presolve
    (:data:`INFEASIBLE_ANSWERS`)."""
    answer = solve(True)
    if verdict(answer) in ("infeasible", "failed"):
        answer = solve(False)
    return answer, verdict(answer)


def _options(time_limit: float | None, presolve: bool) -> dict:
    options = {"disp": False, "presolve": presolve}
    return options if time_limit is None else {**options, "time_limit": time_limit}


def _votes(x: np.ndarray, method: str) -> np.ndarray:
    """The item matching from the solver's values: 0 or 1 for ``ip`` and ``mip``; for ``lp``
    the votes, with those within :data:`VOTE_TOLERANCE` of 0 or 1 made exact."""
    u = np.clip(x, 0.0, 1.0)
    if method != "lp":
        return np.round(u)
    u[u < VOTE_TOLERANCE] = 0.0
    u[u > 1.0 - VOTE_TOLERANCE] = 1.0
    return u


def determine_names(naming: Naming, time_limit: float | None = None) -> Naming:
    """``naming`` with each of its names tested (``ip`` and ``mip``, a naming proven optimal):
    one solve per named item, with that pair forbidden and the cost held to the optimum (up to
    the solver's tolerance), each with ``time_limit``, enforced by :func:`.deadline.call_within`
    (a solve still running a grace past it is killed). The solve proves the pair forced
    (``determined``), finds another naming as good (``named_otherwise``), or stops, or is
    stopped, at the limit before either (``unsettled``). Any other naming is returned as it is."""
    if naming.method == "lp" or not naming.optimal or naming.program is None:
        return naming
    from scipy.optimize import Bounds, LinearConstraint, milp

    program = naming.program
    bound = naming.objective + 1e-6 * max(1.0, abs(naming.objective))
    no_worse = LinearConstraint(sparse.csr_array(program.cost[None, :]), -np.inf, bound)
    named = np.asarray(naming.weights[program.item_a, program.item_b]).ravel() > 0.5
    verdicts: dict[str, list[str]] = {"determined": [], "named_otherwise": [], "unsettled": []}
    for k in np.flatnonzero(named):
        upper = np.ones(len(program.cost))
        upper[k] = 0.0

        def test(presolve: bool, upper=upper) -> tuple[int, str, bool]:
            result = milp(program.cost, integrality=program.integrality, bounds=Bounds(0, upper),
                          constraints=program.constraints + [no_worse], options=_options(time_limit, presolve))
            return result.status, result.message, result.x is not None

        def limited(presolve: bool, test=test):
            # HiGHS may overrun its own limit many times over, so a limited test runs where it can be killed
            run = functools.partial(test, presolve)
            return run() if time_limit is None else call_within(run, time_limit)

        _, verdict = _confirmed(limited, lambda answer: "stopped" if answer is KILLED else _verdict(*answer))
        kind = {"infeasible": "determined", "naming": "named_otherwise"}.get(verdict, "unsettled")
        verdicts[kind].append(naming.published_labels[program.item_a[k]])
    return replace(naming, determined=tuple(verdicts["determined"]), named_otherwise=tuple(verdicts["named_otherwise"]),
                   unsettled=tuple(verdicts["unsettled"]))


def _singleton_candidates(published: ItemsetCollection, mined: ItemsetCollection, width: float) -> sparse.csr_array:
    """candidates[A, B], a boolean CSR array in canonical form (each row's columns ascending):
    both singletons listed with frequencies within ``width``, or either not listed (an omitted
    singleton says nothing).

    Each published item's candidates among the listed renamed items lie in one window of them
    sorted by frequency, found by binary search, so the arrays are as long as the pairs: a dense
    array of every pair took 262 MB on retail at sigma 0.0005 (3,926 items a side). The window
    is searched a hair wider than ``width`` and its pairs kept by the test |fa - fb| <= width
    itself, so that rounding in fa ± width moves no pair in or out."""
    n_a, n_b = len(published.labels), len(mined.labels)
    fa, fb = _singleton_frequencies(published), _singleton_frequencies(mined)
    listed = np.flatnonzero(~np.isnan(fb))
    by_frequency = listed[np.argsort(fb[listed], kind="stable")]
    sorted_fb = fb[by_frequency]
    unlisted = np.flatnonzero(np.isnan(fb))
    known = np.flatnonzero(~np.isnan(fa))
    # far more than the rounding of fa ± width (a few units in the last place of |fa| + width)
    margin = 1e-12 * (1.0 + np.abs(fa[known]) + width)
    low = np.searchsorted(sorted_fb, fa[known] - width - margin, side="left")
    high = np.searchsorted(sorted_fb, fa[known] + width + margin, side="right")
    rows = np.repeat(known, high - low)
    cols = by_frequency[concat_ranges(low, high)]
    close = np.abs(fa[rows] - fb[cols]) <= width
    keys = np.concatenate([
        rows[close] * n_b + cols[close],
        (known[:, None] * n_b + unlisted[None, :]).ravel(),  # a renamed singleton not listed
        (np.flatnonzero(np.isnan(fa))[:, None] * n_b + np.arange(n_b)[None, :]).ravel(),  # a published one
    ])
    keys.sort()  # no key twice: the three parts have no row and column in common
    # (with no renamed item there is no key, and numpy divides an empty array by 0 without a word)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(keys // n_b, minlength=n_a))])
    return sparse.csr_array((np.ones(len(keys), dtype=bool), keys % n_b, indptr), shape=(n_a, n_b))


def _singleton_frequencies(collection: ItemsetCollection) -> np.ndarray:
    """Each item's singleton frequency, NaN for an item whose singleton is not listed."""
    frequency = np.full(len(collection.labels), np.nan)
    positions, items = collection.level(1)
    frequency[items[:, 0]] = collection.frequencies[positions]
    return frequency


def _unmatched_advice(tolerance: float) -> str:
    # a tolerance at its bound cannot be widened
    widen = ", or widen the tolerance" if tolerance < MAX_TOLERANCE else ""
    return f"(allow unmatched itemsets with an unmatched cost{widen})"


def _frequency_pairs(published, mined, tolerance, max_pairs) -> list:
    """For each size, the (published, mined) position pairs whose frequencies are within ``tolerance``."""
    width = tolerance + EXACT
    # a tolerance of 0 cannot be narrowed
    narrow = ", or narrow the tolerance" if tolerance > 0 else ""
    levels = []
    total = 0
    for size in np.unique(np.concatenate([published.sizes, mined.sizes])):
        p_pos, _ = published.level(int(size))
        m_pos, _ = mined.level(int(size))
        if len(p_pos) == 0 or len(m_pos) == 0:
            continue
        order = np.argsort(mined.frequencies[m_pos], kind="stable")
        sorted_freq = mined.frequencies[m_pos][order]
        fp = published.frequencies[p_pos]
        low, high = _within(sorted_freq, fp, width)
        counts = high - low
        total += int(counts.sum())
        if total > max_pairs:
            raise ProgramTooLarge(
                f"the program would hold more than {max_pairs:,} itemset pairs of equal size and frequencies within "
                f"the tolerance (the itemsets of size {int(size)} alone give {int(counts.sum()):,}); "
                f"mine at a higher sigma or limit the itemset size{narrow}")
        left = np.repeat(p_pos, counts)
        offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        right = m_pos[order][np.repeat(low, counts) + offsets]
        pairs = np.stack([left, right], axis=1).astype(np.int64)
        levels.append((int(size), pairs))
    return levels


def _within(sorted_frequencies: np.ndarray, frequencies: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """For each f of ``frequencies``, [low, high): the positions in ``sorted_frequencies`` of the g
    with |f - g| <= ``width``, the test of :func:`_singleton_candidates`. A search for f ± width
    alone may move a pair in or out by rounding (0.022 + 0.100000001 rounds below 0.122000001,
    which is 0.100000001 from 0.022), so each edge is searched a hair inside and outside and the
    few frequencies between are tested; the test holds on one unbroken run of them around f."""
    # far more than the rounding of f ± width, far less than the exact tolerance (width is never below it)
    margin = np.minimum(1e-12 * (1.0 + np.abs(frequencies) + width), width / 4)
    edges = []
    sides: tuple[tuple[int, Literal["left", "right"]], ...] = ((-1, "left"), (1, "right"))
    for direction, side in sides:
        inner = np.searchsorted(sorted_frequencies, frequencies + direction * (width - margin), side=side)
        outer = np.searchsorted(sorted_frequencies, frequencies + direction * (width + margin), side=side)
        first, last = (outer, inner) if direction < 0 else (inner, outer)
        rows = np.repeat(np.arange(len(frequencies)), last - first)
        close = np.abs(frequencies[rows] - sorted_frequencies[concat_ranges(first, last)]) <= width
        edges.append(inner + direction * np.bincount(rows[close], minlength=len(frequencies)))
    return edges[0], edges[1]


def _pair_keys(pairs: sparse.csr_array) -> np.ndarray:
    """The item pairs (A, B) of a canonical CSR array as keys A * n_b + B, ascending."""
    rows = np.repeat(np.arange(pairs.shape[0], dtype=np.int64), np.diff(pairs.indptr))
    return rows * pairs.shape[1] + pairs.indices


def _pair_index(allowed: np.ndarray, n_b: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The position in ``allowed`` (ascending keys, :func:`_pair_keys`) of each item pair (A, B),
    broadcast over ``a`` and ``b``; -1 for a pair not in it."""
    keys = np.asarray(a, dtype=np.int64) * n_b + b
    if not len(allowed):
        return np.full(keys.shape, -1, dtype=np.int64)
    where = np.minimum(np.searchsorted(allowed, keys), len(allowed) - 1)
    return np.where(allowed[where] == keys, where, -1)


#: itemset pairs whose item pairs :func:`_structural` looks up at once: its keys take 8 bytes per
#: pair of items, so a level of 2,000,000 pairs of triples at once would take 144 MB
STRUCTURAL_CHUNK = 1 << 16


def _structural(published, mined, size, pairs, allowed, n_b) -> np.ndarray:
    """Each item of X has an allowed partner in Y and each item of Y one in X (``allowed``: the
    keys of the item pairs, :func:`_pair_keys`)."""
    result = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), STRUCTURAL_CHUNK):
        chunk = pairs[start:start + STRUCTURAL_CHUNK]
        xs = published.items_at(chunk[:, 0], size)
        ys = mined.items_at(chunk[:, 1], size)
        ok = in_sorted((xs[:, :, None] * n_b + ys[:, None, :]).ravel(), allowed).reshape(len(chunk), size, size)
        result[start:start + STRUCTURAL_CHUNK] = np.all(np.any(ok, axis=2), axis=1) & np.all(np.any(ok, axis=1), axis=1)
    return result


def _require_every_itemset_matched(published, mined, levels, tolerance) -> None:
    matched_p = np.zeros(len(published), dtype=bool)
    matched_m = np.zeros(len(mined), dtype=bool)
    for _, pairs in levels:
        matched_p[pairs[:, 0]] = True
        matched_m[pairs[:, 1]] = True
    advice = _unmatched_advice(tolerance)
    if not matched_p.all():
        unmatched = np.flatnonzero(~matched_p)
        # the file's first such line: the collection is ordered by size, then items
        first = int(unmatched[np.argmin(np.asarray(published.lines)[unmatched])]) if published.lines \
            else int(unmatched[0])
        origin = published.origin(first)
        where = f"on {origin}, " if origin else ""
        count = int((~matched_p).sum())
        size = int(published.sizes[first])
        raise Infeasible(f"{counted(count, 'published itemset', ('matches', 'match'))} no itemset mined from the "
                         f"renamed data (the first {where}of {counted(size, 'item')}) {advice}"
                         f"{_sigma_advice(published, matched_p, mined, tolerance, 'lower')}")
    if not matched_m.all():
        count = int((~matched_m).sum())
        raise Infeasible(f"{counted(count, 'itemset')} mined from the renamed data "
                         f"{'matches' if count == 1 else 'match'} no published itemset {advice}"
                         f"{_sigma_advice(mined, matched_m, published, tolerance, 'higher')}")


def _sigma_advice(unmatched_side, matched, other, tolerance, than: str) -> str:
    """When every unmatched itemset is less frequent, by more than the tolerance, than every
    itemset of the other side, the likely cause is a --sigma other than the one the itemsets were
    published at, where an unmatched cost would only leave them out (QA as an auditor:
    deanonymize at 0.01 of itemsets published at 0.02 advised only those). Only when every one
    is: noise alone pushes a few of the least frequent below the other side's threshold."""
    if not len(other):  # no itemset to be less frequent than
        return ""
    if not (unmatched_side.frequencies[~matched] < other.frequencies.min() - tolerance - EXACT).all():
        return ""
    other_side = "itemset mined from the renamed data" if than == "lower" else "published itemset"
    return (f"; each is less frequent than every {other_side}, by more than the tolerance: were the itemsets "
            f"published at a {than} sigma than --sigma?")


def _supported(published, mined, levels, allowed, n_a, n_b) -> np.ndarray:
    """For each item pair (A, B) of ``allowed`` (the keys, :func:`_pair_keys`): every published
    itemset holding A has a candidate partner holding B, and every mined itemset holding B has a
    candidate partner holding A."""
    a_of, b_of = allowed // n_b, allowed % n_b
    result = np.ones(len(allowed), dtype=bool)
    for collection, other_width, side in ((published, n_b, 0), (mined, n_a, 1)):
        other = mined if side == 0 else published
        holders = [np.repeat(pairs[:, side], size) for size, pairs in levels]
        partners = [other.items_at(pairs[:, 1 - side], size).ravel() for size, pairs in levels]
        # sparse, since a dense itemsets-by-items matrix took 612 MB a call on retail at sigma 0.0005
        cover = sparse.csr_array((np.ones(sum(map(len, holders))),
                                  (np.concatenate(holders or [np.zeros(0, np.int64)]),
                                   np.concatenate(partners or [np.zeros(0, np.int64)]))),
                                 shape=(len(collection), other_width))
        cover.sum_duplicates()
        cover.data[:] = 1.0  # a partner item counts once, however many of the itemset's partners hold it
        owners = np.repeat(np.arange(len(collection)), collection.sizes)
        incidence = sparse.csr_array((np.ones(len(owners)), (collection.items, owners)),
                                     shape=(len(collection.labels), len(collection)))
        degree = np.asarray(incidence.sum(axis=1)).ravel()
        count = sparse.csr_array(incidence @ cover)
        count.sum_duplicates()  # canonical: each row's columns ascending, as _pair_keys needs
        item, partner = (a_of, b_of) if side == 0 else (b_of, a_of)
        where = _pair_index(_pair_keys(count), other_width, item, partner)
        shared = np.where(where >= 0, count.data[where], 0.0)
        # an item no itemset holds has every partner (0 of 0 itemsets), one held has those of all its itemsets;
        # both counts are sums of ones, exact in floats, where np.isclose took 100,000 of 100,001 for all
        result &= (degree[item] == 0) | ((where >= 0) & (shared == degree[item]))
    return result


@dataclass(frozen=True)
class _Program:
    cost: np.ndarray
    integrality: np.ndarray
    constraints: list
    #: the item pair (A, B) of each u variable, the first variables of the program
    item_a: np.ndarray
    item_b: np.ndarray

    @property
    def rows(self) -> int:
        return sum(c.A.shape[0] for c in self.constraints)


def _build(published, mined, pairs, allowed, shape, tolerance, unmatched_cost, method, linking) -> _Program:
    """The program over the item pairs ``allowed`` (the keys, :func:`_pair_keys`, of an array of
    ``shape``: u variable k is the k-th pair) and the itemset pairs ``pairs``."""
    from scipy.optimize import LinearConstraint

    n_p, n_m = len(published), len(mined)
    n_a, n_b = shape
    a_of, b_of = allowed // n_b, allowed % n_b
    n_u, n_x = len(allowed), len(pairs)
    n_s = n_p + n_m if unmatched_cost is not None else 0
    x0, s0 = n_u, n_u + n_x
    n_vars = n_u + n_x + n_s

    scale = tolerance if tolerance > 0 else 1.0
    difference = published.frequencies[pairs[:, 0]] - mined.frequencies[pairs[:, 1]]
    cost = np.concatenate([np.zeros(n_u), (difference / scale) ** 2, np.full(n_s, unmatched_cost or 0.0)])

    x_vars = x0 + np.arange(n_x)
    row_parts = [pairs[:, 0], n_p + pairs[:, 1]]
    col_parts = [x_vars, x_vars]
    if n_s:
        row_parts.append(np.arange(n_p + n_m))
        col_parts.append(s0 + np.arange(n_p + n_m))
    rows, cols = np.concatenate(row_parts), np.concatenate(col_parts)
    matched = sparse.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n_p + n_m, n_vars))
    if not n_s:
        matched = matched[_independent_matches(pairs, n_p, n_m)]

    u_vars = np.arange(n_u)
    one_name = sparse.csr_array((np.ones(2 * n_u), (np.concatenate([a_of, n_a + b_of]),
                                                    np.concatenate([u_vars, u_vars]))),
                                shape=(n_a + n_b, n_vars))

    link = _linking(published, mined, pairs, allowed, shape, x0, n_vars, linking)
    integrality = np.zeros(n_vars, dtype=np.int8)
    if method == "ip":
        integrality[:] = 1
    elif method == "mip":
        integrality[:n_u] = 1
    constraints = [
        LinearConstraint(matched, 1, 1),
        LinearConstraint(one_name, 0, 1),
        LinearConstraint(link, 0, np.inf),
    ]
    return _Program(cost, integrality, constraints, a_of, b_of)


def _independent_matches(pairs, n_p, n_m) -> np.ndarray:
    """The rows "matched exactly once" that the others do not imply: all but one of each
    connected group of candidate pairs that holds as many published itemsets as mined ones (the
    row of its last mined itemset).

    Without unmatched itemsets, a group's published rows and its mined rows both sum to the
    sum of its pairs' x, so where the group holds as many of each, any one of its rows follows
    from the rest. Where it does not, the rows contradict each other and the program has no
    solution; all of them stay, since without one of them a mined itemset could be matched more
    than once and the program would be solved. Left in, that row is found by HiGHS's
    presolve, whose search for dependent equations has a clock of its own (1 % of the time
    limit, within [1 s, 100 s]) and gives up when it expects to exceed it: on BMS-WebView-1 it
    removed the row in some solves and gave up after 0.22 s in others, and the two reduced
    programs returned different namings of equal cost, so the same command named items
    differently from run to run. Without the row the search finds nothing to
    remove, finished or not."""
    from scipy.sparse.csgraph import connected_components

    nodes = n_p + n_m
    graph = sparse.csr_array((np.ones(len(pairs)), (pairs[:, 0], n_p + pairs[:, 1])), shape=(nodes, nodes))
    _, group = connected_components(graph, directed=False)
    paired = np.zeros(nodes, dtype=bool)
    paired[pairs[:, 0]] = True
    paired[n_p + pairs[:, 1]] = True
    # a row of no pair (0 = 1, the caller refuses such a program first) follows from nothing: it stays
    last = np.full(group.max() + 1, -1, dtype=np.int64)
    np.maximum.at(last, group[paired], np.flatnonzero(paired))
    side = np.where(np.arange(nodes) < n_p, 1, -1)  # published minus mined itemsets of each group
    balanced = np.bincount(group[paired], weights=side[paired], minlength=len(last)) == 0
    keep = np.ones(nodes, dtype=bool)
    keep[last[(last >= 0) & balanced]] = False
    return np.flatnonzero(keep)


def _linking(published, mined, pairs, allowed, shape, x0, n_vars, linking) -> sparse.csr_array:
    """The rows tying matched itemsets to their items (``cover``, ours, or ``aggregate``, the
    paper's); u variable k is the item pair ``allowed[k]`` (:func:`_pair_keys`)."""
    if linking == "aggregate":
        return _aggregate_linking(published, mined, pairs, allowed, shape, x0, n_vars)
    return _cover_linking(published, mined, pairs, allowed, shape, x0, n_vars)


def _cover_linking(published, mined, pairs, allowed, shape, x0, n_vars) -> sparse.csr_array:
    """One row per published itemset X and renamed item B, Σ_{A∈X} u[A, B] ≥ Σ_{Y∋B} x[X, Y], and
    one per mined itemset Y and original item A, Σ_{B∈Y} u[A, B] ≥ Σ_{X∋A} x[X, Y]."""
    n_a, n_b = shape
    sizes = published.sizes[pairs[:, 0]]
    x_keys, x_vars = [], []
    for size in np.unique(sizes):
        size = int(size)
        which = np.flatnonzero(sizes == size)
        xs = published.items_at(pairs[which, 0], size)
        ys = mined.items_at(pairs[which, 1], size)
        x_keys += [(pairs[which, 0][:, None] * n_b + ys).ravel(),
                   len(published) * n_b + (pairs[which, 1][:, None] * n_a + xs).ravel()]
        x_vars += [np.repeat(x0 + which, size)] * 2
    if not x_keys:
        return sparse.csr_array((0, n_vars))
    keys, x_rows = np.unique(np.concatenate(x_keys), return_inverse=True)
    rows, cols, values = [x_rows], [np.concatenate(x_vars)], [np.full(len(x_rows), -1.0)]
    first = keys < len(published) * n_b
    for side, collection, key_set, width in ((0, published, keys[first], n_b),
                                             (1, mined, keys[~first] - len(published) * n_b, n_a)):
        row_of = np.flatnonzero(first) if side == 0 else np.flatnonzero(~first)
        owner, item = key_set // width, key_set % width
        owner_sizes = collection.sizes[owner]
        for size in np.unique(owner_sizes):
            which = np.flatnonzero(owner_sizes == size)
            held = collection.items_at(owner[which], int(size))
            other = item[which][:, None]
            terms = _pair_index(allowed, n_b, held, other) if side == 0 else _pair_index(allowed, n_b, other, held)
            present = terms >= 0
            rows.append(np.repeat(row_of[which], int(size))[present.ravel()])
            cols.append(terms[present])
            values.append(np.ones(int(present.sum())))
    return sparse.csr_array((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(len(keys), n_vars))


def _aggregate_linking(published, mined, pairs, allowed, shape, x0, n_vars) -> sparse.csr_array:
    """The paper's row per pair: Σ_{A∈X, B∈Y} u[A, B] ≥ |X| x[X, Y]."""
    sizes = published.sizes[pairs[:, 0]]
    rows, cols, values = [np.arange(len(pairs))], [x0 + np.arange(len(pairs))], [-sizes.astype(np.float64)]
    for size in np.unique(sizes):
        which = np.flatnonzero(sizes == size)
        xs = published.items_at(pairs[which, 0], int(size))
        ys = mined.items_at(pairs[which, 1], int(size))
        terms = _pair_index(allowed, shape[1], xs[:, :, None], ys[:, None, :]).reshape(len(which), -1)
        present = terms >= 0
        rows.append(np.repeat(which, terms.shape[1])[present.ravel()])
        cols.append(terms[present])
        values.append(np.ones(int(present.sum())))
    return sparse.csr_array((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(len(pairs), n_vars))
