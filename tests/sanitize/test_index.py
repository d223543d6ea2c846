"""The retrieval engine: sensitive transactions by Boolean AND over bitsets (§3.3), the
pattern -> transactions index and degrees of conflict (§4 Step 1)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.window import Window
from setveil.plugins.sanitize.index import sensitive_index
from setveil.plugins.sanitize.patterns import PatternTable, RestrictivePatterns

from .helpers import write_patterns


def test_worked_example_of_section_4(fig3, fig3_patterns):
    table = RestrictivePatterns.load(fig3_patterns).table(fig3.vocab)
    index = sensitive_index(fig3, table)
    assert index.of(0).tolist() == [0, 2]  # ABD: T1, T3
    assert index.of(1).tolist() == [0, 3]  # ACD: T1, T4
    assert index.sizes.tolist() == [2, 2]
    assert index.conflict.tolist() == [2, 0, 1, 1, 0, 0]
    assert fig3.supports.tolist() == [5, 5, 4, 4]


def test_many_words_and_chunks(monkeypatch):
    import setveil.plugins.sanitize.index as module

    rng = np.random.default_rng(3)
    rows = [[f"i{j}" for j in range(12) if rng.random() < 0.5] for _ in range(700)]
    window = Window.from_transactions(rows)
    ids = window.vocab.ids
    table = PatternTable(
        np.array([ids(["i0", "i1"]).tolist() + [-1], ids(["i2", "i3", "i4"]).tolist(), ids(["i5", "i6"]).tolist() + [-1]]),
        np.array([2, 3, 2]),
        np.arange(3),
    )
    whole = sensitive_index(window, table)
    monkeypatch.setattr(module, "CHUNK_BYTES", 8)
    monkeypatch.setattr(module, "POSITIONS_PER_SLICE", 100)
    chunked = sensitive_index(window, table)
    assert np.array_equal(whole.rows, chunked.rows) and np.array_equal(whole.indptr, chunked.indptr)
    conflict = np.zeros(len(window), dtype=np.int64)
    for r in range(3):
        items = set(table.row(r).tolist())
        expected = [t for t in range(len(window)) if items <= set(window.row(t).tolist())]
        assert whole.of(r).tolist() == expected
        conflict[expected] += 1
    # the degree of conflict counts every slice's patterns, not the last slice's alone (mutation review)
    assert whole.conflict.tolist() == chunked.conflict.tolist() == conflict.tolist()


def test_empty_window_and_no_patterns(tmp_path):
    patterns = RestrictivePatterns.load(write_patterns(tmp_path / "p.txt", "a b"))
    empty = Window.empty()
    index = sensitive_index(empty, patterns.table(empty.vocab))
    assert index.sizes.tolist() == [] and len(index.conflict) == 0


transactions = st.lists(st.lists(st.sampled_from("abcdefg"), unique=True, max_size=6), max_size=30)
pattern_lists = st.lists(st.lists(st.sampled_from("abcdefgh"), unique=True, min_size=2, max_size=4), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(rows=transactions, patterns=pattern_lists)
def test_index_matches_brute_force(tmp_path_factory, rows, patterns):
    unique = list(dict.fromkeys(frozenset(p) for p in patterns))
    path = write_patterns(tmp_path_factory.mktemp("p") / "p.txt", *(" ".join(sorted(p)) for p in unique))
    window = Window.from_transactions(rows)
    restrictive = RestrictivePatterns.load(path)
    table = restrictive.table(window.vocab)
    index = sensitive_index(window, table)
    conflict = np.zeros(len(window), dtype=int)
    for r, number in enumerate(table.number):
        pattern = set(restrictive.patterns[number])
        expected = [t for t, row in enumerate(rows) if pattern <= set(row)]
        assert index.of(r).tolist() == expected
        conflict[expected] += 1
    assert index.conflict.tolist() == conflict.tolist()


def test_the_index_of_the_held_patterns_is_the_index_built_from_them(tmp_path):
    window = Window.from_transactions([["a", "b"], ["a", "b", "c"], ["c", "d"], ["e"]])
    table = RestrictivePatterns.load(write_patterns(tmp_path / "p.txt", "a b", "d e", "c d", "a d")).table(window.vocab)
    held, index = sensitive_index(window, table).held()
    assert held.tolist() == [0, 2]
    rebuilt = sensitive_index(window, table.take(held))
    assert [index.of(r).tolist() for r in range(2)] == [rebuilt.of(r).tolist() for r in range(2)] == [[0, 1], [2]]
    assert index.conflict.tolist() == rebuilt.conflict.tolist()
