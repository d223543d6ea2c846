"""What the service emits for ``sanitize``, held to a brute-force reading of the guarantee written
here alone: of the transactions of a window that held a restrictive pattern, at most ⌊ψ·|T[rp]|⌋
still hold it, items are only removed and no transaction that had items is emptied. The windows go
through the worker's own path (:class:`WindowProcessor`, ``window.merge_subjects`` on or off) with
ψ at 0, 1 and near both, patterns longer than any transaction, patterns inside others, sharing
items or naming an item no transaction holds, empty and repeated transactions and one-transaction
windows. Two windows emitted apart are checked as one: the bound holds for their union too, each
pattern's count against its sensitive transactions in both."""

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.cli import configure

from ..worker_windows import merged, released

ITEMS = ["a", "b", "c", "d", "e"]
PSIS = ["0", "0.001", "0.3", "0.5", "0.999", "1"]
SUBJECTS = [None, "u", "v", 7, "7"]


def disclosed(originals, releases, patterns, psi):
    """The patterns that more than ψ of their sensitive transactions still hold, ψ as typed."""
    out = []
    for pattern in patterns:
        held = [after for before, after in zip(originals, releases) if pattern <= before]
        if sum(pattern <= after for after in held) > Fraction(psi) * len(held):
            out.append(pattern)
    return out


def emitted(path, rows, params, merge, first_offset=0):
    configured = configure("sanitize", params["policy"], [f"restrictive={path}", f"psi={params['psi']}"],
                           None, None, None, None)
    # removing a pattern's item from each of its sensitive transactions always hides it
    return released(configured, rows, merge, first_offset)


windows = st.lists(st.tuples(st.lists(st.sampled_from(ITEMS), unique=True, max_size=5), st.sampled_from(SUBJECTS)),
                   min_size=1, max_size=10)
patterns = st.lists(st.frozensets(st.sampled_from(ITEMS + ["zz"]), min_size=2, max_size=6), min_size=1, max_size=5,
                    unique=True).filter(lambda found: any("zz" not in p for p in found))
parameters = st.fixed_dictionaries({"policy": st.sampled_from(["naive", "minfia", "maxfia", "iga"]),
                                    "psi": st.sampled_from(PSIS)})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(first=windows, second=windows, restrictive=patterns, params=parameters, merge=st.booleans())
def test_each_emitted_window_and_the_union_of_two_hold_by_brute_force(tmp_path, first, second, restrictive, params,
                                                                        merge):
    path = tmp_path / "restrictive.txt"
    path.write_text("".join(" ".join(sorted(p)) + "\n" for p in restrictive), encoding="utf-8")
    released, originals = [], []
    for offset, rows in ((0, first), (len(first), second)):
        original = merged(rows) if merge else [set(items) for items, _ in rows]
        release = emitted(path, rows, params, merge, offset)
        assert len(release) == len(original) and all(r <= o for r, o in zip(release, original))
        assert all(r or not o for r, o in zip(release, original))
        assert not disclosed(original, release, restrictive, params["psi"])
        released += release
        originals += original
    assert not disclosed(originals, released, restrictive, params["psi"])


def test_a_pattern_in_one_transaction_of_a_window_stays_only_at_psi_1(tmp_path):
    # ⌊ψ·1⌋ = 0 for every ψ < 1: a pattern's only sensitive transaction may not keep it
    path = tmp_path / "restrictive.txt"
    path.write_text("a b\n", encoding="utf-8")
    for psi in ("0", "0.999"):
        [release] = emitted(path, [(["a", "b"], None)], {"policy": "minfia", "psi": psi}, False)
        assert len(release) == 1 and release < {"a", "b"}
    assert emitted(path, [(["a", "b"], None)], {"policy": "minfia", "psi": "1"}, False) == [{"a", "b"}]
