"""He & Naughton's worked examples reproduced exactly: Table 1 (Example 1: 2^2- but not 2-anonymous,
NCP 1/3), Table 2 and Example 2 (Partition's local recoding round by round, the gains 3/17 and
2/17), Table 2's global 2^2 column by AA and its optimal global 2-anonymity column."""

import itertools

import numpy as np
import pytest

from setveil.core.model import Context
from setveil.core.ncp import ncp
from setveil.core.plugins import get_registry
from setveil.core.window import Window
from setveil.plugins.partition import Partition
from setveil.plugins.partition.apriori import GlobalCut
from setveil.plugins.partition.checker import kanonymity_violations, km_violations
from setveil.plugins.partition.recoding import LeafWindow

from .examples import FIGURE_1, FIGURE_2, TABLE_1A, TABLE_1B, TABLE_2, as_sets, hierarchy, window


def run(model, params, edges, rows):
    configured = get_registry().configure(model, None, params, Context(hierarchy=hierarchy(edges)))
    original = window(rows)
    release = configured.model.anonymize(original, configured.policy, np.random.default_rng(0)).window
    assert not list(configured.model.violations(original, release))
    return configured.model, original, release


def test_table_1_ncp_is_one_third():
    original, release = window(TABLE_1A), window(TABLE_1B)
    assert ncp(original, release, hierarchy(FIGURE_1)) == pytest.approx(1 / 3)


def test_partition_makes_table_1b_from_table_1a():
    model, original, release = run("kanonymity", {"k": "2"}, FIGURE_1, TABLE_1A)
    assert as_sets(release) == [frozenset(row) for row in TABLE_1B]
    assert model.information_loss(original, release) == pytest.approx(1 / 3)


def test_partition_reproduces_the_local_recoding_column_of_table_2():
    rows = [original for original, _, _ in TABLE_2.values()]
    model, original, release = run("kanonymity", {"k": "2"}, FIGURE_2, rows)
    assert as_sets(release) == [frozenset(local) for _, local, _ in TABLE_2.values()]
    # T1 1/2, T2 1/2 + 1/2, T5 and T6 1/2, T7 1/2 + 1/2 over 17 occurrences
    assert model.information_loss(original, release) == pytest.approx(3.5 / 17)


def test_aa_reproduces_the_global_2_2_column_of_table_2():
    rows = [original for original, _, _ in TABLE_2.values()]
    _, _, release = run("km-anonymity", {"k": "2", "m": "2"}, FIGURE_2, rows)
    assert as_sets(release) == [frozenset(glob) for _, _, glob in TABLE_2.values()]


def test_a_round_of_aa_that_changes_no_cut_node_fails_rather_than_loops(monkeypatch):
    # Regression (QA mutants of the merge and touched marks): the same failing pairs of Table 2
    # were found again after every round that fixed nothing, hanging the window
    monkeypatch.setattr(GlobalCut, "fix", lambda self, itemset, k: None)
    rows = [original for original, _, _ in TABLE_2.values()]
    with pytest.raises(RuntimeError, match="a round fixing 2 failing 2-itemsets changed no cut node"):
        run("km-anonymity", {"k": "2", "m": "2"}, FIGURE_2, rows)


def test_aa_on_table_2_counts_its_rounds_subsets_and_cut_nodes():
    # k = 2, m = 5 (past the longest transaction). Size 1: every item is held at least 3 times.
    # Size 2: a1b1 and a2b1 are held once (T7); a1b1 first makes b1 -> B, then a2B is held 3
    # times: one round, one generalization. Size 3: a1a2B is held 3 times, and no generalized
    # transaction has 4 labels, so AA stops there. Subsets counted: 17 occurrences; 15 pairs of
    # the original, 10 of the generalized transactions; 3 triples. The window is released as a1,
    # a2 and B; B covers the 8 occurrences of b1 and b2.
    rows = [original for original, _, _ in TABLE_2.values()]
    configured = get_registry().configure("km-anonymity", None, {"k": "2", "m": "5"}, Context(hierarchy=hierarchy(FIGURE_2)))
    release = configured.model.anonymize(window(rows), configured.policy, np.random.default_rng(0))
    assert as_sets(release.window) == [frozenset(glob) for _, _, glob in TABLE_2.values()]
    stats = {key: value for key, value in release.stats.items() if not key.endswith("_seconds")}
    assert stats == {"aa_rounds_by_size": {"1": 0, "2": 1, "3": 0}, "aa_generalizations": 1, "aa_subsets_counted": 45,
                     "aa_cut_nodes": 3, "hierarchy_nodes": 7, "hierarchy_height": 2, "generalized_occurrences": 8}


@pytest.mark.parametrize("model, params", [("kanonymity", {"k": "2"}), ("km-anonymity", {"k": "2", "m": "2"})])
def test_a_release_adds_the_inner_labels_to_a_copy_of_the_windows_vocabulary(model, params):
    # Recoding.release interns A and B (Partition) or B (AA) for Table 2's release; the window
    # handed to the model keeps its own four leaves. Mutation testing: interning into the window's
    # vocabulary passed every test, and grew the caller's window
    configured = get_registry().configure(model, None, params, Context(hierarchy=hierarchy(FIGURE_2)))
    original = window([original for original, _, _ in TABLE_2.values()])
    release = configured.model.anonymize(original, configured.policy, np.random.default_rng(0)).window
    assert original.vocab.labels == ("a1", "a2", "b1", "b2")
    assert "B" in release.vocab


@pytest.mark.parametrize("model, params", [("kanonymity", {"k": "2"}), ("km-anonymity", {"k": "2", "m": "2"})])
def test_a_release_keeps_the_windows_tids(model, params):
    # transaction i of the release is transaction i of the window, under its tid. Mutation
    # testing: a release without tids passed every test
    configured = get_registry().configure(model, None, params, Context(hierarchy=hierarchy(FIGURE_2)))
    original = Window.from_transactions([original for original, _, _ in TABLE_2.values()], tids=list(TABLE_2))
    release = configured.model.anonymize(original, configured.policy, np.random.default_rng(0)).window
    assert release.tids == ["T1", "T2", "T3", "T4", "T5", "T6", "T7"]


class RecordingPartition(Partition):
    """Algorithm 1 with pick_node observed: a third party's variant overrides only pick_node."""

    name = "recording"
    calls: list

    def pick_node(self, partitions, nodes, gains):
        self.calls.append((partitions.copy(), nodes.copy(), gains.copy()))
        return super().pick_node(partitions, nodes, gains)


def test_example_2_gains_and_the_choice_of_node_a():
    h = hierarchy(FIGURE_2)
    rows = [original for original, _, _ in TABLE_2.values()]
    policy = RecordingPartition()
    policy.calls = []
    original = window(rows)
    recoding = policy.recode(LeafWindow.of(original, h), h, 2, np.random.default_rng(0))
    assert as_sets(recoding.release(original, h)) == [frozenset(local) for _, local, _ in TABLE_2.values()]
    # Round 1 has one choice, ALL -> {A, B}; in round 2 partition P_{A,B} weighs A against B.
    offered: dict[int, dict[str, float]] = {}
    for part, node, gain in zip(*policy.calls[1]):
        offered.setdefault(int(part), {})[h.labels[node]] = gain
    (choice,) = [gains for gains in offered.values() if set(gains) == {"A", "B"}]
    total = original.n_occurrences
    # gains are in units of 1/|I|; Example 2 normalizes by the 17 occurrences
    assert choice["A"] / h.n_leaves / total == pytest.approx(3 / 17)
    assert choice["B"] / h.n_leaves / total == pytest.approx(2 / 17)


class LazyPartition(Partition):
    name = "lazy"

    def pick_node(self, partitions, nodes, gains):
        return super().pick_node(partitions, nodes, gains)[:1]


def test_a_pick_node_that_skips_a_partition_is_refused_not_looped():
    h = hierarchy(FIGURE_2)
    original = window([original for original, _, _ in TABLE_2.values()])
    with pytest.raises(ValueError, match="one candidate row per partition"):
        LazyPartition().recode(LeafWindow.of(original, h), h, 2, np.random.default_rng(0))


class RepeatingPartition(Partition):
    """Names the first partition twice in place of the second, once: as many rows as partitions."""

    name = "repeating"
    repeated = False

    def pick_node(self, partitions, nodes, gains):
        rows = super().pick_node(partitions, nodes, gains)
        if len(rows) > 1 and not self.repeated:
            self.repeated = True
            rows = np.concatenate([rows[:1], rows[:1], rows[2:]])
        return rows


def test_a_pick_node_that_names_a_partition_twice_is_refused():
    # mutation pass: counting the rows alone let the second partition of Example 2's round 2 go
    # unexpanded; a pick_node doing so every round would loop for ever
    h = hierarchy(FIGURE_2)
    original = window([original for original, _, _ in TABLE_2.values()])
    with pytest.raises(ValueError, match="one candidate row per partition"):
        RepeatingPartition().recode(LeafWindow.of(original, h), h, 2, np.random.default_rng(0))

# Example 1 (§3.1): "the original dataset in Table 1a actually satisfies 2²-anonymity" and "is not 2-anonymous".
def test_example_1_table_1a_is_2_2_anonymous_but_not_2_anonymous():
    original = window(TABLE_1A)
    assert list(km_violations(original, 2, 1)) == [] and list(km_violations(original, 2, 2)) == []
    assert list(kanonymity_violations(original, 2)) != []
    # "the adversary later learns that Dan bought wine also": {Beer, Wine, Diapers} singles out T_4
    (violation,) = km_violations(original, 2, 3)
    assert set(violation.itemset) == {"Beer", "Wine", "Diapers"}


# Example 1 (§3.1): with T_5 identical to T_4 the database "is 2^m-anonymous for any m ... but not 2-anonymous".
def test_example_1_with_t5_is_2_m_anonymous_for_every_m_but_not_2_anonymous():
    rows = TABLE_1A + [["Beer", "Wine", "Diapers", "Pregnancy Test"]]
    assert sorted(rows[4]) == sorted(rows[3])
    extended = window(rows)
    for m in range(1, max(len(row) for row in rows) + 2):
        assert list(km_violations(extended, 2, m)) == [], m
    # "not 2-anonymous due to T_1, T_2 and T_3"
    assert sorted(v.transaction for v in kanonymity_violations(extended, 2)) == [0, 1, 2]


# Table 2, last column "Global Recoding (2-anonymity)" for T_1..T_7 (§4.1, after Example 2).
GLOBAL_2_ANONYMITY = [["A"], ["A"], ["B"], ["B"], ["A", "B"], ["A", "B"], ["A", "B"]]


def global_cuts(h, node=0):
    """Every hierarchy cut under ``node``: the node itself, or one cut under each of its children."""
    yield (node,)
    children = h.children[h.child_ptr[node] : h.child_ptr[node + 1]].tolist()
    if children:
        for parts in itertools.product(*(list(global_cuts(h, child)) for child in children)):
            yield tuple(n for part in parts for n in part)


def global_release(original, h, cut):
    cut = np.array(cut)
    rows = [sorted({h.labels[c] for leaf in h.nodes(row) for c in cut[h.is_ancestor_or_self(cut, leaf)]})
            for row in original]
    return Window.from_transactions(rows, vocab=original.vocab.copy())


# Table 2 / §4.1: "The optimal global recoding using 2-anonymity is presented in the last column of Table 2".
def test_table_2_global_2_anonymity_column_is_the_optimal_global_cut():
    h = hierarchy(FIGURE_2)
    original = window([original for original, _, _ in TABLE_2.values()])
    cuts = {frozenset(h.labels[n] for n in cut): global_release(original, h, cut) for cut in global_cuts(h)}
    assert len(cuts) == 5  # {ALL}, {A, B}, {a1, a2, B}, {A, b1, b2}, the leaves
    anonymous = {cut: ncp(original, release, h) for cut, release in cuts.items()
                 if not list(kanonymity_violations(release, 2))}
    assert anonymous == {frozenset({"ALL"}): 1.0, frozenset({"A", "B"}): 0.5}
    best = cuts[frozenset({"A", "B"})]
    assert as_sets(best) == [frozenset(row) for row in GLOBAL_2_ANONYMITY]
    configured = get_registry().configure("kanonymity", None, {"k": "2"}, Context(hierarchy=h))
    assert list(configured.model.violations(original, best)) == []
    # the local recoding of Partition beats it (NCP 3.5/17 < 1/2)
    local = Window.from_transactions([row for _, row, _ in TABLE_2.values()], vocab=original.vocab.copy())
    assert ncp(original, local, h) == pytest.approx(3.5 / 17) and ncp(original, local, h) < 0.5


# Example 2 (§4.1): ALL -> three buckets P{A}, P{B}, P{A,B}; P{A}'s split fails; P{a1,a2,B} fails on B.
def test_example_2_partitions_round_by_round():
    h = hierarchy(FIGURE_2)
    policy = RecordingPartition()
    policy.calls = []
    original = window([original for original, _, _ in TABLE_2.values()])
    recoding = policy.recode(LeafWindow.of(original, h), h, 2, np.random.default_rng(0))
    total = h.n_leaves * original.n_occurrences

    def offered(call):
        """Per open partition, the nodes pick_node may expand and their gains as fractions of NCP(D)."""
        out: dict[int, dict[str, float]] = {}
        for part, node, gain in zip(*call):
            out.setdefault(int(part), {})[h.labels[node]] = gain / total
        return sorted(out.values(), key=sorted)

    # Round 1: one partition, one choice, ALL -> {A, B}.
    assert [list(g) for g in offered(policy.calls[0])] == [["ALL"]]
    # Round 2: three buckets of >= 2 transactions: P{A} = T1, T2 (3 items under A), P{B} = T3, T4
    # (4 under B), P{A,B} = T5-T7 weighing A (3/17) against B (2/17).
    assert offered(policy.calls[1]) == [
        {"A": pytest.approx(3 * 2 / 4 / 17)},
        {"A": pytest.approx(3 / 17), "B": pytest.approx(2 / 17)},
        {"B": pytest.approx(4 * 2 / 4 / 17)},
    ]
    # Round 3: {A} -> {a1, a2} failed for P{A} (rolled back, nothing left to expand) and P{b1,b2}
    # is at leaf level; only P{a1,a2,B} remains, with the one choice B -> {b1, b2}.
    assert offered(policy.calls[2]) == [{"B": pytest.approx((1 + 1 + 2) * 2 / 4 / 17)}]
    # That split fails too (T7 alone, T5 and T6 cannot spare one): no round 4, B is kept.
    assert len(policy.calls) == 3
    assert recoding.stats["equivalence_classes"] == 3
    assert as_sets(recoding.release(original, h)) == [frozenset(local) for _, local, _ in TABLE_2.values()]
