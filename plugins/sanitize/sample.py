"""Restrictive patterns for experiments, picked the way Oliveira & Zaïane, TR 02-13, §5.1 did:
n frequent patterns of a length range with support in a given range.

The lengths are spread evenly: the i-th pick has the i-th length of the range in turn (10
patterns of length 2-5 are three of length 2 and 3 and two of length 4 and 5), skipping lengths
that have no candidate left. Within a length a pick is uniform among the candidates, from a
generator seeded with ``seed``. A candidate that contains or is contained in a pattern already
picked is passed over: it would be restrictive anyway and add no pattern to hide.

§5.1 then ran the algorithms with R_P holding every frequent pattern (at the mining support σ)
that contains one of the picks, 22,479 patterns for 10 picks; :func:`frequent_supersets` lists
those, shortest first as a level-wise miner finds them. :func:`other_spellings` lists the patterns
again with their items in the other spellings the data gives them, which every run needs.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import deque

import numpy as np

from setveil.core.labeltext import label_order, label_text
from setveil.core.mining import ITEMSET_BUDGET, frequent_itemset_arrays
from setveil.core.output import write_text_output
from setveil.core.schema import other_spellings as schema_spellings
from setveil.core.window import Window


class TooFewPatterns(ValueError):
    """The data holds fewer patterns of the asked lengths and supports than were asked for;
    ``candidates`` is how many it holds at all; ``advice``, when there are none, which end of the
    support range to move."""

    def __init__(self, message: str, candidates: int | None = None, advice: str = "widen the supports"):
        super().__init__(message)
        self.candidates = candidates
        self.advice = advice


class TransactionsTooShort(TooFewPatterns):
    """No transaction holds as many items as the shortest pattern asked for."""


def sample_patterns(
    window: Window,
    n: int,
    min_length: int,
    max_length: int,
    min_support: float,
    max_support: float,
    seed: int,
) -> list[tuple[str, ...]]:
    """``n`` patterns (item labels in label order); :class:`TooFewPatterns` if there are fewer."""
    total = len(window)
    low = max(1, math.ceil(min_support * total - 1e-9))
    high = math.floor(max_support * total + 1e-9)
    # no pattern is longer than the longest transaction (and pyfim takes a C long)
    longest = int(window.lengths.max()) if len(window) else 0
    if min(max_length, longest) < min_length:
        raise TransactionsTooShort(f"no transaction holds {min_length} items, so no pattern of length "
                                   f"{min_length}-{max_length} occurs (--min-length)")
    # counted a few sizes at a time: long records are refused at the first sizes past the budget
    indptr, ids, supports = frequent_itemset_arrays(window, low, min_size=min_length, max_size=min(max_length, longest),
                                                    budget=ITEMSET_BUDGET, by_size=True)
    lengths = np.diff(indptr)
    rng = np.random.default_rng(seed)
    queues = {}
    for length in range(min_length, min(max_length, longest) + 1):
        candidates = np.flatnonzero((lengths == length) & (supports <= high))
        queues[length] = deque(rng.permutation(candidates).tolist())
    picked: list[frozenset[int]] = []
    cycle = list(queues)
    turn = 0
    while len(picked) < n and any(queues.values()):
        length = cycle[turn % len(cycle)]
        turn += 1
        queue = queues[length]
        while queue:
            j = queue.popleft()
            candidate = frozenset(ids[indptr[j] : indptr[j + 1]].tolist())
            if not any(candidate <= other or other <= candidate for other in picked):
                picked.append(candidate)
                break
    if len(picked) < n:
        # the count is this pick's, not the most the data holds: a pick of one length can pass
        # over candidates of another that a different order would have kept (QA)
        offered = int(np.count_nonzero(np.isin(lengths, list(queues)) & (supports <= high)))
        if offered == 0:
            # which end of the range to move: mined at min_support, the patterns of these
            # lengths (if any) are all above max_support
            above = supports[np.isin(lengths, list(queues))]
            if len(above) == 0:
                raise TooFewPatterns(f"no pattern of length {min_length}-{max_length} has a support of "
                                     f"{min_support} or more; asked for {n}", 0, "lower --min-support")
            raise TooFewPatterns(f"no pattern of length {min_length}-{max_length} has a support in "
                                 f"[{min_support}, {max_support}]: all {len(above):,} of support {min_support} or "
                                 f"more have more than {max_support}, the least {above.min() / total:.4g}; asked "
                                 f"for {n}", 0, "raise --max-support")
        raise TooFewPatterns(
            f"this pick found {len(picked)} patterns of length {min_length}-{max_length} with support in "
            f"[{min_support}, {max_support}] that contain no other pick and are contained in none (of {offered} "
            f"candidates, taken length by length in turn); asked for {n}", offered
        )
    labels = window.vocab.label
    return [tuple(sorted((labels(i) for i in pattern), key=label_order)) for pattern in picked]


def frequent_supersets(window: Window, patterns: list[tuple[str, ...]], sigma: float) -> list[tuple[str, ...]]:
    """The patterns of support at least ``sigma`` (share of transactions) that strictly contain
    one of ``patterns``: shortest first, then in label order."""
    support = max(1, math.ceil(sigma * len(window) - 1e-9))
    # unordered, since they are sorted (sample_patterns draws from the miner's order, so is not)
    indptr, ids, _ = frequent_itemset_arrays(window, support, budget=ITEMSET_BUDGET, by_size=True, unordered=True)
    lengths = np.diff(indptr)
    if len(lengths) == 0:
        return []
    found = np.zeros(len(lengths), dtype=bool)
    for pattern in patterns:
        items = window.vocab.ids(pattern)
        held = np.add.reduceat(np.isin(ids, items).astype(np.int64), indptr[:-1])
        found |= (held == len(items)) & (lengths > len(items))
    labels = window.vocab.label
    supersets = [
        tuple(sorted((labels(i) for i in ids[indptr[j] : indptr[j + 1]].tolist()), key=label_order))
        for j in np.flatnonzero(found).tolist()
    ]
    return sorted(supersets, key=lambda pattern: (len(pattern), [label_order(label) for label in pattern]))


def other_spellings(window: Window, patterns: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``patterns`` with their items in every other spelling that ``window`` gives them
    (:func:`~setveil.core.schema.other_spellings`: é as one code point and as e and a combining
    accent), each not in ``patterns``, in the order of the patterns they spell: every run refuses
    a pattern file that gives a pattern in one spelling and not in the others the input uses
    (:func:`~setveil.core.schema.misspelt`), since the records that spell it otherwise would keep
    it."""
    others = schema_spellings(frozenset(label for pattern in patterns for label in pattern), window.vocab)
    seen = {frozenset(pattern) for pattern in patterns}
    found = []
    for pattern in patterns:
        spellings = ((label, *sorted(others.get(label, ()), key=label_order)) for label in pattern)
        for spelt in itertools.product(*spellings):
            if frozenset(spelt) not in seen:
                seen.add(frozenset(spelt))
                found.append(tuple(sorted(spelt, key=label_order)))
    return found


def write_patterns(path: str | os.PathLike, patterns: list[tuple[str, ...]]) -> None:
    """One pattern per line, written as every output is (:mod:`setveil.core.output`)."""
    write_text_output(path, "".join(" ".join(map(label_text, pattern)) + "\n" for pattern in patterns))
