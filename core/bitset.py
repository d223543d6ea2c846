"""Tidsets as packed bitsets: one row of uint64 words per item, bit t set when transaction t holds it.

AND of two rows is the tidset of the union itemset and ``np.bitwise_count`` gives supports,
so support counting stays in numpy's C loops.
"""

from __future__ import annotations

import numpy as np

WORD_BITS = 64


def n_words(n_transactions: int) -> int:
    return (n_transactions + WORD_BITS - 1) // WORD_BITS


def pack_tidlists(indptr: np.ndarray, rows: np.ndarray, n_transactions: int) -> np.ndarray:
    """Bitsets (len(indptr)-1, n_words) from CSR tidlists (rows of each list unique)."""
    k = len(indptr) - 1
    out = np.zeros((k, n_words(n_transactions)), dtype=np.uint64)
    if len(rows):
        owner = np.repeat(np.arange(k, dtype=np.int64), np.diff(indptr))
        rows = rows.astype(np.int64, copy=False)
        bits = np.left_shift(np.uint64(1), (rows & (WORD_BITS - 1)).astype(np.uint64))
        # Rows of one list are distinct, so adding bits never carries: add.at is an OR here.
        np.add.at(out, (owner, rows >> 6), bits)
    return out


def popcount(bitsets: np.ndarray) -> np.ndarray:
    """Number of set bits in each row."""
    if bitsets.shape[-1] == 0:
        return np.zeros(bitsets.shape[:-1], dtype=np.int64)
    return np.bitwise_count(bitsets).sum(axis=-1, dtype=np.int64)


def members(bitset: np.ndarray) -> np.ndarray:
    """Sorted transaction ids whose bit is set in one bitset row."""
    as_bytes = bitset.view(np.uint8)
    return np.flatnonzero(np.unpackbits(as_bytes, bitorder="little"))


def row_members(bitsets: np.ndarray) -> np.ndarray:
    """The set bits of every row, row after row, each row ascending (:func:`members` of each row,
    concatenated). Only non-zero words are unpacked, so sparse rows cost little."""
    owner, word = np.nonzero(bitsets)
    set_bits = np.unpackbits(bitsets[owner, word].astype("<u8").view(np.uint8), bitorder="little")
    hit = np.flatnonzero(set_bits)
    return word[hit >> 6] * WORD_BITS + (hit & (WORD_BITS - 1))


def holds(bitsets: np.ndarray, rows: np.ndarray | int, transactions: np.ndarray) -> np.ndarray:
    """Element-wise (with broadcasting): is the bit of ``transactions`` set in row ``rows``?"""
    transactions = np.asarray(transactions, dtype=np.int64)
    shift = (transactions & (WORD_BITS - 1)).astype(np.uint64)
    return ((bitsets[rows, transactions >> 6] >> shift) & np.uint64(1)).astype(bool)


def clear(bitsets: np.ndarray, rows: np.ndarray | int, transactions: np.ndarray) -> None:
    """Element-wise (with broadcasting), clear the bit of ``transactions`` in row ``rows``, in place."""
    transactions = np.asarray(transactions, dtype=np.int64)
    np.bitwise_and.at(bitsets, (np.asarray(rows, dtype=np.int64), transactions >> 6), ~_bit(transactions))


def set_bits(bitsets: np.ndarray, rows: np.ndarray | int, transactions: np.ndarray) -> None:
    """Element-wise (with broadcasting), set the bit of ``transactions`` in row ``rows``, in place."""
    transactions = np.asarray(transactions, dtype=np.int64)
    np.bitwise_or.at(bitsets, (np.asarray(rows, dtype=np.int64), transactions >> 6), _bit(transactions))


def _bit(transactions: np.ndarray) -> np.ndarray:
    return np.uint64(1) << (transactions & (WORD_BITS - 1)).astype(np.uint64)
