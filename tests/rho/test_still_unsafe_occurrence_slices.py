"""The re-check of a block of qids (a buffer's settle, a level's qids held by several records)
expands their covers' records to the sensitive occurrences those hold, about ``b_max`` at a time,
whole qids each (at least ``RECHECK_FLOOR``: the tests set it to 1 so that ``b_max`` alone
slices). On BMS-WebView-1 at ρ 0.7 (``mine``) one settle's slice of 10^6 cover records,
long ones, took 52 million occurrences, held twice (397 MiB each) at the suppressor's peak, the
run's peak. The flags are the same whatever the slices; the memory is measured with
tracemalloc, which sees numpy's arrays: deterministic, not timed."""

import numpy as np
import pytest

from setveil.plugins.rho import suppressor as suppressor_module
from setveil.plugins.rho.policies import Mine
from setveil.plugins.rho.suppressor import RECHECK_FLOOR, PartialSuppressor

from ..tracing import traced_peak
from .test_algorithm import table_of
from .test_level_arrays_released import SLACK


def long_records(seed, n=300, n_items=60, sensitive=30):
    """``n`` long records of ``n_items`` items, each item in each record with its own chance
    (the sensitive items, the first ``sensitive``, from a tenth to seven tenths), with a share of
    the occurrences deleted, as a settle finds its table."""
    rng = np.random.default_rng(seed)
    chance = np.concatenate([np.linspace(0.1, 0.7, sensitive), np.full(n_items - sensitive, 0.7)])
    held = rng.random((n, n_items)) < chance
    table = table_of([np.flatnonzero(row) for row in held], n_items, list(range(sensitive)))
    for item in range(0, n_items, 3):
        holders = table.tidlist(item)
        table.delete(item, holders[: len(holders) // 3])
    return table


def pairs_with_covers(table, seed, count):
    """``count`` random pairs of items with their covers in T0 (as a level holds them: stale)."""
    rng = np.random.default_rng(seed)
    sets = np.sort(np.stack([rng.choice(table.n_items, size=2, replace=False) for _ in range(count)]), axis=1)
    holds = np.zeros((table.n, table.n_items), dtype=bool)
    holds[table.owner, table.indices] = True
    covers = [np.flatnonzero(holds[:, a] & holds[:, b]).astype(np.int32) for a, b in sets.tolist()]
    cover_ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum([len(c) for c in covers], out=cover_ptr[1:])
    return sets, cover_ptr, np.concatenate(covers)


def enumerated(table, sets, share):
    """Which qids have a sensitive rule above ρ in the current table, record by record."""
    flags = []
    for qid in sets.tolist():
        cover = [r for r in range(table.n) if table.holds_all(qid, r)]
        flags.append(any(
            e not in qid and share.exceeded(sum(table.holds_all([e], r) for r in cover), len(cover))
            for e in np.flatnonzero(table.sensitive).tolist()))
    return np.array(flags)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("b_max", [1, 500, 1_000_000])
@pytest.mark.parametrize("floor", [1, RECHECK_FLOOR])
def test_the_flags_are_the_enumerations_whatever_the_slices(seed, b_max, floor, monkeypatch):
    monkeypatch.setattr(suppressor_module, "RECHECK_FLOOR", floor)
    table = long_records(seed, n=60)
    sets, cover_ptr, cover_rows = pairs_with_covers(table, seed, 40)
    suppressor = PartialSuppressor(table, Mine(), 0.7, 2, b_max, np.random.default_rng(seed))
    flags = suppressor._still_unsafe(sets, np.arange(len(sets)), cover_ptr, cover_rows)
    expected = enumerated(table, sets, suppressor.share)
    assert 0 < expected.sum() < len(expected)
    assert (flags == expected).all()


def test_a_block_is_expanded_to_about_b_max_occurrences_at_a_time(monkeypatch):
    monkeypatch.setattr(suppressor_module, "RECHECK_FLOOR", 1)
    table = long_records(0)
    sets, cover_ptr, cover_rows = pairs_with_covers(table, 0, 300)
    block = np.arange(len(sets))
    b_max = 5_000
    suppressor = PartialSuppressor(table, Mine(), 0.7, 2, b_max, np.random.default_rng(0))
    suppressor._still_unsafe(sets, block, cover_ptr, cover_rows)  # numpy's first-use imports are not the block's
    occurrences = int((table.sens_ptr[cover_rows + 1] - table.sens_ptr[cover_rows]).sum())
    widest = int(np.diff(cover_ptr).max()) * int(np.diff(table.sens_ptr).max())
    assert occurrences > 20 * (b_max + widest)
    _, peak = traced_peak(lambda: suppressor._still_unsafe(sets, block, cover_ptr, cover_rows))
    # the block's cover records with their owners, tests and running sums (8 bytes each, a few
    # at a time), and a slice's occurrences: their ids, owners and keys, sorted
    assert peak <= 48 * len(cover_rows) + 64 * (b_max + widest) + SLACK, (peak, len(cover_rows), occurrences)
