"""The unsafe rules of a slice of qids are taken out of the product of their covers with the
sensitive items of the covered records, sup(q ∪ {e}) for each (q, e) the records hold, and only
the unsafe entries leave it. On BMS-WebView-1 at ρ 0.7 (``mine``) every entry as int64
coordinates, with its qid's support and the comparisons, 244 of 338 MiB of the product's 4.5
million entries, set the suppressor's peak. The rules are the enumeration's; the memory is
measured with tracemalloc, which sees numpy's and scipy's arrays: deterministic, not timed."""

import numpy as np
import pytest

from setveil.core.share import Share
from setveil.plugins.rho.qids import unsafe_rules

from ..tracing import traced_peak
from .test_algorithm import table_of
from .test_still_unsafe_occurrence_slices import long_records, pairs_with_covers


def current_covers(table, sets, cover_ptr, cover_rows):
    """The covers of ``sets`` in the current table, as unsafe_rules takes them."""
    covers = [[r for r in cover_rows[cover_ptr[q] : cover_ptr[q + 1]].tolist() if table.holds_all(qid, r)]
              for q, qid in enumerate(sets.tolist())]
    ptr = np.zeros(len(covers) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in covers], out=ptr[1:])
    return ptr, np.array([r for c in covers for r in c], dtype=np.int32), np.diff(ptr)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rho", [0.3, 0.7])
@pytest.mark.parametrize("slice_rows", [1, 50, 1_000_000])
def test_the_rules_are_the_enumerations_whatever_the_slices(seed, rho, slice_rows):
    table = long_records(seed, n=60)
    sets, stale_ptr, stale_rows = pairs_with_covers(table, seed, 40)
    ptr, rows, sup = current_covers(table, sets, stale_ptr, stale_rows)
    share = Share.of(rho)
    expected = set()
    for q, qid in enumerate(sets.tolist()):
        cover = rows[ptr[q] : ptr[q + 1]].tolist()
        for e in np.flatnonzero(table.sensitive).tolist():
            k = sum(table.holds_all([e], r) for r in cover)
            if e not in qid and share.exceeded(k, len(cover)):
                expected.add((q, e, k))
    qid, item, k = unsafe_rules(table, sets, sup, ptr, rows, np.arange(len(sets)), share, slice_rows)
    assert expected and set(zip(qid.tolist(), item.tolist(), k.tolist())) == expected
    # by qid, then consequent, as the suppressor and a last level's check read them
    assert (np.lexsort((item, qid)) == np.arange(len(qid))).all()


def test_only_the_unsafe_entries_of_the_product_leave_it():
    # records of 100 items on average of 400, half of them sensitive: each pair is held by a dozen
    # records, which hold most of the sensitive items between them
    rng = np.random.default_rng(0)
    table = table_of([np.flatnonzero(row) for row in rng.random((200, 400)) < 0.25], 400, list(range(200)))
    sets, stale_ptr, stale_rows = pairs_with_covers(table, 0, 500)
    ptr, rows, sup = current_covers(table, sets, stale_ptr, stale_rows)
    share = Share.of(0.7)
    every = np.arange(len(sets))
    unsafe_rules(table, sets, sup, ptr, rows, every, share, 1_000_000)  # numpy's first-use imports are not the slice's
    # the product's entries: a (qid, sensitive item) pair for each item some record of the cover holds
    holds = np.zeros((table.n, table.n_items), dtype=bool)
    alive = table.alive
    holds[table.owner[alive], table.indices[alive]] = True
    entries = sum(int(holds[rows[ptr[q] : ptr[q + 1]]][:, table.sensitive].any(axis=0).sum()) for q in every)
    (qid, _, _), peak = traced_peak(lambda: unsafe_rules(table, sets, sup, ptr, rows, every, share, 1_000_000))
    assert entries > 20 * len(qid) and entries > 2 * len(rows)
    # the product (an int32 item and count an entry, and what scipy builds it in), one int64 bar
    # and a flag an entry; the covers' records and their inverse; the unsafe entries, a few int64
    # arrays each (2.1 MB here, against 6.7 MB as every entry left the product)
    assert peak <= 32 * entries + 32 * len(rows) + 64 * len(qid) + 64 * 1024, (peak, entries, len(rows), len(qid))
