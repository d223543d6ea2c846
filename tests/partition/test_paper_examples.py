"""He & Naughton's worked examples reproduced exactly: Table 1 (Example 1, NCP 1/3), Table 2 and
Example 2 (Partition's local recoding, the gains 3/17 and 2/17), and Table 2's global 2^2 column by AA."""

import numpy as np
import pytest

from setveil.core.model import Context
from setveil.core.ncp import ncp
from setveil.core.plugins import get_registry
from setveil.plugins.partition import Partition
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
