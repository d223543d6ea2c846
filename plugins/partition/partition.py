"""Top-down partitioning for k-anonymity of set-valued data (He & Naughton VLDB'09 §4, Algorithm 1).

Every transaction starts generalized to the root cut {ALL}, all in one partition. Anonymize(P):
``pick_node`` chooses the node of P's hierarchy cut whose expansion gains most information
(Max_Global_Info_Gain: the NCP lost before minus after, summed over P's item occurrences);
``distribute_data`` sends each transaction to the bucket of the children of that node it touches;
``balance_partitions`` moves buckets of fewer than k transactions, and if the leftover is then
non-empty but smaller than k, the least-gain transactions of buckets with more than k, into a
leftover partition that keeps P's cut; each bucket and the leftover are anonymized in turn. A
partition stops when no node of its cut can be expanded.

Choices where the paper is silent (each is tested):

- Partitions are independent, so the recursion runs level-synchronously on a worklist: one
  round expands one node in every open partition at once, with numpy over all their item
  occurrences (no recursion, no per-partition Python loop). The result equals any recursive order.
- A transaction's hierarchy cut is implicit: the current node of each occurrence. Because every
  transaction of a partition shares one generalized representation, a bucket is identified by
  (partition, bitmask of the expanded node's children touched) - exact, no hashing; under a
  node of thousands of children, by the same order over each transaction's list of children.
- The node whose expansion failed for the leftover is frozen there and in every partition split
  off it later (Example 2 "rolls back" to the parent cut for the leftover and goes on with the
  other nodes). A sub-partition could only succeed where its parent failed through a bucket
  moved whole; un-freezing in sub-partitions gave the same NCP on BMS-WebView-1/2 at k = 5, 10,
  100 (f = 5) with up to 2.5x the rounds. Frozen and leaf-level occurrences are final, so each
  round only touches occurrences that can still change.
- Topping up a leftover of 1..k-1 transactions: the donors are the transactions of buckets with
  more than k, each bucket giving at most (size - k), least gain first (ties: lower position).
  When all buckets together cannot spare enough, the bucket of least total gain moves whole
  (Example 2's last step: T_5, T_6 cannot spare one, so all three go to the leftover); ties go
  to the lower bucket id, that is the smaller bitmask of the children touched (``_buckets``).
- Ties in pick_node go to the node first in preorder (see ``Partition.pick_node``).
- A one-child inner node covers the leaves its child covers: expanding it gains nothing and
  leaves the partition whole, so Max_Global_Info_Gain picks one only when no node of the cut
  gains anything, and then, ties going to preorder, the chain of one-child nodes below it round
  after round. With that pick_node (``walks_chains``) the chain is walked in the one round, where
  a hierarchy file's chain of 200,000 took 200,000 rounds; another heuristic is offered every
  node of the chain, as before, in rounds that keep the partitions as they are (one bucket each)
  without finding their buckets.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np

from setveil.core.arrays import as_ids, id_dtype
from setveil.core.hierarchy import Hierarchy

from .recoding import LeafWindow, Recoding

PickNode = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
_BITS = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
#: most 64-bit words of children masks a round holds when a mask takes several (32 MiB): past it,
#: under a node of thousands of children, buckets are found from each transaction's list of
#: children instead (a mask of one word is as small as a row of that list)
MASK_WORDS = 1 << 22
#: most occurrences whose (partition, node) keys and gains a round makes at once (16 MiB of int64
#: keys and float64 gains), and most cells of a table of their sums over every pair
PAIR_BLOCK = 1 << 20


def partition(
    leaves: LeafWindow, hierarchy: Hierarchy, k: int, pick_node: PickNode, walks_chains: bool = False
) -> Recoding:
    """Algorithm 1 over ``leaves``; returns the released node of every occurrence. ``walks_chains``
    says that ``pick_node`` is Max_Global_Info_Gain with ties to preorder, which walks a chain of
    one-child nodes once it picks its first (module docstring)."""
    started = time.perf_counter()
    n_nodes = len(hierarchy)
    single = np.diff(hierarchy.child_ptr) == 1
    child_rank = as_ids(hierarchy.child_rank, n_nodes)
    lands = _chain_ends(hierarchy, single) if walks_chains else None
    # a gain is at most the leaves a node covers
    units = as_ids(hierarchy.ncp_units, hierarchy.n_leaves + 1)
    released = np.full(len(leaves.nodes), -1, dtype=id_dtype(n_nodes))
    # The open occurrences, grouped by transaction: the transaction, its leaf, its current cut
    # node and that node's child toward the leaf, its input position, and its partition. An
    # occurrence whose cut node is its leaf, or frozen, is final and leaves. Each holds ids below
    # a known count, in that count's id_dtype: half the bytes of int64 on every window that fits.
    t = as_ids(leaves.owners(), len(leaves))
    leaf = as_ids(leaves.nodes, n_nodes)
    cur = np.zeros(len(t), dtype=id_dtype(n_nodes))
    where = np.arange(len(t), dtype=id_dtype(len(t)))
    part = np.zeros(len(t), dtype=id_dtype(len(leaves)))
    n_parts = 1
    rounds = classes = 0
    final = leaf == hierarchy.root  # a hierarchy of one node
    if final.any():
        released[where[final]] = hierarchy.root
        t, leaf, cur, where, part = (a[~final] for a in (t, leaf, cur, where, part))
    nxt = as_ids(hierarchy.child_toward(cur, leaf), n_nodes)
    if final.any() and not len(t):
        classes = 1
    # A round expands one node of every open partition's cut or freezes it for the leftover:
    # each of its open occurrences moves below it or is final, and nodes only move down, so no
    # partition split off this one holds it again. A partition open at round r has spent r
    # inner nodes along its ancestry; past that, the loop would never end
    most_rounds = n_nodes - hierarchy.n_leaves
    while len(t):
        rounds += 1
        if rounds > most_rounds:
            raise AssertionError(
                f"Partition's round {rounds} passes the {most_rounds} inner nodes of the hierarchy, "
                "each expanded at most once along a partition's ancestry"
            )
        gain = units[cur]
        gain -= units[nxt]

        # pick_node: the total gain of expanding each (partition, cut node), in units of 1/|I|.
        pair_part, pair_node, pair_gain = _pair_gains(part, cur, gain, n_parts, n_nodes)
        chosen = np.asarray(pick_node(pair_part, pair_node, pair_gain), dtype=np.int64)
        open_parts = np.count_nonzero(np.diff(pair_part, prepend=-1))
        if len(chosen) != open_parts or (np.diff(pair_part[chosen], prepend=-1) <= 0).any():
            raise ValueError("pick_node must return one candidate row per partition, in partition order")
        expand = np.full(n_parts, -1, dtype=cur.dtype)
        expand[pair_part[chosen]] = pair_node[chosen]
        under = cur == expand[part]

        # distribute_data: the transactions of this round, numbered locally.
        first = np.ones(len(t), dtype=bool)
        first[1:] = t[1:] != t[:-1]
        local = np.cumsum(first, dtype=id_dtype(len(t) + 1))
        local -= 1
        # per transaction, in int64 as before: its arithmetic (bucket keys) may pass int32
        tpart = part[first].astype(np.int64)
        whole = np.bincount(tpart, minlength=n_parts)[pair_part[chosen]] >= k
        if single[pair_node[chosen]].all() and whole.all():
            # A partition's transactions share one generalized representation, so each holds the
            # node picked: one of one child sends them all to one bucket, which stays (k or
            # more). The partitions stay as they are, without the buckets found, balanced and
            # renumbered, a third of such a round (another heuristic's, down a chain)
            new_part, n_parts = _renumber(tpart, n_parts)
            moved = np.zeros(len(t), dtype=bool)
        else:
            new_part, n_parts, moved = _distribute_and_balance(
                tpart, local, under, nxt, gain, n_parts, child_rank, k
            )
        step = under & ~moved
        if lands is not None and single[pair_node[chosen]].any():
            # a node of one child lands its occurrences at the end of its chain, any other at
            # their child toward their leaf
            cur[step] = np.where(single[cur[step]], lands[cur[step]], nxt[step])
        else:
            cur[step] = nxt[step]
        final = (under & moved) | hierarchy.is_leaf[cur]
        released[where[final]] = cur[final]
        # the round's gains and partitions are spent, and the open occurrences are filtered an
        # array at a time, so that each old copy goes before the next is made: the seven made
        # together beside them were the peak of a million transactions
        del gain, part
        if final.any():
            keep = ~final
            t = t[keep]
            leaf = leaf[keep]
            cur = cur[keep]
            nxt = nxt[keep]
            where = where[keep]
            step = step[keep]
            local = local[keep]
        nxt[step] = hierarchy.child_toward(cur[step], leaf[step])
        part = as_ids(new_part, n_parts)[local]
        # the partitions left with no open occurrence are final classes; marking them, where a
        # bincount took the ids as int64, spares a copy of a round's every occurrence
        held = np.zeros(n_parts, dtype=bool)
        held[part] = True
        classes += n_parts - int(np.count_nonzero(held))
    # the empty transactions release as empty: one class of their own, never a partition's
    classes += int((leaves.lengths == 0).any())
    return Recoding(
        released,
        {"partition_rounds": rounds, "equivalence_classes": classes, "partition_seconds": time.perf_counter() - started},
    )


def _distribute_and_balance(
    tpart: np.ndarray, local: np.ndarray, under: np.ndarray, nxt: np.ndarray, gain: np.ndarray, n_parts: int,
    child_rank: np.ndarray, k: int
) -> tuple[np.ndarray, int, np.ndarray]:
    """distribute_data and balance_partitions: each transaction's new partition, their count, and
    which occurrences went to their partition's leftover. The buckets that stay become partitions
    with the node expanded; the leftover of each partition keeps its cut, with the node frozen."""
    n_local = len(tpart)
    rows = local[under]
    ranks = child_rank[nxt[under]]
    words = int(ranks.max()) // 64 + 1
    starts = _run_starts(rows)
    if words == 1 or n_local * words <= MASK_WORDS:
        bucket = _buckets(tpart, _child_masks(rows, ranks, n_local, starts))
    else:
        bucket = _listed_buckets(tpart, rows, ranks, n_local)
    tgain = _transaction_gains(rows, starts, gain[under], n_local)
    move = _balance(bucket, tpart, tgain, n_parts, k)
    n_buckets = int(bucket.max()) + 1
    new_part, n_parts = _renumber(np.where(move, n_buckets + tpart, bucket), n_buckets + n_parts)
    return new_part, n_parts, move[local]


def _pair_gains(
    part: np.ndarray, cur: np.ndarray, gain: np.ndarray, n_parts: int, n_nodes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (partition, node) pairs, sorted, with their summed gains. Early rounds have
    few partitions and few distinct cut nodes, so the pairs fit a small dense table (bincounts);
    later rounds, with many partitions, have few occurrences left to sort."""
    if n_nodes <= 4 * len(cur):
        present = np.zeros(n_nodes, dtype=bool)
        present[cur] = True
        nodes = np.flatnonzero(present)
        numbers = as_ids(np.cumsum(present) - 1, len(nodes))[cur]
    else:
        # a round's work goes with its occurrences, not with a deep hierarchy's every node
        nodes, numbers = np.unique(cur, return_inverse=True)
    cells = n_parts * len(nodes)
    if cells <= 4 * len(cur) + (1 << 16):
        pairs, pair_gain = _pair_table(part, numbers, gain, len(nodes), cells)
    else:
        keys = np.multiply(part, len(nodes), dtype=np.int64)
        keys += numbers
        pairs, inverse = np.unique(keys, return_inverse=True)
        pair_gain = np.bincount(inverse, weights=gain)
    return pairs // len(nodes), nodes[pairs % len(nodes)], pair_gain


def _pair_table(
    part: np.ndarray, numbers: np.ndarray, gain: np.ndarray, width: int, cells: int
) -> tuple[np.ndarray, np.ndarray]:
    """The cells ``part * width + numbers`` that occurrences fall in, ascending, and their summed
    gains. Keys and float gains, bincount's own int64 and float64, are made ``PAIR_BLOCK``
    occurrences at a time, where over every occurrence at once they were 16 bytes each beside the
    round's arrays; a table of more cells than a block sums only the cells in use, numbered in a
    first pass, where a float a cell took up to 32 bytes an occurrence. Integer sums in floats are
    exact in any order."""
    seen = np.zeros(cells, dtype=bool)
    if cells <= PAIR_BLOCK:
        sums = np.zeros(cells)
        for keys, gains in _pair_blocks(part, numbers, gain, width):
            sums += np.bincount(keys, weights=gains, minlength=cells)
            seen[keys] = True
        pairs = np.flatnonzero(seen)
        return pairs, sums[pairs]
    for keys, _ in _pair_blocks(part, numbers, gain, width):
        seen[keys] = True
    pairs = np.flatnonzero(seen)
    number = np.cumsum(seen, dtype=id_dtype(len(pairs) + 1))
    number -= 1
    del seen
    sums = np.zeros(len(pairs))
    for keys, gains in _pair_blocks(part, numbers, gain, width):
        sums += np.bincount(number[keys], weights=gains, minlength=len(pairs))
    return pairs, sums


def _pair_blocks(
    part: np.ndarray, numbers: np.ndarray, gain: np.ndarray, width: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``PAIR_BLOCK`` occurrences at a time: their keys ``part * width + numbers`` as int64, and
    their gains."""
    for start in range(0, len(part), PAIR_BLOCK):
        stop = start + PAIR_BLOCK
        keys = np.multiply(part[start:stop], width, dtype=np.int64)
        keys += numbers[start:stop]
        yield keys, gain[start:stop]


def _chain_ends(hierarchy: Hierarchy, single: np.ndarray) -> np.ndarray:
    """Where an expansion of each node lands its occurrences: for a node of one child (``single``),
    the end of the chain of one-child nodes it heads (the first node below of another fan-out, or
    a leaf); any other node itself (its occurrences go to their child toward their leaf). Pointer
    jumping: as many passes as the log of the longest chain."""
    end = np.arange(len(hierarchy))
    end[single] = hierarchy.children[hierarchy.child_ptr[:-1][single]]
    while True:
        further = end[end]
        if (further == end).all():
            return end
        end = further


def _child_masks(rows: np.ndarray, ranks: np.ndarray, n_rows: int, starts: np.ndarray | None = None) -> np.ndarray:
    """Per row, the bitmask (in 64-bit words) of the child ranks its occurrences reach.
    ``rows`` is ascending (occurrences stay grouped by transaction); ``starts``, where each row's
    run begins, when the caller has them."""
    top = int(ranks.max()) if len(ranks) else 0
    words = top // 64 + 1
    masks = np.zeros((n_rows, words), dtype=np.uint64)
    if words == 1 and len(rows):
        if starts is None:
            starts = _run_starts(rows)
        # a bit per occurrence in the narrowest word holding the highest rank (a byte under a
        # fan-out of 8 or less), where each took 8 bytes
        narrow = _BITS[: top + 1].astype(np.min_scalar_type(1 << top))
        masks[rows[starts], 0] = np.bitwise_or.reduceat(narrow[ranks], starts)
        return masks
    np.bitwise_or.at(masks, (rows, ranks >> 6), _BITS[ranks & 63])
    return masks


def _buckets(tpart: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Bucket ids: equal for transactions with the same partition and the same children mask."""
    width = int(masks.max()).bit_length() if masks.size else 0
    if masks.shape[1] == 1 and width + int(tpart.max()).bit_length() <= 62:
        keys = (tpart << width) | masks[:, 0].astype(np.int64)
        return np.unique(keys, return_inverse=True)[1]
    order = np.lexsort([masks[:, w] for w in range(masks.shape[1])] + [tpart])
    change = np.ones(len(tpart), dtype=bool)
    change[1:] = (tpart[order][1:] != tpart[order][:-1]) | (masks[order][1:] != masks[order][:-1]).any(axis=1)
    bucket = np.empty(len(tpart), dtype=np.int64)
    bucket[order] = np.cumsum(change) - 1
    return bucket


def _listed_buckets(tpart: np.ndarray, rows: np.ndarray, ranks: np.ndarray, n_rows: int) -> np.ndarray:
    """The bucket ids :func:`_buckets` gives, from each row's children listed highest rank first
    rather than from masks of a bit per child: lists compared element by element (a list that
    ends first is the smaller) order rows as their masks do as numbers. The ids are refined one
    list position at a time, so memory goes with the occurrences, not with rows times children."""
    width = int(ranks.max()) + 2  # a rank + 1 per position, 0 where a row's list has ended
    pairs = np.unique(np.multiply(rows, width, dtype=np.int64) + (width - 2 - ranks))
    owner, value = pairs // width, width - 1 - pairs % width
    position = _segment_ranks(owner)
    order = np.argsort(position, kind="stable")
    ends = np.cumsum(np.bincount(position))
    bucket = np.unique(tpart, return_inverse=True)[1]
    start = 0
    for end in ends.tolist():
        at = order[start:end]
        column = np.zeros(n_rows, dtype=np.int64)
        column[owner[at]] = value[at]
        bucket = np.unique(bucket * width + column, return_inverse=True)[1]
        start = end
    return bucket


def _transaction_gains(rows: np.ndarray, starts: np.ndarray, gains: np.ndarray, n_rows: int) -> np.ndarray:
    """Each row's summed ``gains`` (as floats, 0 for a row with none): a run of the ascending
    ``rows`` (beginning at ``starts``) added up in integers, exact as bincount's float sums were,
    without its int64 copy of the rows and float64 copy of the gains. The gains are not negative."""
    sums = np.zeros(n_rows)
    if len(rows):
        # in the gains' own integers where no run's sum can pass them: reduceat told another dtype
        # first casts every gain, an int64 copy that was the peak of a million transactions
        longest = int(np.diff(starts, append=len(rows)).max())
        fits = int(gains.max()) * longest <= np.iinfo(gains.dtype).max
        sums[rows[starts]] = np.add.reduceat(gains, starts, dtype=gains.dtype if fits else np.int64)
    return sums


def _run_starts(rows: np.ndarray) -> np.ndarray:
    """Where each run of equal values of the ascending ``rows`` begins (compared as booleans,
    where np.diff took a copy of the ids and their differences)."""
    change = np.ones(len(rows), dtype=bool)
    np.not_equal(rows[1:], rows[:-1], out=change[1:])
    return np.flatnonzero(change)


def _renumber(keys: np.ndarray, bound: int) -> tuple[np.ndarray, int]:
    """Dense ids 0..n-1 for the distinct ``keys`` (all below ``bound``), in key order."""
    present = np.zeros(bound, dtype=bool)
    present[keys] = True
    ids = np.cumsum(present) - 1
    return ids[keys], int(ids[-1]) + 1


def _segment_ranks(keys: np.ndarray) -> np.ndarray:
    """For a sorted key array, each element's position within its run of equal keys."""
    starts = np.ones(len(keys), dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    first = np.flatnonzero(starts)
    return np.arange(len(keys)) - np.repeat(first, np.diff(np.append(first, len(keys))))


def _balance(
    bucket: np.ndarray, tpart: np.ndarray, tgain: np.ndarray, n_parts: int, k: int
) -> np.ndarray:
    """balance_partitions: which transactions go to their partition's leftover."""
    size = np.bincount(bucket)
    bpart = np.zeros(len(size), dtype=np.int64)
    bpart[bucket] = tpart
    move = size[bucket] < k
    left = np.bincount(tpart[move], minlength=n_parts)
    need = np.where((left > 0) & (left < k), k - left, 0)
    if not need.any():
        return move
    big = size >= k
    slack = np.where(big, size - k, 0)
    spare = np.bincount(bpart, weights=slack, minlength=n_parts)
    # Enough spare transactions: move the least-gain ones, at most ``slack`` from each bucket.
    donors = np.flatnonzero(~move & (need[tpart] > 0) & (spare[tpart] >= need[tpart]))
    if len(donors):
        # Local transaction numbers follow input positions, so a stable sort of donors taken in
        # ascending order breaks gain ties by position without sorting on it.
        donors = donors[np.lexsort((tgain[donors], bucket[donors]))]
        donors = np.sort(donors[_segment_ranks(bucket[donors]) < slack[bucket[donors]]])
        donors = donors[np.lexsort((tgain[donors], tpart[donors]))]
        move[donors[_segment_ranks(tpart[donors]) < need[tpart[donors]]]] = True
    # Not enough: the bucket of least total gain moves whole.
    whole = np.flatnonzero(big & (need[bpart] > 0) & (spare[bpart] < need[bpart]))
    if len(whole):
        bucket_gain = np.bincount(bucket, weights=tgain, minlength=len(size))
        whole = whole[np.lexsort((whole, bucket_gain[whole], bpart[whole]))]
        whole = whole[_segment_ranks(bpart[whole]) == 0]
        chosen = np.zeros(len(size), dtype=bool)
        chosen[whole] = True
        move |= chosen[bucket]
    return move
