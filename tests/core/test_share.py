"""Exact comparisons against a share typed in decimal (core/share.py)."""

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from setveil.core.share import Share

SHARES = st.sampled_from(["0", "0.01", "0.1", "0.29", "0.3", "0.35", "0.5", "0.57", "0.7", "0.82", "0.9999999999",
                          "1", "0.1234567890123"])


@given(share=SHARES, s=st.lists(st.integers(0, 2**40), min_size=1, max_size=20), data=st.data())
def test_comparisons_are_those_of_the_decimal(share, s, data):
    k = [data.draw(st.integers(0, x)) for x in s]
    exact = Fraction(share)
    typed = Share.of(float(share))
    assert Fraction(typed.num, typed.den) == exact
    assert typed.exceeded(np.array(k), np.array(s)).tolist() == [Fraction(a) > exact * b for a, b in zip(k, s)]
    assert typed.floor_of(np.array(s)).tolist() == [int(exact * b) for b in s]
    assert [bool(typed.exceeded(a, b)) for a, b in zip(k, s)] == [Fraction(a) > exact * b for a, b in zip(k, s)]


def test_the_float_products_that_misjudged_the_boundary():
    seven = Share.of(0.7)
    assert 63 > 0.7 * 90  # what the code did
    assert not seven.exceeded(63, 90) and seven.exceeded(64, 90)
    assert seven.floor_of(90) == 63 and Share.of(0.3).floor_of(10) == 3


def test_huge_counts_fall_back_to_python_integers():
    share = Share.of(0.1234567890123)
    big = np.array([2**61, 3], dtype=np.int64)
    assert share.floor_of(big).tolist() == [int(Fraction("0.1234567890123") * 2**61), 0]
    assert share.exceeded(np.array([2**60]), np.array([2**61])).tolist() == [True]


@given(share=st.sampled_from(["1e-20", "5e-324", "1.2345678901234567e-05"]),
       s=st.lists(st.integers(0, 2**40), min_size=1, max_size=5), data=st.data())
def test_tiny_shares_beyond_int64_compare_exactly(share, s, data):
    # ρ = 1e-20 is 1/10^20: its denominator overflowed int64 when every count was 0
    k = [data.draw(st.integers(0, x)) for x in s]
    exact = Fraction(share)
    typed = Share.of(float(share))
    for counts in (k, [0] * len(k)):
        assert typed.exceeded(np.array(counts), np.array(s)).tolist() == [Fraction(a) > exact * b for a, b in zip(counts, s)]
    assert typed.floor_of(np.array(s)).tolist() == [int(exact * b) for b in s]
    assert typed.exceeded(np.array([0, 1]), np.array([0, 0])).tolist() == [False, True]  # any support exceeds


def test_one_count_under_a_tiny_share_floors_in_python_integers():
    # Regression: coherence's h = 1e-20 took the array path for one count and failed with
    # AttributeError (a Python integer has no astype)
    assert Share.of(1e-20).floor_of(5) == 0 and Share.of(1e-20).floor_of(10**21) == 10
    assert Share.of(0.7).floor_of(np.int64(90)) == 63


@given(share=SHARES, s=st.lists(st.integers(0, 2**40), min_size=1, max_size=20))
def test_one_count_floors_as_many_do(share, s):
    # one count is floored in Python integers, as many are in int64: 0.57·7 = 3.99 floors to 3, not 4
    exact = Fraction(share)
    typed = Share.of(float(share))
    assert [int(typed.floor_of(b)) for b in s] == [int(exact * b) for b in s] == typed.floor_of(np.array(s)).tolist()


@given(share=st.sampled_from(["0.5", "0.7", "0.9999999999"]), data=st.data())
def test_products_at_the_int64_boundary_compare_exactly(share, data):
    # counts past 2**61 times the denominator 2 of 0.5 pass 2**63, where int64 wraps to a
    # negative, though not 2**64: the products must go to Python integers from 2**62 on
    s = data.draw(st.lists(st.integers(2**61, 2**63 - 1), min_size=1, max_size=5))
    k = [data.draw(st.integers(x - 4, x)) for x in s]
    exact = Fraction(share)
    typed = Share.of(float(share))
    assert typed.exceeded(np.array(k), np.array(s)).tolist() == [Fraction(a) > exact * b for a, b in zip(k, s)]
    assert typed.floor_of(np.array(s)).tolist() == [int(exact * b) for b in s]
