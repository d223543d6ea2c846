"""A literal reference for ρ-uncertainty on small windows: every qid (every itemset of at most
``qid_size`` items drawn from a record, the empty one included) against every sensitive item
outside it, supports counted by scanning the records."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations


def unsafe_rules(transactions, sensitive, rho, qid_size):
    """The set of (qid, e) with conf(qid -> e) > rho, qid a frozenset of labels."""
    records = [frozenset(t) for t in transactions]
    qids = {frozenset()} if records else set()
    for record in records:
        for size in range(1, min(qid_size, len(record)) + 1):
            qids.update(frozenset(c) for c in combinations(sorted(record), size))
    bad = set()
    for qid in qids:
        holders = [r for r in records if qid <= r]
        for e in sensitive:
            if e in qid:
                continue
            k = sum(1 for r in holders if e in r)
            if k > Fraction(repr(float(rho))) * len(holders):  # ρ as typed: 63/90 is not above 0.7
                bad.add((qid, e))
    return bad
