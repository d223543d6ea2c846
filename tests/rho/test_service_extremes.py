"""What the service emits for ``rho``, held to a brute-force reading of §2.1 written here alone:
every qid of at most ``qid_size`` items (the empty one too) drawn from a released transaction,
against every sensitive item outside it, supports counted by scanning. The windows go through the
worker's own path (:class:`WindowProcessor`, ``window.merge_subjects`` on or off) at the edges the
other property tests leave out: ρ near 0 and near 1, every item sensitive or one, transactions of
sensitive items only, empty ones, repeats, one-transaction windows, ``b_max`` 1 and a ``t_max``
that splits down to single transactions. Two windows emitted apart are checked as one (Lemma 1)."""

from fractions import Fraction
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.cli import configure

from ..worker_windows import merged, released

ITEMS = ["a", "b", "c", "d", "e"]
RHOS = ["0.001", "0.01", "0.25", "0.5", "0.7", "0.99", "0.999"]
SUBJECTS = [None, "u", "v", 7, "7"]


def unsafe(transactions, sensitive, rho, size):
    """(qid, e) pairs with sup(qid ∪ {e}) > ρ·sup(qid), ρ as the decimal typed."""
    share = Fraction(rho)
    records = [frozenset(t) for t in transactions]
    qids = {frozenset()} | {frozenset(q) for r in records for k in range(1, size + 1) for q in combinations(sorted(r), k)}
    found = set()
    for qid in qids:
        holders = [r for r in records if qid <= r]
        for e in sensitive - qid:
            if sum(e in r for r in holders) > share * len(holders):
                found.add((qid, e))
    return found


def emitted(tmp_path, rows, sensitive, params, merge, first_offset=0):
    listed = tmp_path / "sensitive.txt"
    listed.write_text("".join(f"{item}\n" for item in sorted(sensitive)), encoding="utf-8")
    configured = configure("rho", params["policy"], [f"{k}={v}" for k, v in params.items() if k != "policy"],
                           str(listed), None, None, None)
    # deleting every sensitive occurrence is always safe: a window never lacks a release
    return released(configured, rows, merge, first_offset)


windows = st.lists(st.tuples(st.lists(st.sampled_from(ITEMS), unique=True, max_size=5), st.sampled_from(SUBJECTS)),
                   min_size=1, max_size=10)
parameters = st.fixed_dictionaries({
    "policy": st.sampled_from(["mine", "dist", "global"]),
    "rho": st.sampled_from(RHOS),
    "qid_size": st.sampled_from(["1", "2", "4", "all"]),
    "b_max": st.sampled_from(["1", "1000000"]),
    "t_max": st.sampled_from(["0.01", "off"]),
    "workers": st.just("1"),
})
sensitives = st.one_of(st.just(frozenset(ITEMS)), st.sets(st.sampled_from(ITEMS), min_size=1).map(frozenset))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(first=windows, second=windows, sensitive=sensitives, params=parameters, merge=st.booleans())
def test_each_emitted_window_and_the_union_of_two_hold_by_brute_force(tmp_path, first, second, sensitive, params, merge):
    released, originals = [], []
    for offset, rows in ((0, first), (len(first), second)):
        original = merged(rows) if merge else [set(items) for items, _ in rows]
        release = emitted(tmp_path, rows, sensitive, params, merge, offset)
        assert len(release) == len(original) and all(r <= o for r, o in zip(release, original))
        size = max(map(len, original)) if params["qid_size"] == "all" else int(params["qid_size"])
        assert not unsafe(release, sensitive, params["rho"], size)
        released += release
        originals += original
    size = max(map(len, originals)) if params["qid_size"] == "all" else int(params["qid_size"])
    assert not unsafe(released, sensitive, params["rho"], size)


def test_a_sensitive_item_in_every_transaction_of_a_one_transaction_window_is_deleted(tmp_path):
    # conf(∅ → e) = 1/1: the empty qid alone makes it unsafe at every ρ < 1
    for rho in ("0.001", "0.999"):
        assert emitted(tmp_path, [(["a", "b"], None)], {"a"}, {"policy": "mine", "rho": rho}, False) == [{"b"}]
