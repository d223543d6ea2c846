"""What a buffer holds while it counts a level after deletions: a level's instances once (only
those its records still hold), the current covers of the parents and nothing of the stale ones.
On dense data (connect's first 10,000 records) the items of every instance, its record, the
stale covers with their owners and a filtered copy of the instances beside the originals were
all held while the level of 4 items was counted, at the suppressor's peak. Measured with
tracemalloc, which sees numpy's arrays: deterministic, not timed."""

import tracemalloc

import numpy as np

from setveil.plugins.rho.qids import QidBuffer

from .test_algorithm import table_of

# Python's own bookkeeping between two readings (frames, small ints, a list or two)
SLACK = 16 * 1024


def dense_table(seed=3, n=600, n_items=14, length=10):
    """Records of ``length`` of ``n_items`` items, items 0 and 1 sensitive."""
    rng = np.random.default_rng(seed)
    return table_of([np.sort(rng.choice(n_items, size=length, replace=False)) for _ in range(n)], n_items, [0, 1])


class ReadingBuffer(QidBuffer):
    """A QidBuffer that reads the traced memory as extend and _count begin and as their work
    begins (the extensions' first slice, the covers' slices)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.readings = {"extend": [], "count": []}
        self._at = {}

    def extend(self, prev, last=False):
        self._at["extend"] = tracemalloc.get_traced_memory()[0]
        return super().extend(prev, last)

    def _extensions(self, prev, inst_row, inst_set, inst_pos):
        # read as the generator starts, before it makes its first slice
        self.readings["extend"].append((tracemalloc.get_traced_memory()[0] - self._at["extend"], len(prev.inst_row)))
        yield from super()._extensions(prev, inst_row, inst_set, inst_pos)

    def _count(self, prev, parent, missing, below):
        self._at["count"] = tracemalloc.get_traced_memory()[0]
        return super()._count(prev, parent, missing, below)

    def _sliced_covers(self, source, starts, stops, holds, below):
        if "count" in self._at:
            # what _count holds beside its arguments: the current covers and the parents' inverse
            held = tracemalloc.get_traced_memory()[0] - self._at.pop("count")
            self.readings["count"].append((held, source.nbytes + 8 * (2 * len(starts) + 1)))
        return super()._sliced_covers(source, starts, stops, holds, below)


def filled_after_deletions(traced=True):
    """A buffer of the first records holding a sensitive item, filled to qids of 4 items, with
    a third of item 5's occurrences deleted before each level (as sanitizing would)."""
    if traced:
        filled_after_deletions(traced=False)  # the modules numpy imports on first use are not the buffer's
    table = dense_table()
    rows = np.flatnonzero(table.nsens >= 1)[:200]
    if traced:
        tracemalloc.start()  # before the first level, so that dropping its arrays is seen
    try:
        buffer = ReadingBuffer(table, rows, 1_000_000)
        level = buffer.singletons()
        levels = []
        while level is not None and level.size < 4:
            holders = table.tidlist(5)
            table.delete(5, holders[: len(holders) // 3])
            level = buffer.extend(level, last=level.size == 3)
            levels.append(level)
    finally:
        tracemalloc.stop()
    return table, buffer, levels


def test_counting_after_deletions_holds_no_stale_cover_and_no_second_copy_of_the_instances():
    _, buffer, levels = filled_after_deletions()
    assert len(levels) == 3 and levels[-1] is not None and len(levels[-1].cover_rows) > 1000
    # extend begins its extensions holding nothing new: the instances' items and records were
    # dropped with the test of what is still held, and the level keeps its held instances alone
    assert len(buffer.readings["extend"]) == 3
    for held, instances in buffer.readings["extend"]:
        assert instances > 500 and held <= SLACK, (held, instances)
    # _count expands the parents' covers holding them as of now, not also the stale rows and their
    # owners it filtered them from
    assert buffer.readings["count"]
    for held, current in buffer.readings["count"]:
        assert held <= current + SLACK, (held, current)


def test_a_level_keeps_the_instances_its_records_still_hold_and_extends_as_before():
    table, buffer, levels = filled_after_deletions()
    # the level of 3 items was extended after the last deletion: every instance it keeps is one
    # its record still holds, and some were dropped
    triples = levels[1]
    assert 0 < len(triples.inst_row)
    for row, qid in zip(triples.inst_row.tolist(), triples.inst_set.tolist()):
        assert table.holds_all(triples.sets[qid].tolist(), int(buffer.rows[row]))
    # the same deletions on a plain buffer give the same levels, field by field
    plain_table = dense_table()
    plain = QidBuffer(plain_table, buffer.rows, 1_000_000)
    level = plain.singletons()
    for expected in levels:
        holders = plain_table.tidlist(5)
        plain_table.delete(5, holders[: len(holders) // 3])
        level = plain.extend(level, last=level.size == 3)
        for field in ("sets", "keys", "sup", "cover_ptr", "cover_rows", "free", "order", "counted"):
            assert np.array_equal(getattr(level, field), getattr(expected, field)), field
    assert np.array_equal(plain_table.alive, table.alive)
