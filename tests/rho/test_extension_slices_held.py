"""What a buffer holds while it generates a level's candidates: each slice of extensions as
filtered, and the running sum of the spans (not the spans beside it); and, once the level is
counted, its instances' extendable part alone, as int32. On connect's first 10,000 records, once global's
last level held no cover, the unfiltered slice, the last pairs' keys and the spans held beside
the slice yielded, and the level of 3 items' unfiltered instances beside their extendable part,
set the suppressor's peak. Measured with tracemalloc, which sees numpy's arrays: deterministic,
not timed."""

import tracemalloc

import numpy as np

from setveil.plugins.rho.qids import QidBuffer

from .test_level_arrays_released import SLACK, dense_table


class ReadingBuffer(QidBuffer):
    """A QidBuffer that reads the traced memory as its extensions begin and as they yield their
    first slice (before the caller has made anything of it), and as extend begins and as it
    counts its first chunk of candidates."""

    readings: list
    counting: list

    def extend(self, prev, last=False, share=None):
        self._at = (tracemalloc.get_traced_memory()[0], 0, last)
        return super().extend(prev, last, share)

    def _extensions(self, prev, inst_row, inst_set, inst_pos):
        start = tracemalloc.get_traced_memory()[0]
        first = True
        for part in super()._extensions(prev, inst_row, inst_set, inst_pos):
            if first:
                held = tracemalloc.get_traced_memory()[0] - start
                self.readings.append((held, sum(array.nbytes for array in part), len(inst_row)))
                first = False
            self._at = (self._at[0], self._at[1] + len(part[0]), self._at[2])
            yield part

    def _counted(self, prev, keys, parents, last):
        if self._at is not None:
            start, instances, last = self._at
            self._at = None
            if not last:
                self.counting.append((tracemalloc.get_traced_memory()[0] - start, len(keys), instances))
        return super()._counted(prev, keys, parents, last)


def filled(traced=True):
    if traced:
        filled(traced=False)  # the modules numpy imports on first use are not the buffer's
    table = dense_table()
    rows = np.flatnonzero(table.nsens >= 1)[:200]
    if traced:
        tracemalloc.start()
    try:
        buffer = ReadingBuffer(table, rows, 1_000_000)
        buffer.readings, buffer.counting = [], []
        level = buffer.singletons()
        levels = []
        while level is not None and level.size < 4:
            level = buffer.extend(level, last=level.size == 3)
            levels.append(level)
    finally:
        tracemalloc.stop()
    return table, buffer, levels


def test_a_slice_of_extensions_is_held_as_filtered_beside_the_running_sum_of_the_spans():
    _, buffer, levels = filled()
    assert len(buffer.readings) == 3
    for held, yielded, instances in buffer.readings:
        # the running sum of the spans: 8 bytes an instance
        assert instances > 1000 and held <= yielded + 8 * instances + SLACK, (held, yielded, instances)


def test_a_level_is_counted_holding_its_instances_records_as_int32():
    _, buffer, _ = filled()
    # the distinct candidates (keys, first instance, parent: 8 bytes each) and the instances
    # (candidate and position: 8 bytes each; record: 4 bytes, not 8), not the last slice's
    # candidates beside them
    assert len(buffer.counting) == 2
    for held, candidates, instances in buffer.counting:
        assert instances > 5000 and held <= 24 * candidates + 20 * instances + SLACK, (held, candidates, instances)


def test_a_level_keeps_its_extendable_instances_as_int32():
    table, buffer, levels = filled(traced=False)
    pairs, triples = levels[0], levels[1]
    for level in (pairs, triples):
        assert level.inst_row.dtype == level.inst_set.dtype == level.inst_pos.dtype == np.int32
        assert len(level.inst_row) > 0
        # every instance is one of an extendable qid, at its last item's position in its record
        assert level.free[level.inst_set].all() and (level.sup[level.inst_set] >= 2).all()
        for row, qid, pos in zip(level.inst_row.tolist(), level.inst_set.tolist(), level.inst_pos.tolist()):
            assert buffer.items[pos] == level.sets[qid, -1]
            assert buffer.ptr[row] <= pos < buffer.ptr[row + 1]
            assert set(level.sets[qid].tolist()) <= set(buffer.items[buffer.ptr[row] : buffer.ptr[row + 1]].tolist())
