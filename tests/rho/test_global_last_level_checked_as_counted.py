"""Global suppression reads nothing of a buffer's last level but its unsafe rules, so the buffer
finds them a slice of covers at a time as it counts the level and keeps no cover of it; and a
parent's cover that no deletion reached is expanded as it is, not copied. On dense data
(connect's first 10,000 records) the first buffer's 23.5 million cover rows of 4 items, held
twice as their slices were joined, and then a copy of the parents' covers that global's
whole-type removals had left whole, set the suppressor's peak. These tests pin that the rules,
the levels and the runs are those of the straightforward computation: every cover held, the
rules counted over the whole level."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.share import Share
from setveil.plugins.rho import qids
from setveil.plugins.rho.policies import Global
from setveil.plugins.rho.qids import QidBuffer, unsafe_rules
from setveil.plugins.rho.suppressor import PartialSuppressor

from .test_algorithm import table_of

# dense records over 10 item types, 8 and 9 sensitive: buffers share most of their qids
DENSE_ROWS = st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=9, unique=True).map(sorted),
                      min_size=4, max_size=40)


def dense_table(rows):
    """The table of records drawn from DENSE_ROWS."""
    return table_of(rows, 10, (8, 9))


def buffers_of(table, per_buffer):
    rows = np.flatnonzero((table.nsens >= 1) & (table.length >= 3))
    return [rows[lo : lo + per_buffer] for lo in range(0, len(rows), per_buffer)]


def fill(table, buffer_rows, b_max, qid_size, share, known, removals, checked):
    """Fills a buffer to ``qid_size``, removing the item types ``removals`` pops before each
    level (as global suppression does between levels), and returns each level's free qids'
    unsafe rules: from the level when ``checked``, else counted over its covers."""
    buffer = QidBuffer(table, buffer_rows, b_max, known)
    level = buffer.singletons()
    found = []
    for size in range(2, qid_size + 1):
        if removals:
            victim = removals.pop()
            table.delete(victim, table.tidlist(victim))
        last = size == qid_size
        level = buffer.extend(level, last=last, share=share if checked else None)
        if level is None:
            break
        if level.rules is not None:
            assert last and size >= 3
            rules = level.rules
            # the level holds no cover: every range empty
            assert len(level.cover_rows) == 0 and not level.cover_ptr.any()
        else:
            free = np.flatnonzero(level.free)
            rules = unsafe_rules(table, level.sets, level.sup, level.cover_ptr, level.cover_rows,
                                 free[level.counted[free]], share, b_max)
        fields = tuple(getattr(level, name).tolist() for name in ("sets", "keys", "sup", "free", "counted", "order"))
        found.append((size, fields, tuple(part.tolist() for part in rules)))
    return found


@settings(max_examples=120, deadline=None)
@given(rows=DENSE_ROWS, rho=st.sampled_from([0.3, 0.5, 0.7]), b_max=st.sampled_from([1, 3, 10, 1_000_000]),
       qid_size=st.integers(3, 5), per_buffer=st.sampled_from([1, 3, 100]), remember=st.booleans(),
       removals=st.lists(st.integers(0, 9), max_size=3, unique=True))
def test_a_last_level_checked_as_counted_gives_the_rules_of_its_covers(rows, rho, b_max, qid_size, per_buffer,
                                                                       remember, removals):
    share = Share.of(rho)
    results = []
    for checked in (False, True):
        table = dense_table(rows)
        known = {} if remember else None
        results.append([fill(table, buffer_rows, b_max, qid_size, share, known, list(removals), checked)
                        for buffer_rows in buffers_of(table, per_buffer)])
    assert results[0] == results[1]


def test_a_last_level_of_many_slices_has_rules_from_both_kinds_of_cover():
    # one buffer after another remembering supports: a later buffer counts some candidates from
    # their parents' covers and others, whose subsets an earlier buffer counted, from tidlists
    rng = np.random.default_rng(7)
    rows = [sorted(rng.choice(10, size=int(rng.integers(5, 9)), replace=False).tolist()) for _ in range(80)]
    share = Share.of(0.3)
    results, sliced = [], []
    for checked in (False, True):
        table = dense_table(rows)
        known: dict = {}
        results.append([fill(table, buffer_rows, 2, 4, share, known, [], checked)
                        for buffer_rows in buffers_of(table, 10)])
    assert results[0] == results[1]
    last = [rules for buffer in results[1] for size, _, rules in buffer if size == 4]
    assert sum(len(qid) for qid, _, _ in last) > 10
    # a slice of 2 rows (b_max) holds one candidate's cover or two: the level was checked in many
    table = dense_table(rows)
    buffer = QidBuffer(table, buffers_of(table, 10)[0], 2, {})
    check_slice = buffer._check_slice

    def spy(lo, hi, sup, below, owner, rows):
        sliced.append(len(rows))
        return check_slice(lo, hi, sup, below, owner, rows)

    buffer._check_slice = spy
    level = buffer.singletons()
    for size in (2, 3, 4):
        level = buffer.extend(level, last=size == 4, share=share)
    assert len(sliced) > 10 and len(level.cover_rows) == 0


def run_global(rows, rho, b_max, qid_size, seed, checked):
    with pytest.MonkeyPatch.context() as monkeypatch:
        if not checked:
            # the last level counted with every cover held, its rules counted over them after
            extend = QidBuffer.extend
            monkeypatch.setattr(QidBuffer, "extend",
                                lambda self, prev, last=False, share=None: extend(self, prev, last))
        table = dense_table(rows)
        suppressor = PartialSuppressor(table, Global(), rho, qid_size, b_max, np.random.default_rng(seed))
        stats = suppressor.run()
    stats.pop("seconds")
    return table.alive.tolist(), suppressor.suppressed_types, stats


@settings(max_examples=60, deadline=None)
@given(rows=DENSE_ROWS, rho=st.sampled_from([0.3, 0.5, 0.7, 0.9]), b_max=st.sampled_from([1, 3, 10, 1_000_000]),
       qid_size=st.integers(2, 5), seed=st.integers(0, 3))
def test_global_removes_the_types_it_removed_with_every_cover_held(rows, rho, b_max, qid_size, seed):
    assert run_global(rows, rho, b_max, qid_size, seed, True) == run_global(rows, rho, b_max, qid_size, seed, False)


@settings(max_examples=120, deadline=None)
@given(rows=DENSE_ROWS, b_max=st.sampled_from([1, 3, 10, 1_000_000]), data=st.data())
def test_current_covers_are_the_parents_covers_as_of_now(rows, b_max, data):
    # the triples' covers after deletions of whole types, of single occurrences, or of none
    table = dense_table(rows)
    buffer = QidBuffer(table, np.flatnonzero(table.nsens >= 1), b_max)
    pairs = buffer.extend(buffer.singletons())
    triples = pairs and buffer.extend(pairs)
    if triples is None or len(triples.sets) == 0:
        return
    kind = data.draw(st.sampled_from(["none", "types", "occurrences"]))
    if kind == "types":
        for victim in data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=3, unique=True)):
            table.delete(victim, table.tidlist(victim))
    elif kind == "occurrences":
        alive = [(x, r) for r, row in enumerate(rows) for x in row]
        for x, r in data.draw(st.lists(st.sampled_from(alive), min_size=1, max_size=6, unique=True)):
            table.delete_one(x, r)
    used = np.array(sorted(data.draw(st.sets(st.integers(0, len(triples.sets) - 1), min_size=1))), dtype=np.int64)
    current = buffer._current_covers(triples, used)
    expected = [table.holding(triples.sets[q], triples.cover(q)).tolist() for q in used.tolist()]
    if current is None:
        # no deletion reached them: their covers as of generation are current
        assert expected == [triples.cover(q).tolist() for q in used.tolist()]
    else:
        cover_ptr, cover_rows = current
        assert [cover_rows[cover_ptr[i] : cover_ptr[i + 1]].tolist() for i in range(len(used))] == expected
        assert expected != [triples.cover(q).tolist() for q in used.tolist()]


def test_a_cover_no_deletion_reached_is_not_copied():
    rows = [[0, 1, 2, 8], [0, 1, 2, 9], [0, 1, 3, 8], [0, 2, 3, 9], [1, 2, 3, 8], [0, 1, 2, 3, 9], [4, 5, 9]]
    table = dense_table(rows)
    buffer = QidBuffer(table, np.flatnonzero(table.nsens >= 1), 1_000_000)
    triples = buffer.extend(buffer.extend(buffer.singletons()))
    at = {tuple(s): i for i, s in enumerate(triples.sets.tolist())}
    # removing item 4 everywhere changes no cover of a triple of 0-3
    table.delete(4, table.tidlist(4))
    assert buffer._current_covers(triples, np.array([at[(0, 1, 2)], at[(1, 2, 3)]])) is None
    # removing item 3 from record 5 changes the cover of (1, 2, 3) but not that of (0, 1, 2)
    table.delete_one(3, 5)
    cover_ptr, cover_rows = buffer._current_covers(triples, np.array([at[(0, 1, 2)], at[(1, 2, 3)]]))
    assert cover_ptr.tolist() == [0, 3, 4] and cover_rows.tolist() == [0, 1, 5, 4]


def test_the_suppressor_reads_globals_last_level_from_its_rules(monkeypatch):
    seen = []
    extend = QidBuffer.extend

    def spy(self, prev, last=False, share=None):
        level = extend(self, prev, last, share)
        seen.append((prev.size + 1, last, level is not None and level.rules is not None))
        return level

    monkeypatch.setattr(qids.QidBuffer, "extend", spy)
    rng = np.random.default_rng(3)
    rows = [sorted(rng.choice(10, size=6, replace=False).tolist()) for _ in range(30)]
    PartialSuppressor(dense_table(rows), Global(), 0.9, 4, 1_000_000, np.random.default_rng(0)).run()
    assert (4, True, True) in seen and not any(checked for size, _, checked in seen if size < 4)
