"""Under global suppression a qid's support is counted once per run, not once per buffer.

Every deletion of a global policy removes an item type from the whole table, so an itemset the
table still holds keeps its T0 support and cover all run, and a qid whose level was settled in
an earlier buffer stays safe. The suppressor hands each buffer the supports counted so far
(plugins/rho/qids.py); these tests pin that this changes nothing the run decides (the same
release, removed types and report counts as counting every buffer afresh) and that each
candidate is counted once (connect's buffers, about one per thousand records, each counted
every qid's cover over the whole window again, a cost in the square of the window).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.plugins.rho import qids
from setveil.plugins.rho.policies import Global
from setveil.plugins.rho.suppressor import PartialSuppressor

from .test_algorithm import table_of


def run_global(rows, n_items, sensitive, rho, b_max, qid_size, seed, remember):
    table = table_of(rows, n_items, sensitive)
    suppressor = PartialSuppressor(table, Global(), rho, qid_size, b_max, np.random.default_rng(seed))
    if not remember:
        suppressor.known = None  # every buffer counts its candidates afresh, as mine and dist do
    stats = suppressor.run()
    stats.pop("seconds")
    return table.alive.copy(), list(suppressor.suppressed_types), stats


class CountingBuffer(qids.QidBuffer):
    """A QidBuffer that tallies the candidates whose supports it counts, by size."""

    tally: dict[int, list] = {}

    def _count_pairs(self, keys, sets):
        self.tally.setdefault(2, []).extend(keys.tolist())
        return super()._count_pairs(keys, sets)

    def _count(self, prev, parent, missing, below):
        self.tally.setdefault(prev.size + 1, []).extend(
            map(tuple, np.sort(np.column_stack([prev.sets[parent], missing]), axis=1).tolist()))
        return super()._count(prev, parent, missing, below)

    def _count_items(self, sets, below):
        self.tally.setdefault(sets.shape[1], []).extend(map(tuple, sets.tolist()))
        return super()._count_items(sets, below)


# dense records over 9 item types, 7 and 8 sensitive: many buffers share most of their qids
DENSE_ROWS = st.lists(st.lists(st.integers(0, 8), min_size=3, max_size=8, unique=True).map(sorted),
                      min_size=4, max_size=40)


@settings(max_examples=80, deadline=None)
@given(rows=DENSE_ROWS, rho=st.sampled_from([0.3, 0.5, 0.7, 0.9]), b_max=st.sampled_from([1, 3, 10, 1_000_000]),
       qid_size=st.integers(2, 5), seed=st.integers(0, 3))
def test_global_decides_as_it_would_counting_every_buffer_afresh(rows, rho, b_max, qid_size, seed):
    remembered = run_global(rows, 9, [7, 8], rho, b_max, qid_size, seed, remember=True)
    afresh = run_global(rows, 9, [7, 8], rho, b_max, qid_size, seed, remember=False)
    assert np.array_equal(remembered[0], afresh[0])
    assert remembered[1:] == afresh[1:]


def dense_rows(count, seed):
    rng = np.random.default_rng(seed)
    return [sorted(rng.choice(12, size=int(rng.integers(5, 9)), replace=False).tolist()) for _ in range(count)]


def test_each_candidate_is_counted_once_a_run(monkeypatch):
    rows = dense_rows(120, 1)
    monkeypatch.setattr("setveil.plugins.rho.suppressor.QidBuffer", CountingBuffer)
    monkeypatch.setattr(CountingBuffer, "tally", {})
    remembered = run_global(rows, 12, [10, 11], 0.9, 30, 4, 0, remember=True)
    once = CountingBuffer.tally
    monkeypatch.setattr(CountingBuffer, "tally", {})
    afresh = run_global(rows, 12, [10, 11], 0.9, 30, 4, 0, remember=False)
    assert remembered[2] == afresh[2] and remembered[2]["buffers"] > 10 and remembered[2]["passes"] == 2
    for size in (2, 3, 4):
        assert len(once[size]) == len(set(once[size])) > 0
        # counted afresh, each buffer counts again what the ones before it did
        assert set(CountingBuffer.tally[size]) == set(once[size])
        assert len(CountingBuffer.tally[size]) > 3 * len(once[size])


def test_a_new_qid_whose_subsets_an_earlier_buffer_counted_gets_its_exact_cover():
    # buffers of one record each (b_max 1): records 0-2 give the pairs of {0, 1, 2}, and record
    # 3, the first to hold all three, gives the triple, whose pairs have no cover in its buffer
    rows = [[0, 1, 9], [0, 2, 9], [1, 2, 9], [0, 1, 2, 9], [0, 1], [0, 2], [1, 2], [3, 9], [4, 9]]
    table = table_of(rows, 10, [9])
    known: dict = {}
    for buffer_rows in ([0], [1], [2], [3]):
        buffer = qids.QidBuffer(table, np.array(buffer_rows), 1, known)
        pairs = buffer.extend(buffer.singletons())
        triples = buffer.extend(pairs, last=True)
    assert pairs.sets.tolist() == [[0, 1], [0, 2], [1, 2]] and not pairs.counted.any()
    assert triples is not None and triples.sets.tolist() == [[0, 1, 2]] and triples.counted.tolist() == [True]
    assert triples.sup.tolist() == [1] and triples.cover(0).tolist() == [3]
    # a bound above every support keeps every cover
    sup, ptr, cover = buffer._count_items(np.array([[0, 1], [0, 9], [3, 9], [1, 2]]), np.full(4, 4))
    assert sup.tolist() == [3, 3, 1, 3]
    assert [cover[ptr[i] : ptr[i + 1]].tolist() for i in range(4)] == [[0, 3, 4], [0, 1, 3], [7], [2, 3, 6]]
