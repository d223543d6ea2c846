"""Minimal moles, level by level (Xu et al. §3.1: Definitions 3-4, Observation 4, Fig. 4).

M_i (minimal moles of size i) and F_i (extendible non-moles of size i) are built together:
a candidate of size i+1 joins two members of F_i that share their first i-1 items (the items
taken in ascending support, so that a frequent item heads few joins), and is kept only if every
i-subset is in F_i. (Observation 4 states the condition as "no i-subset is in
M_i"; an i-subset that is a non-minimal mole would slip through that test, so we use the
Apriori condition it stands for: all i-subsets are extendible non-moles.) Candidates with
support 0 are neither moles nor non-moles (Definition 1 needs Sup > 0) and are dropped.

Counting is vertical: each member of F_i keeps its tidset as a packed bitset, a candidate's
tidset is the AND of its two parents' and its support a popcount. Pairs are counted at once
by a sparse matrix product. A level whose tidsets would take more than FRONTIER_BUDGET keeps
none, and the next level ANDs each candidate's items' bitsets instead, a chunk at a time (i-1
ANDs where the parents' tidsets took one): F_i holds a bit per transaction for each of its
itemsets, and dense data at a large p makes millions of them (connect at δ=40%, k=100, p=7:
1,819,041 of size 6, 14.3 GiB). Each level decides for itself, so the one after keeps its
tidsets again where they fit; the moles, counts and bounds are the same either way. Breach
probabilities are only computed exactly where an upper bound allows a breach: Sup(β ∪ e) <=
min over the parents, and a private item e can only breach a cohort of at least k transactions
if Sup(β ∪ e) > h·k. The exact counts are an AND and a popcount per (candidate, private item),
or, where that costs more, each candidate's transactions listed once and their private items
summed (:func:`_by_listing`). Shares are compared in integers against h as typed
(:class:`~setveil.core.share.Share`), as the checker does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from setveil.core.arrays import concat_ranges, id_dtype, sorted_unique
from setveil.core.bitset import pack_tidlists, popcount, row_members
from setveil.core.deferred import DeferredModule
from setveil.core.mining import within_budget
from setveil.core.share import Share
from setveil.core.window import Window

from .rowset import RowSet

if TYPE_CHECKING:
    from scipy import sparse
else:
    sparse = DeferredModule("scipy.sparse")

CHUNK_BYTES = 64 << 20

#: most candidate itemsets one level of the search may list (its joins, before their subsets are
#: checked; about 40 bytes each with their parents' indices, and a tidset each): a level at the
#: budget took 12.6 s and 1.16 GB, and it bounds the time as well (docs/coherence.md says why the
#: joins are not listed a chunk at a time instead). Real data needs far fewer: the whole of retail at the
#: README's service setting (δ=50%, k=5) makes 763,912 pairs at p=3 and lists 258,980 triples
#: (14,812,473 when joined in item-id order), T10I4D100K 498,582. Five transactions that
#: share 2,000 public items make 1.3 billion triples, which took all of the machine's 24 GiB in a
#: QA pass.
CANDIDATE_BUDGET = 10_000_000
#: the same for the pairs, whose count is bounded before the product that lists them by the pairs
#: of each transaction's items, which counts a pair once per transaction that holds it (the whole
#: of retail: 1,789,115 against 763,912 distinct), hence a larger budget for that bound
PAIR_BOUND_BUDGET = 4 * CANDIDATE_BUDGET
#: what a level past its budget would list, by the candidates' size
CANDIDATES = "candidate itemsets of size {} in the search for minimal moles (lower p, or cut smaller windows)"
#: most bytes the tidsets of one level's extendible non-moles may take, kept for the next level's
#: candidates; past it the level keeps none, and the next ANDs its candidates' items' bitsets. The
#: budgets above count itemsets, but each of these holds a bit per transaction: connect at δ=40%,
#: k=100, p=7 has 1,819,041 extendible itemsets of size 6, whose tidsets would take 14.3 GiB
#: (p=6 keeps 434,731 of size 5 in 3.4 GiB). About what the checker's mining budget lets pyfim's
#: list take (25,000,000 itemsets, 5 GB). A level's frontier is made from the last level's, held
#: meanwhile, so two levels' tidsets, up to twice this, are held at once
FRONTIER_BUDGET = 4 << 30
#: most entries of the parents' private-item bounds gathered at once for a chunk's breach counts
#: (each candidate takes its two parents' rows): a chunk of tidsets holds thousands of candidates,
#: and the whole of retail at the README's service setting gathered 18.7 million for one chunk of
#: pairs, 572 MiB with their minimum, the search's peak
BOUND_ENTRIES = 1 << 22
#: a chunk's tidsets are ANDed from rows gathered this many parts at a time: gathering the whole
#: chunk's rows for each operand held two copies of its size beside it (with the last chunk's
#: tidsets, 256 MiB for a chunk of 64 MiB), the search's peak on retail and connect
GATHERS = 8


@dataclass
class MoleSearch:
    """The outcome of Fig. 4: size-1 moles and the minimal moles M* of sizes 2..p."""

    size1: np.ndarray
    moles: list[np.ndarray] = field(default_factory=list)
    extendible: list[int] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def count(self) -> int:
        return sum(len(m) for m in self.moles)


def find_minimal_moles(
    window: Window, public: np.ndarray, private: np.ndarray, h: float, k: int, p: int
) -> MoleSearch:
    """Size-1 moles and all minimal moles of size 2..p among the public items of ``window``.

    ``public`` and ``private`` are boolean masks over item ids. The caller has checked that
    the empty itemset is not a mole (Theorem 1).
    """
    started = time.perf_counter()
    sup = window.supports
    share = Share.of(h)
    check_breach = h < 1.0
    pub = np.flatnonzero(public & (sup > 0))
    priv = np.flatnonzero(private & (sup > 0)) if check_breach else np.zeros(0, np.int64)
    check_breach = check_breach and len(priv) > 0

    matrix = window.matrix(np.int32).tocsc()
    x_pub = matrix[:, pub]
    priv_counts = None
    is_mole = sup[pub] < k
    if check_breach:
        priv_counts = (x_pub.T @ matrix[:, priv]).tocsr()
        is_mole |= share.exceeded(priv_counts.max(axis=1).toarray().ravel(), sup[pub])
    search = MoleSearch(size1=pub[is_mole])
    search.extendible.append(int((~is_mole).sum()))
    search.candidates.append(len(pub))
    kept = _in_ascending_support(np.flatnonzero(~is_mole), sup[pub])
    frequent = pub[kept]
    m = len(frequent)
    if p < 2 or m < 2:
        search.seconds = time.perf_counter() - started
        return search

    # Only transactions with two or more extendible items can hold an itemset of size >= 2.
    x_f = x_pub[:, kept].tocsr()
    per_row = np.diff(x_f.indptr).astype(np.int64)
    within_budget(min(m * (m - 1) // 2, int((per_row * (per_row - 1) // 2).sum())), PAIR_BOUND_BUDGET, k,
                  CANDIDATES.format(2))
    rows = np.flatnonzero(per_row >= 2)
    x_f = x_f[rows]
    bits_f = _bitsets(x_f)
    private_rows = None
    bounds = None
    threshold = int(share.floor_of(k))
    if check_breach:
        assert priv_counts is not None  # counted above when check_breach
        x_q = matrix[rows][:, priv].tocsr()
        private_rows = _PrivateRows(x_q)
        bounds = _prune(priv_counts[kept], threshold, len(window))
    # the window's matrix and the items' counts are read no more: not held through the levels
    del matrix, x_pub, priv_counts

    # Level 2: all pair supports by one sparse product.
    pair_sup = sparse.triu(x_f.T @ x_f, k=1).tocoo()
    order = np.lexsort((pair_sup.col, pair_sup.row))
    first, second = pair_sup.row[order].astype(np.int64), pair_sup.col[order].astype(np.int64)
    support = pair_sup.data[order].astype(np.int64)
    del x_f, pair_sup, order  # the pairs are listed: their product is not held through the levels
    level = _classify(
        np.stack([first, second], axis=1), first, second, _Tidsets(bits_f, [first, second]), bounds, private_rows,
        share, k, threshold, keep_frontier=p > 2, support=support,
    )
    search.candidates.append(len(support))
    search.moles.append(_in_item_order(frequent[level.moles]))
    search.extendible.append(len(level.rows))

    size = 2
    while size < p and len(level.rows) >= 2:
        idx1, idx2 = _prefix_pairs(level.rows, k)
        cand = np.concatenate([level.rows[idx1], level.rows[idx2, -1:]], axis=1)
        if len(cand):
            members = RowSet(level.rows)
            ok = np.ones(len(cand), dtype=bool)
            for drop in range(size - 1):
                ok &= members.contains(np.delete(cand, drop, axis=1))
            cand, idx1, idx2 = cand[ok], idx1[ok], idx2[ok]
        size += 1
        # the parents' tidsets, or, where their level was past FRONTIER_BUDGET and kept none, the items'
        source = _Tidsets(bits_f, list(cand.T)) if level.bits is None else _Tidsets(level.bits, [idx1, idx2])
        level = _classify(cand, idx1, idx2, source, level.bounds, private_rows, share, k, threshold,
                          keep_frontier=size < p)
        del source  # the parents' tidsets are not held while the next level is listed
        search.candidates.append(len(cand))
        search.moles.append(_in_item_order(frequent[level.moles]))
        search.extendible.append(len(level.rows))
    search.seconds = time.perf_counter() - started
    return search


@dataclass
class _Level:
    moles: np.ndarray
    rows: np.ndarray
    #: the tidsets of ``rows``, or None where they were past FRONTIER_BUDGET (or no level follows)
    bits: np.ndarray | None
    bounds: sparse.csr_array | None


@dataclass
class _Tidsets:
    """Candidate i's tidset is the AND of rows ``parts[0][i]``, ``parts[1][i]``, … of ``bits``: its
    two parents' tidsets, or its items' bitsets."""

    bits: np.ndarray
    parts: list[np.ndarray]

    def of(self, chunk: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        first, *rest = self.parts
        if out is None:
            out = np.empty((len(chunk), self.bits.shape[1]), dtype=self.bits.dtype)
        # take copies into out only when it need not check the ids (its mode="raise" buffers a
        # copy); they are rows of bits, so clipping changes none
        np.take(self.bits, first[chunk], axis=0, out=out, mode="clip")
        step = max(1, len(chunk) // GATHERS)
        for part in rest:
            for start in range(0, len(chunk), step):
                rows = slice(start, start + step)
                np.bitwise_and(out[rows], self.bits[part[chunk[rows]]], out=out[rows])
        return out


def _classify(
    cand, idx1, idx2, source: _Tidsets, bounds, private_rows, share: Share, k, threshold: int, keep_frontier,
    support=None,
) -> _Level:
    """Split candidates into minimal moles and extendible non-moles (Fig. 4, lines 5-7).

    A candidate's tidset comes from ``source``; it is computed once per chunk and serves the
    support, the breach counts and the next level. Its parents are rows ``idx1`` and ``idx2`` of
    the last level (their bounds). When ``support`` is given (pairs, counted by a sparse product),
    only candidates with support >= k need their tidsets.
    """
    width = source.bits.shape[1]
    step = _rows_per_chunk(width)
    is_mole = np.zeros(len(cand), dtype=bool)
    is_extendible = np.zeros(len(cand), dtype=bool)
    if support is None:
        pending = np.arange(len(cand))
    else:
        is_mole[(support > 0) & (support < k)] = True
        pending = np.flatnonzero(support >= k)
    kept_bounds = []
    for start in range(0, len(pending), step):
        chunk = pending[start : start + step]
        tidsets = source.of(chunk)
        sup = _popcounts(tidsets) if support is None else support[chunk]
        is_mole[chunk[(sup > 0) & (sup < k)]] = True
        heavy = np.flatnonzero(sup >= k)
        breach = np.zeros(len(heavy), dtype=bool)
        if bounds is not None and len(heavy):
            for part in _bounded_parts(bounds, idx1[chunk[heavy]], idx2[chunk[heavy]]):
                parents = chunk[heavy[part]]
                breach[part], new_bounds = _breaches(
                    tidsets, heavy[part], sup[heavy[part]], bounds[idx1[parents]], bounds[idx2[parents]], private_rows,
                    share, threshold,
                )
                if keep_frontier:
                    kept_bounds.append(new_bounds[np.flatnonzero(~breach[part])])
        is_mole[chunk[heavy[breach]]] = True
        extendible = heavy[~breach]
        is_extendible[chunk[extendible]] = True
        del tidsets  # not held while the next chunk's are made
    moles = cand[is_mole]
    rows = cand[is_extendible]
    if not keep_frontier:
        return _Level(moles, rows, None, None)
    frontier = np.flatnonzero(is_extendible)
    fits = len(frontier) * width * 8 <= FRONTIER_BUDGET
    frontier_bits = _frontier_tidsets(source, frontier, step) if fits else None
    frontier_bounds = None
    if bounds is not None:
        frontier_bounds = (
            sparse.vstack(kept_bounds, format="csr") if kept_bounds else sparse.csr_array((0, bounds.shape[1]))
        )
    return _Level(moles, rows, frontier_bits, frontier_bounds)


def _frontier_tidsets(source: _Tidsets, extendible, step: int) -> np.ndarray:
    """The tidsets of the extendible candidates, ANDed again into one array of their size: kept
    chunk by chunk and concatenated, the frontier was held twice at its peak (connect, k 100,
    p 5: 1.61 GiB peak then, 1.10 GiB now); one more AND per extendible candidate costs less
    than the copy did."""
    out = np.empty((len(extendible), source.bits.shape[1]), np.uint64)
    for start in range(0, len(extendible), step):
        chunk = extendible[start : start + step]
        source.of(chunk, out=out[start : start + len(chunk)])
    return out


class _PrivateRows:
    """The private items of the transactions the search counts in: as a CSR matrix, one row per
    transaction, and as packed tidsets, one row per item, made for the items a call's popcounts
    read (retail at δ=20%, h=0.4, k=20, p=4 counts by listing and reads none of its 4,039: all of
    them packed up front held 27 MiB at the search's peak)."""

    def __init__(self, matrix: sparse.csr_array):
        self.matrix = matrix
        tidlists = sparse.csc_array(matrix)
        tidlists.sort_indices()
        self._indptr = tidlists.indptr.astype(np.int64)
        self._rows = tidlists.indices

    def bits(self, items: np.ndarray) -> np.ndarray:
        """The packed tidsets of ``items`` (column numbers), one row each."""
        starts, stops = self._indptr[items], self._indptr[items + 1]
        indptr = np.concatenate(([0], np.cumsum(stops - starts)))
        return pack_tidlists(indptr, self._rows[concat_ranges(starts, stops)], self.matrix.shape[0])


def _bounded_parts(bounds: sparse.csr_array, first: np.ndarray, second: np.ndarray) -> list[slice]:
    """Consecutive slices of the candidates whose parents' bounds (rows ``first`` and ``second``)
    hold about BOUND_ENTRIES entries together, at least one candidate a slice."""
    per_row = np.diff(bounds.indptr)
    ends = np.cumsum(per_row[first] + per_row[second])
    cuts = np.searchsorted(ends, np.arange(BOUND_ENTRIES, int(ends[-1]), BOUND_ENTRIES), side="right")
    edges = np.unique(np.concatenate(([0], cuts, [len(first)])))
    return [slice(int(start), int(stop)) for start, stop in zip(edges[:-1], edges[1:])]


def _breaches(tidsets, which, support, upper1, upper2, private_rows: _PrivateRows, share: Share, threshold: int):
    """Which of the candidates ``tidsets[which]`` have P_breach > h; and their per-private-item
    support bounds (exact where counted)."""
    upper = upper1.minimum(upper2).tocoo()
    del upper1, upper2  # the parents' rows are not held beside their minimum
    row, col, bound = upper.row, upper.col, upper.data
    # only entries that could exceed h*Sup(β) need an exact count
    maybe = np.flatnonzero(share.exceeded(bound, support[row]))
    held, position = np.unique(row[maybe], return_inverse=True)
    if _by_listing(tidsets.shape[1], len(maybe), support[held], private_rows.matrix):
        exact = _listed_counts(tidsets, which[held], position, col[maybe], private_rows.matrix)
    else:
        exact = np.empty(len(maybe), dtype=bound.dtype)
        items = sorted_unique(col[maybe])
        private, at = private_rows.bits(items), np.searchsorted(items, col[maybe])
        # each part gathers two operands, ANDs and counts them: a chunk's worth of each held at once
        step = max(1, _rows_per_chunk(tidsets.shape[1]) // GATHERS)
        for start in range(0, len(maybe), step):
            part = slice(start, start + step)
            exact[part] = popcount(tidsets[which[row[maybe[part]]]] & private[at[part]])
    bound[maybe] = exact  # upper is this call's own
    flags = np.zeros(len(support), dtype=bool)
    hit = row[maybe][share.exceeded(exact, support[row[maybe]])]
    flags[hit] = True
    keep = bound > threshold
    new = sparse.csr_array((bound[keep], (row[keep], col[keep])), shape=upper.shape)
    return flags, new


def _by_listing(width: int, entries: int, supports: np.ndarray, private: sparse.csr_array) -> bool:
    """Whether listing each candidate's transactions once and summing their private items costs
    less than an AND and a popcount of a tidset's ``width`` words for each of the ``entries``.
    On sparse data a cohort is a few transactions of a wide tidset, and the parents' bounds let
    many private items through (retail at δ=20%, k=2, h=0.4, p=4: 11 million entries of 907 words,
    88 s to find the moles, 12 s listing); on dense data the cohorts are long and the bounds let
    few through (connect)."""
    per_transaction = private.nnz / max(private.shape[0], 1)
    return len(supports) * width + int(supports.sum()) * (1 + per_transaction) < entries * width


def _listed_counts(tidsets, held, position, cols, private: sparse.csr_array) -> np.ndarray:
    """Sup(β ∪ {e}) for the candidates β = ``tidsets[held[position]]`` and private items ``cols``:
    each candidate's transactions listed once, times their private items (a sparse product)."""
    step = _rows_per_chunk(tidsets.shape[1])
    counts = []
    for start in range(0, len(held), step):
        bits = tidsets[held[start : start + step]]
        owner = np.repeat(np.arange(len(bits)), popcount(bits))
        cohort = sparse.csr_array((np.ones(len(owner), np.int64), (owner, row_members(bits))),
                                  shape=(len(bits), private.shape[0]))
        counts.append(cohort @ private)
    if not counts:
        return np.zeros(0, dtype=np.int64)
    # an entry no transaction of β holds is a 0 of the table
    return np.asarray(sparse.vstack(counts, format="csr")[position, cols], dtype=np.int64)


def _popcounts(tidsets: np.ndarray) -> np.ndarray:
    """:func:`popcount` of each row, a GATHERS-th of the rows at a time: a popcount is a word per
    word until summed, the chunk's size again."""
    step = max(1, len(tidsets) // GATHERS)
    return np.concatenate([popcount(tidsets[start : start + step]) for start in range(0, len(tidsets), step)] or
                          [np.zeros(0, dtype=np.int64)])


def _rows_per_chunk(width: int) -> int:
    """How many tidsets of ``width`` words make a chunk of about CHUNK_BYTES."""
    return max(1, CHUNK_BYTES // max(8 * width, 1))


def _prune(counts: sparse.csr_array, threshold: int, transactions: int) -> sparse.csr_array:
    """The items' bounds above ``threshold``, as int32 (entries and their indices) where a window
    of ``transactions`` lets every count fit: the search's levels gather and keep them by the
    million."""
    coo = sparse.coo_array(counts)
    keep = coo.data > threshold
    dtype = id_dtype(transactions + 1)  # a count is 0 .. transactions
    index = id_dtype(max(coo.shape))
    return sparse.csr_array((coo.data[keep].astype(dtype), (coo.row[keep].astype(index), coo.col[keep].astype(index))),
                            shape=coo.shape)


def _bitsets(matrix: sparse.csr_array) -> np.ndarray:
    csc = sparse.csc_array(matrix)
    csc.sort_indices()
    return pack_tidlists(csc.indptr.astype(np.int64), csc.indices.astype(np.int64), matrix.shape[0])


def _in_ascending_support(extendible: np.ndarray, support: np.ndarray) -> np.ndarray:
    """The extendible items in the order the search joins them: ascending support, ties by id.
    A candidate joins two itemsets that share all but their last item, so an item held with many
    others lists their pairs when it comes first and none when it comes last; in item-id order,
    retail's 26,204 extendible pairs at δ=50%, k=5 made 14,812,473 joins (one item headed a group
    of 3,446) for 186,726 candidates, in this order 258,980. Which itemsets are candidates does not
    depend on the order (every i-subset is extendible)."""
    return extendible[np.argsort(support[extendible], kind="stable")]


def _in_item_order(moles: np.ndarray) -> np.ndarray:
    """Moles of item ids, each ascending and ascending among themselves, as if joined by id."""
    moles = np.sort(moles, axis=1)
    return moles[np.lexsort(moles.T[::-1])] if len(moles) else moles


def _prefix_pairs(rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (j, l), j < l, of rows that share all but their last item (rows sorted);
    :class:`MiningTooLarge` before listing more than :data:`CANDIDATE_BUDGET` (``k``: the support
    the candidates need, for its message)."""
    f = len(rows)
    new_group = np.ones(f, dtype=bool)
    # rows of one item share the empty prefix: the comparison over no columns is all False
    new_group[1:] = (rows[1:, :-1] != rows[:-1, :-1]).any(axis=1)
    starts = np.flatnonzero(new_group)
    ends = np.append(starts[1:], f)
    group_end = np.repeat(ends, ends - starts)
    position = np.arange(f)
    counts = group_end - position - 1
    within_budget(int(counts.sum()), CANDIDATE_BUDGET, k, CANDIDATES.format(rows.shape[1] + 1))
    idx1 = np.repeat(position, counts)
    idx2 = concat_ranges(position + 1, group_end)
    return idx1, idx2
