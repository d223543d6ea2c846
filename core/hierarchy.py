"""Item generalization hierarchies (He & Naughton VLDB'09 §3.1 and Fig. 1, Fig. 2 of §4.1;
Terrovitis et al. VLDB'08).

A :class:`Hierarchy` is a rooted tree whose leaves are the items of the domain I and whose inner
nodes are their generalizations. It comes from

- a file of ``child,parent`` lines, one edge per line (blank lines and ``#`` comments skipped; a
  label that holds a comma or begins with ``#`` or ``"`` is written as a JSON string);
  the node that is nobody's child is the root. Cycles (at the line that closes one), a node with
  two parents, several roots, labels longer than an item's (1,024 characters) and malformed
  lines are :class:`~setveil.core.errors.InputError`
  naming the file and line, and other lines by number: never a label. The file is read over
  whole arrays: its lines split at once (those with a quoted label one by one), its edges
  checked and its nodes put in preorder by pointer jumping; only a file at fault is walked
  line by line and edge by edge, to name the first line at fault;
- :meth:`Hierarchy.balanced`: the balanced tree of fan-out f of §5.1.2, built bottom-up over the
  sorted item labels: consecutive runs of f nodes get a parent, level after level, until one
  node is left. "Sorted" is :func:`label_order`: labels that are decimal integers first, in
  numeric order, then all other labels in code-point order. A run of a single node is carried up
  unchanged rather than given a one-child parent (the parent would cover the same leaves, so
  nothing is lost and every inner node covers at least two leaves). An inner node is labelled
  ``first..last`` after the first and last leaf it covers.

Nodes are numbered in preorder, so the subtree of node u is the id range ``[u, end[u])`` and its
leaves are the leaf ranks ``[leaf_lo[u], leaf_hi[u])``: ancestor tests and leaf counts (|u_p| of
the NCP, §3.2) are array lookups.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Sequence
from functools import cached_property
from itertools import chain, compress, count, repeat
from operator import methodcaller

import numpy as np
import numpy.typing as npt

from .arrays import as_ids
from .errors import InputError, counted, first_lines
from .labeltext import LabelSyntaxError, field_text, folded, label_order, read_utf8, split_fields, turkic_folded
from .output import write_text_output
from .records import MAX_LABEL_LENGTH
from .vocabulary import LABELS_ADVICE, label_collection
from .window import Window

RANGE_SEPARATOR = ".."
#: most levels (height + 1) of a hierarchy that gets an ancestor table, a row of as many cells per
#: leaf (256 bytes at most, about what the leaf's label and index take): balanced trees of the
#: papers' fan-outs have 5-7 over BMS-WebView-1/2, a binary tree over a billion items 31; only a
#: file's chains of one-child nodes, or a caterpillar, reach thousands
ANCESTOR_TABLE_LEVELS = 64


#: why a parent array is refused (:class:`Hierarchy`)
_NOT_PREORDER = ("a Hierarchy's parent array must be in preorder: one entry a label, -1 for node 0 (the root), "
                 "each node's first child right after it and each other child right after the subtree of the "
                 "sibling before it")


class Hierarchy:
    """A rooted tree over item labels, stored as preorder arrays.

    ``labels[u]`` is node u's label; ``parent`` (-1 for the root, node 0), ``depth``, ``end``
    (preorder subtree end), ``leaf_lo``/``leaf_hi`` (leaf-rank range) and ``children`` in CSR
    form (``child_ptr``) are int arrays over node ids.
    """

    def __init__(self, labels: Sequence[str], parent: npt.ArrayLike, source: str | None = None,
                 lines: npt.ArrayLike | None = None):
        """``labels`` and ``parent`` must already be in preorder (use the constructors); ``lines``,
        in the same order, gives the line of ``source`` that brings each node in, for errors that
        name it (:attr:`lines`)."""
        self.labels = list(labels)
        self.source = source
        self.node_lines = None if lines is None else np.asarray(lines, dtype=np.int64)
        self.index = dict(zip(self.labels, range(len(self.labels))))
        if len(self.index) < len(self.labels):
            # the index would name only the last node of a label given twice (the constructors
            # give each node its own; a direct caller may not)
            raise ValueError(f"a Hierarchy's labels must be distinct: {len(self.labels)} nodes have "
                             f"{len(self.index)} labels")
        given = np.asarray(parent)
        try:
            self.parent = given.astype(np.int32, copy=False)
        except (OverflowError, TypeError, ValueError):
            raise ValueError(_NOT_PREORDER) from None
        n = len(self.labels)
        # what preorder asks of each parent, checked first since the passes below would never end
        # on a cycle (QA: a direct caller's cycle hung); and each one a node id as given, not
        # truncated or wrapped by the cast (QA: 0.5 was node 0, 2**32 + 1 node 1)
        if self.parent.shape != (n,) or (self.parent != given).any() or n and (
                self.parent[0] != -1 or (self.parent[1:] < 0).any()
                                               or (self.parent[1:] >= np.arange(1, n)).any()):
            raise ValueError(_NOT_PREORDER)
        degree = np.bincount(self.parent[1:], minlength=n) if n > 1 else np.zeros(n, np.int64)
        self.is_leaf = degree == 0
        self.child_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(degree, out=self.child_ptr[1:])
        # Preorder: the children of u are increasing ids, so a stable sort by parent groups them.
        self.children = (np.argsort(self.parent[1:], kind="stable") + 1).astype(np.int32)
        # Depths, and subtree ends (one past the last descendant, reached by last children), by
        # pointer jumping: passes go with the log of the height, where a pass per level made a
        # file's chain of one-child nodes quadratic (200,000 of them: 7.6 s).
        up = np.maximum(self.parent, 0)
        depth = (self.parent >= 0).astype(np.int64)
        while up.any():
            depth, up = depth + depth[up], up[up]
        self.depth = depth.astype(np.int32)
        last = np.arange(n)
        inner = ~self.is_leaf
        last[inner] = self.children[self.child_ptr[1:][inner] - 1]
        while (last[last] != last).any():
            last = last[last]
        self.end = (last + 1).astype(np.int32)
        # the rest of preorder, or every subtree end above is wrong ([-1, 0, 0, 1] gave node 1 the
        # end 3, leaving its child 3 out): each first child follows its parent, and each other
        # child the subtree of the sibling before it
        siblings = self.parent[self.children[1:]] == self.parent[self.children[:-1]]
        if ((self.children[self.child_ptr[:-1][inner]] != np.flatnonzero(inner) + 1).any()
                or (self.end[self.children[:-1][siblings]] != self.children[1:][siblings]).any()):
            raise ValueError(_NOT_PREORDER)
        ranks = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(self.is_leaf, out=ranks[1:])
        self.leaf_lo = ranks[:-1].copy()
        self.leaf_hi = ranks[self.end]
        self.n_leaves = int(ranks[-1])

    # -- construction ------------------------------------------------------------------
    @classmethod
    def read(cls, path: str | os.PathLike) -> Hierarchy:
        """Parse a ``child,parent`` file; errors name the file and line."""
        return cls._from_columns(*_file_edges(path), os.fspath(path))

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[str, str, int]], source: str | None = None) -> Hierarchy:
        """Build from ``(child, parent, line)`` edges; siblings keep the order they are listed in.
        An error names the line at fault and other lines by number, never a label (a hierarchy
        of diagnoses is data too)."""
        return cls._from_columns(*_columns(edges), source)

    @classmethod
    def _from_columns(cls, children: list[str], parents: list[str], lines: list[int], source: str | None) -> Hierarchy:
        """:meth:`from_edges` over its edges' columns. The edges are checked, and their nodes put in
        preorder, over whole arrays; where an edge is at fault, the walk over them in order
        (:func:`_edge_error`) names the first, as reading line after line would have stopped there."""
        if not children:
            raise InputError(source, "no edges: a hierarchy needs at least one 'child,parent' line")
        # node i is the child of edge i, and the roots, the parents that are nobody's child, follow
        edges = len(children)
        node = dict(zip(children, range(edges)))
        if len(node) < edges:
            raise _edge_error(children, parents, lines, source)
        parent = np.fromiter(map(node.get, parents, repeat(-1)), dtype=np.int64, count=edges)
        outside = parent < 0
        roots = dict(zip(dict.fromkeys(compress(parents, outside)), count(edges)))
        parent[outside] = np.fromiter(map(roots.__getitem__, compress(parents, outside)), dtype=np.int64,
                                      count=int(outside.sum()))
        up = np.concatenate([parent, np.full(len(roots), -1, dtype=np.int64)])
        if (parent == np.arange(edges)).any() or _cyclic(up):
            raise _edge_error(children, parents, lines, source)
        if len(roots) > 1:
            raise _roots_error(parent, lines, source)
        order, parents_in_preorder = _preorder(up, parent)
        labels = np.array(children + list(roots), dtype=object)[order].tolist()
        # the root, nobody's child, is brought in by the first edge that names it a parent
        node_lines = np.append(np.asarray(lines, dtype=np.int64), lines[int(np.argmax(outside))])
        return cls(labels, parents_in_preorder, source, node_lines[order])

    @classmethod
    def balanced(cls, labels: Iterable[str], fanout: int, source: str | os.PathLike | None = None) -> Hierarchy:
        """The balanced tree of fan-out ``fanout`` over ``labels`` sorted by :func:`label_order`;
        errors name ``source``, the file the labels come from. One str given for ``labels`` is a
        ``TypeError``: its characters are no labels."""
        if fanout < 2:
            raise ValueError("fanout must be at least 2")
        leaves = sorted(set(label_collection(labels, "Hierarchy.balanced: labels", LABELS_ADVICE)), key=label_order)
        if not leaves:
            raise InputError(source, "no items to build a hierarchy over")
        level = [(leaf, leaf, leaf) for leaf in leaves]  # (label, first leaf, last leaf)
        edges: list[tuple[str, str, int]] = []
        taken = set(leaves)
        while len(level) > 1:
            upper = []
            for start in range(0, len(level), fanout):
                run = level[start : start + fanout]
                if len(run) == 1:
                    upper.append(run[0])
                    continue
                first, last = run[0][1], run[-1][2]
                label = f"{first}{RANGE_SEPARATOR}{last}"
                if len(label) > MAX_LABEL_LENGTH:
                    # a release holding it could not be read back, by verify or by the service
                    raise InputError(source, f"item labels too long to name the nodes of a generated hierarchy "
                                     f"(first..last over {MAX_LABEL_LENGTH} characters): give a hierarchy file")
                if label in taken:
                    # labels with '..' inside can make a node's label an item's, or another node's
                    # ('1..3' and '4' give '4..1..3', as '4..1' and '3' do)
                    raise InputError(
                        source,
                        f"item labels like 'a{RANGE_SEPARATOR}b' make two nodes of the generated hierarchy "
                        "one label: give a hierarchy file",
                    )
                taken.add(label)
                edges.extend((node, label, 0) for node, _, _ in run)
                upper.append((label, first, last))
            level = upper
        if not edges:
            return cls([leaves[0]], np.array([-1], dtype=np.int32), None)
        return cls.from_edges(edges)

    def __deepcopy__(self, memo: dict) -> Hierarchy:
        """A hierarchy sharing nothing that can change with this one (what ``Context.copied``
        gives a model): its arrays, and its lists and dicts of labels and line numbers, are
        copied whole; the labels and numbers in them, immutable, are shared. An element by
        element deep copy took 0.26 s of CPU a copy over a file's chain of 200,000 nodes, three
        copies a run."""
        twin = copy.copy(self)
        memo[id(self)] = twin
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray) or type(value) in (list, dict):
                twin.__dict__[name] = value.copy()
            else:
                twin.__dict__[name] = copy.deepcopy(value, memo)
        return twin

    # -- I/O --------------------------------------------------------------------------------
    def edges(self) -> Iterable[tuple[str, str]]:
        """``(child, parent)`` pairs in preorder, the order :meth:`write` uses."""
        labels = self.labels
        for node in range(1, len(labels)):
            yield labels[node], labels[self.parent[node]]

    def write(self, path: str | os.PathLike) -> None:
        """Write ``child,parent`` lines atomically (nothing is left at ``path`` on failure)."""
        if any(label != label.strip() or not label for label in self.labels):
            raise InputError(path, "a node label is empty or has surrounding blanks: it cannot be read back")
        if len(self.labels) == 1:
            raise InputError(path, "a one-node hierarchy has no edge to write")
        write_text_output(path, "".join(f"{field_text(child)},{field_text(parent)}\n" for child, parent in self.edges()))

    # -- lookups ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.labels)

    @property
    def root(self) -> int:
        """The root's node id: 0, as the first node in preorder."""
        return 0

    @cached_property
    def lines(self) -> dict[str, int]:
        """The line of ``source`` that brings each label in (none without lines). Made when an
        error first names a line, not by every read: over a file's 1,000,000 labels it took 0.2 s
        of the read's 1.9 s of CPU, and held 54 bytes a node for as long as the hierarchy lived."""
        return {} if self.node_lines is None else dict(zip(self.labels, self.node_lines.tolist()))

    @cached_property
    def height(self) -> int:
        """The depth of the deepest node; the root is at depth 0."""
        return int(self.depth.max())

    @cached_property
    def leaf_counts(self) -> np.ndarray:
        """|u_p|: the number of leaves under each node."""
        return self.leaf_hi - self.leaf_lo

    @cached_property
    def ncp_units(self) -> np.ndarray:
        """NCP(u) * |I| as an integer: |u_p| for inner nodes covering several leaves, else 0.

        Integer units keep sums of NCP exact, so gains that tie in the paper tie here too.
        """
        counts = self.leaf_counts
        return np.where(counts > 1, counts, 0).astype(np.int64)

    @cached_property
    def ncp(self) -> np.ndarray:
        """NCP of each node (§3.2): 0 when it covers one leaf, else |u_p| / |I|."""
        return self.ncp_units / self.n_leaves

    def nodes(self, labels: Iterable[str]) -> np.ndarray:
        """Node ids of ``labels``; -1 for a label that is not a node."""
        return np.fromiter(map(self.index.get, labels, repeat(-1)), dtype=np.int64)

    def is_ancestor_or_self(self, ancestor: np.ndarray, node: np.ndarray) -> np.ndarray:
        """Element by element, whether ``ancestor`` is ``node`` or above it (node ids,
        broadcast as numpy does)."""
        return (ancestor <= node) & (node < self.end[ancestor])

    @cached_property
    def ancestor_table(self) -> np.ndarray | None:
        """``ancestor_table[r, d]``: the ancestor at depth d of the leaf of rank r (``leaf_lo`` of
        the leaf; the leaf itself at its depth, -1 below it); None for a hierarchy of more than
        ``ANCESTOR_TABLE_LEVELS`` levels. Leaves times levels is small for the shallow
        hierarchies of real data, but 10,000 leaves under a chain of 20,000 one-child nodes would
        make it 800 MB, in a pass per level: :meth:`child_toward` then searches the edges."""
        if self.height + 1 > ANCESTOR_TABLE_LEVELS:
            return None
        node: np.ndarray = np.flatnonzero(self.is_leaf)
        table = np.full((len(node), self.height + 1), -1, dtype=np.int32)
        rows: np.ndarray = self.leaf_lo[node]
        while len(rows):
            table[rows, self.depth[node]] = node
            above = self.parent[node] >= 0
            rows, node = rows[above], self.parent[node[above]]
        return table

    @cached_property
    def _child_cells(self) -> np.ndarray:
        """For each node, the cell of the flat ancestor table one level below the root on the row
        of its leaf rank (``leaf_lo``), in ``id_dtype`` of the table's cells: the child toward a
        leaf of a node at depth d is that cell plus d."""
        table = self.ancestor_table
        assert table is not None  # asked by child_toward only where there is a table
        return as_ids(self.leaf_lo * table.shape[1] + 1, table.size)

    @cached_property
    def child_keys(self) -> np.ndarray:
        """``parent * len(self) + child`` for every non-root node, in the order of ``children``
        (by parent, then preorder): sorted, for :meth:`child_toward`'s binary search."""
        return self.parent[self.children].astype(np.int64) * len(self) + self.children

    def child_toward(self, node: np.ndarray, leaf: np.ndarray) -> np.ndarray:
        """Element by element, the child of ``node`` whose subtree holds ``leaf`` (a descendant of
        ``node``): one lookup in the ancestor table where there is one, else, in preorder, the
        last child of ``node`` numbered at most ``leaf``, by a binary search over the edges
        (Partition takes 1.1-1.2 times as long searching on BMS-WebView-1/2, f = 5)."""
        table = self.ancestor_table
        if table is not None:
            # added up in the table's own index width, where int64 products and sums over every
            # occurrence were most of the time Partition took finding the children
            cells = self._child_cells[leaf]
            cells += self.depth[node]
            return table.ravel()[cells]
        keys = np.asarray(node, dtype=np.int64) * len(self) + leaf
        return self.children[np.searchsorted(self.child_keys, keys, side="right") - 1]

    @cached_property
    def child_rank(self) -> np.ndarray:
        """The position of each node among its siblings (0 for the root)."""
        rank = np.zeros(len(self), dtype=np.int64)
        rank[self.children] = np.arange(len(self.children)) - np.repeat(self.child_ptr[:-1], np.diff(self.child_ptr))
        return rank

    def leaf_nodes(self, window: Window, data: str | None = None) -> np.ndarray:
        """The leaf node of every item id of ``window``'s vocabulary (-1 for items that are no node).

        Raises :class:`InputError` when an item occurring in the window is not a leaf; the message
        gives counts and the position of the first transaction holding one (of ``data``, the file
        the window was read from, when given), never labels.
        """
        nodes = self.nodes(window.vocab.labels)
        present = np.zeros(len(nodes), dtype=bool)  # not window.supports: a shared vocabulary may have grown
        present[window.indices] = True
        missing = nodes < 0
        inner_node = (nodes >= 0) & ~self.is_leaf[np.maximum(nodes, 0)]
        for wrong, one, many in ((missing, "is not in the hierarchy", "are not in the hierarchy"),
                                 (inner_node, "is an inner node of the hierarchy, not a leaf",
                                  "are inner nodes of the hierarchy, not leaves")):
            count = int((present & wrong).sum())
            if count:
                # a position counted from 0, as a rejected window names its transactions
                first = int(window.owners()[np.flatnonzero(wrong[window.indices])[0]])
                if wrong is missing:
                    labels = window.vocab.labels
                    lines = self._lines_spelling([labels[item] for item in np.flatnonzero(present & missing)],
                                                 {labels[item] for item in np.flatnonzero(present)})
                    hint = _spelt_otherwise(lines, count)
                else:
                    hint = self._children_lines(nodes[present & inner_node], count)
                raise InputError(self.source, f"{counted(count, 'item')} of {data or 'the data'} "
                                 f"{one if count == 1 else many}; the first in transaction {first} (counted from 0)"
                                 f"{hint}")
        return nodes

    def _children_lines(self, inner: np.ndarray, count: int) -> str:
        """What :meth:`leaf_nodes` adds to its message for ``count`` items of the data that are the
        ``inner`` nodes: the lines of :attr:`source` that give each its first child, which a file of
        thousands of lines leaves the analyst to search for otherwise."""
        if self.node_lines is None:
            return ""
        lines = sorted(set(self.node_lines[inner + 1].tolist()) - {0})  # in preorder a first child follows its parent
        if not lines:
            return ""
        shown = first_lines(lines)
        if count == 1:
            return f"; line {shown} of the hierarchy gives it a child"
        return f"; {'line' if len(lines) == 1 else 'lines'} {shown} of the hierarchy give such items children"

    def _lines_spelling(self, missing: list[str], held: set[str]) -> list[int]:
        """The lines of :attr:`source` that give a node a label which one of the ``missing`` items
        folds like (:func:`folded`, or :func:`turkic_folded` with the same fold of the other) and
        which the data does not hold itself (``held``: ``Ca`` and ``CA`` may be two items on
        purpose), sorted. An analyst's file that spells ``HIV`` as ``hiv``, or pastes a
        zero-width space into it, was refused only as lacking the item, though its line is the
        one to mend."""
        if self.node_lines is None:
            return []
        folds, turkic_folds = set(map(folded, missing)), set(map(turkic_folded, missing))
        lines = {int(self.node_lines[node]) for node, label in enumerate(self.labels)
                 if (folded(label) in folds or turkic_folded(label) in turkic_folds) and label not in held}
        return sorted(lines - {0})

    def inner_labels_above(self, window: Window) -> list[str]:
        """The labels of the inner nodes above ``window``'s items, in preorder: the labels a
        generalized release of it may hold besides its own items."""
        leaves = self.leaf_nodes(window)[np.unique(window.indices)]
        held = np.zeros(self.n_leaves + 1, dtype=np.int64)
        held[self.leaf_lo[leaves] + 1] = 1
        np.cumsum(held, out=held)
        above = (held[self.leaf_hi] > held[self.leaf_lo]) & ~self.is_leaf
        return [self.labels[node] for node in np.flatnonzero(above)]

    def __repr__(self) -> str:
        return f"Hierarchy({len(self)} nodes, {self.n_leaves} leaves, height {self.height})"


def _spelt_otherwise(lines: list[int], count: int) -> str:
    """What :meth:`Hierarchy.leaf_nodes` adds to its message for the file's ``lines`` that spell
    ``count`` items missing from it otherwise: line numbers, never a label."""
    if not lines:
        return ""
    shown = first_lines(lines)
    one = len(lines) == 1
    which = "it" if count == 1 else "one of them" if one else "some of them"
    return (f"; {'line' if one else 'lines'} {shown} of the hierarchy {'spells' if one else 'spell'} {which} in "
            "another case, spacing, Unicode form or with an invisible character: write the data's spelling")


def _file_edges(path: str | os.PathLike) -> tuple[list[str], list[str], list[int]]:
    """The children, parents and line numbers of the edges of the hierarchy file ``path``: split
    over all its lines at once (:func:`_edges_at_once`), or line by line to name the first at
    fault."""
    text = read_utf8(path)
    return _edges_at_once(text) or _columns(_edges_of_lines(path, text))


def _columns(edges: Iterable[tuple[str, str, int]]) -> tuple[list[str], list[str], list[int]]:
    """The children, parents and lines of ``(child, parent, line)`` edges."""
    children, parents, lines = tuple(map(list, zip(*edges))) or ([], [], [])
    return children, parents, lines


def _edges_at_once(text: str) -> tuple[list[str], list[str], list[int]] | None:
    """The children, parents and line numbers of the edges of a hierarchy file's ``text``, split
    over all its lines at once, those with a quoted label one by one; None when a line is at
    fault, which :func:`_edges_of_lines` names."""
    stripped = list(map(str.strip, text.split("\n")))
    kept = np.fromiter(map(bool, stripped), dtype=bool, count=len(stripped))
    if "#" in text:
        kept &= ~np.fromiter(map(methodcaller("startswith", "#"), stripped), dtype=bool, count=len(stripped))
    lines = list(compress(stripped, kept))
    quoted = np.zeros(len(lines), dtype=bool)
    if '"' in text:
        quoted = np.fromiter(map(methodcaller("__contains__", '"'), lines), dtype=bool, count=len(lines))
    bare = list(compress(lines, ~quoted))
    if (np.fromiter(map(methodcaller("count", ","), bare), dtype=np.int64, count=len(bare)) != 1).any():
        return None
    fields = list(map(str.strip, ",".join(bare).split(","))) if bare else []
    numbers = (np.flatnonzero(kept) + 1).tolist()
    if not quoted.any():
        return (fields[0::2], fields[1::2], numbers) if _labels_fit(fields) else None
    try:
        pairs = [split_fields(line) for line in compress(lines, quoted)]
    except LabelSyntaxError:
        return None
    if set(map(len, pairs)) != {2} or not _labels_fit(fields + list(chain.from_iterable(pairs))):
        return None
    table = np.empty((len(lines), 2), dtype=object)
    table[~quoted] = np.array(fields, dtype=object).reshape(-1, 2)
    table[quoted] = pairs
    return table[:, 0].tolist(), table[:, 1].tolist(), numbers


def _labels_fit(labels: list[str]) -> bool:
    """Whether none of a file's ``labels`` is empty or longer than an item's."""
    return "" not in labels and max(map(len, labels), default=0) <= MAX_LABEL_LENGTH


def _edges_of_lines(path: str | os.PathLike, text: str) -> list[tuple[str, str, int]]:
    """The ``(child, parent, line)`` edges of a hierarchy file's ``text``, read line by line;
    :class:`InputError` names the first line at fault."""
    edges = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            fields = split_fields(stripped)
        except LabelSyntaxError as exc:
            raise InputError(path, str(exc), number) from None
        if len(fields) > 2:
            # a hand-written 'Diabetes, type 2,Metabolic' was refused with no word of the comma
            raise InputError(path, f"expected one edge 'child,parent', found {len(fields)} fields; a label that holds "
                             'a comma is written as a JSON string ("Smith, John")', number)
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise InputError(path, "expected one edge 'child,parent'", number)
        for position, label in enumerate(fields, start=1):
            # a node generalizes items into a release, which no reader would take back with a
            # label longer than an item's (QA: verify refused such a release of anonymize)
            if len(label) > MAX_LABEL_LENGTH:
                raise InputError(path, f"field {position} is longer than {MAX_LABEL_LENGTH} characters", number)
        edges.append((fields[0], fields[1], number))
    return edges


def _cyclic(up: np.ndarray) -> bool:
    """Whether following ``up`` (each node's parent, -1 at a root) from some node never reaches a
    root, by pointer jumping: every path from a node to its root is halved a pass, so one longer
    than the nodes, a cycle, is left after as many passes as the count of nodes has bits."""
    jump = np.where(up < 0, np.arange(len(up)), up)
    for _ in range(len(up).bit_length()):
        further = jump[jump]
        if (further == jump).all():
            break
        jump = further
    return bool((up[jump] >= 0).any())


def _edge_error(children: list[str], parents: list[str], lines: list[int], source: str | None) -> InputError:
    """The error of the first edge at fault, taking the edges in order: a node that is its own
    parent, a child given a parent again, or an edge that closes a cycle."""
    parent_of: dict[str, tuple[str, int]] = {}
    trees: dict[str, str] = {}
    for child, parent, line in zip(children, parents, lines):
        if child == parent:
            return InputError(source, "the child is its own parent (a cycle)", line)
        if child in parent_of:
            other, other_line = parent_of[child]
            if other == parent:
                return InputError(source, f"the edge is repeated (first on line {other_line})", line)
            return InputError(source, f"the child has two parents: another one on line {other_line}", line)
        # Every node has at most one parent, so the edges so far form a forest in which the
        # child, parentless until now, is the root of its tree: the edge closes a cycle exactly
        # when the parent is in that tree, and this is the line to blame.
        top, above = _tree_of(trees, child), _tree_of(trees, parent)
        if top == above:
            return InputError(source, "the edge closes a cycle: the parent is below the child", line)
        trees[top] = above
        parent_of[child] = (parent, line)
    raise AssertionError("no edge at fault")


def _roots_error(parent: np.ndarray, lines: list[int], source: str | None) -> InputError:
    """The error of several roots, the nodes ``len(parent)`` on (``parent`` holds each edge's),
    naming the first two by the line of their first edge, in the order of those lines."""
    edges = len(parent)
    first = np.full(int(parent.max()) + 1, edges, dtype=np.int64)
    np.minimum.at(first, parent, np.arange(edges))
    first = first[edges:]
    ranked = first[np.lexsort((first, np.asarray(lines)[first]))]
    # A CSV header ('child,parent') is read as an edge of its own: its parent is the extra root
    # (a node from ``edges`` on, no edge's child), with that one child, which has none. Only when
    # that leaves one root does it explain the file; the hint states what is true of a real edge
    # placed there as well.
    opening = int(np.argmin(lines))
    header = ""
    if (len(first) == 2 and parent[opening] >= edges and np.count_nonzero(parent == parent[opening]) == 1
            and not (parent == opening).any()):
        header = f" (line {lines[opening]} shares no label with any other line: a header? a hierarchy file has none)"
    return InputError(
        source,
        f"{len(first)} roots: the parent on line {lines[ranked[0]]} and the one on this line have no parent; "
        f"a hierarchy has one root{header}",
        lines[ranked[1]],
    )


def _preorder(up: np.ndarray, parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of the tree ``up`` (each node's parent, -1 at the one root) in preorder, and each
    one's parent as a preorder position; a node's children in the order of their edges
    (``parent``, edge i's child being node i). Each node is linked to the next in preorder, its
    first child, or else the next sibling of its nearest ancestor-or-self that has one, and the
    list is ranked by pointer jumping: as many passes as the count of nodes has bits, however
    deep the tree, where a walk took a Python step a node."""
    n = len(up)
    kids = np.argsort(parent, kind="stable")
    grouped = parent[kids]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    first_child = np.full(n, -1, dtype=np.int64)
    first_child[grouped[starts]] = kids[starts]
    # node n stands for the end of the list: the next sibling of the root, and of the nodes that have none
    next_sibling = np.full(n + 1, n, dtype=np.int64)
    same = grouped[1:] == grouped[:-1]
    next_sibling[kids[:-1][same]] = kids[1:][same]
    has_next = next_sibling < n
    has_next[n] = True
    climb = np.where(has_next[:n], np.arange(n), np.where(up < 0, n, up))
    climb = np.append(climb, n)
    while not has_next[climb].all():
        climb = np.where(has_next[climb], climb, climb[climb])
    following = np.where(first_child >= 0, first_child, next_sibling[climb[:n]])
    following = np.append(following, n)
    to_end = np.ones(n + 1, dtype=np.int64)
    to_end[n] = 0
    for _ in range(n.bit_length()):
        to_end += to_end[following]
        following = following[following]
    position = n - to_end[:n]
    order = np.empty(n, dtype=np.int64)
    order[position] = np.arange(n)
    above = up[order]
    return order, np.where(above < 0, -1, position[np.maximum(above, 0)])


def _tree_of(trees: dict[str, str], node: str) -> str:
    """The node that stands for ``node``'s tree in ``trees`` (union-find, halving paths as it goes)."""
    while (above := trees.get(node, node)) != node:
        trees[node] = node = trees.get(above, above)
    return node

