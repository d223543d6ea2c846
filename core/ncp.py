"""The Normalized Certainty Penalty of a generalized release (He & Naughton VLDB'09 §3.2, after
Xu et al. KDD'06 and Terrovitis et al. VLDB'08).

NCP(p) = |u_p| / |I| for an item generalized to node u_p covering |u_p| > 1 leaves, 0 for an
item released as is, and

    NCP(D) = sum over transactions t, over items p of the ORIGINAL t, of NCP(p) / sum_t |t|,

so a released label that covers three items of its transaction is counted three times (Table 1:
T_2 = {Wine, Diapers, Pregnancy Test} -> {Alcohol, Health Care} costs 1/2 + 1/2 + 1/2). Each
original occurrence is charged the NCP of the released label of its transaction that covers it;
an occurrence no label covers (only in an invalid release) is charged 1, as if suppressed.
"""

from __future__ import annotations

import numpy as np

from .hierarchy import Hierarchy
from .window import Window

#: occurrences whose covers are searched at once
COVER_BLOCK = 1 << 20


def covering_nodes(original: Window, release: Window, hierarchy: Hierarchy) -> np.ndarray:
    """For every occurrence of ``original``, the released node of the same transaction whose
    subtree holds it, or -1. Assumes the released labels of a transaction are disjoint subtrees
    (a valid generalization); then the cover is the released node of largest preorder id not
    after the item."""
    n_nodes = len(hierarchy)
    released = hierarchy.nodes(release.vocab.labels)[release.indices]
    known = released >= 0
    keys = release.owners()[known] * n_nodes + released[known]
    keys.sort()
    if len(keys) == 0:
        # no released node to search: every occurrence is uncovered
        return np.full(original.n_occurrences, -1, dtype=np.int64)
    leaf_of = hierarchy.nodes(original.vocab.labels)
    owners = original.owners()
    cover = np.empty(original.n_occurrences, dtype=np.int64)
    # a block of occurrences at a time: the search's half a dozen temporaries of 8 bytes an
    # occurrence were the peak of a run over a million transactions (10 million occurrences)
    for start in range(0, original.n_occurrences, COVER_BLOCK):
        stop = start + COVER_BLOCK
        leaves, rows = leaf_of[original.indices[start:stop]], owners[start:stop]
        at = np.searchsorted(keys, rows * n_nodes + leaves, side="right") - 1
        candidate = np.where(at >= 0, keys[np.maximum(at, 0)], -1)
        node = candidate % n_nodes
        same_row = (at >= 0) & (candidate // n_nodes == rows) & (leaves >= 0)
        covers = same_row & hierarchy.is_ancestor_or_self(node, np.maximum(leaves, 0))
        cover[start:stop] = np.where(covers, node, -1)
    return cover


def ncp(original: Window, release: Window, hierarchy: Hierarchy, cover: np.ndarray | None = None) -> float:
    """NCP(D) of ``release`` as a generalization of ``original`` (0 for no occurrences);
    ``cover``: their :func:`covering_nodes`, when the caller has them already."""
    if original.n_occurrences == 0:
        return 0.0
    if cover is None:
        cover = covering_nodes(original, release, hierarchy)
    units = np.where(cover >= 0, hierarchy.ncp_units[np.maximum(cover, 0)], hierarchy.n_leaves)
    return int(units.sum()) / (hierarchy.n_leaves * original.n_occurrences)


def generalized_share(original: Window, release: Window, hierarchy: Hierarchy, cover: np.ndarray | None = None
                      ) -> float:
    """The share of original occurrences released as a label covering more than one leaf;
    ``cover`` as :func:`ncp` takes it."""
    if original.n_occurrences == 0:
        return 0.0
    if cover is None:
        cover = covering_nodes(original, release, hierarchy)
    return float(((cover < 0) | (hierarchy.leaf_counts[np.maximum(cover, 0)] > 1)).mean())
