"""Numba kernels of the rating-pattern keys (see :mod:`_goldnoise_lib.patterns`).

``codes`` is a C-ordered int8/int16 matrix (items × annotators), categories
``0..m−1`` and ``−1`` for a missing rating. The inline functions are meant to
be called inside other packages' kernels too (``row_key``, ``packed_counts``,
``count_key``), so a kernel that visits items can key them in the same loop.
Compiled lazily (``cache=True``); nothing compiles at import.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import serial_and_parallel


# ------------------------------------------------------------------ row keys
@njit(cache=True, inline="always")
def row_key(codes, i, m):
    """``Σ_j (x_ij + 1) (m + 1)^j``: item i's whole row (annotator 0 least significant)."""
    key = 0
    for j in range(codes.shape[1] - 1, -1, -1):
        key = key * (m + 1) + (codes[i, j] + 1)
    return key


def _row_hist_impl(codes, m, n_keys, n_chunks):
    n = codes.shape[0]
    hist = np.zeros((n_chunks, n_keys), dtype=np.int32)
    per = (n + n_chunks - 1) // n_chunks
    for ch in prange(n_chunks):
        for i in range(ch * per, min(n, (ch + 1) * per)):
            hist[ch, row_key(codes, i, m)] += 1
    return hist


def _row_keys_impl(codes, m, out):
    for i in prange(codes.shape[0]):
        out[i] = row_key(codes, i, m)


# ---------------------------------------------------------------- count keys
@njit(cache=True, inline="always")
def packed_counts(codes, i, bits):
    """Item i's counts per category as ``bits``-wide fields of one integer.

    Each rating c ≥ 0 adds 2^(bits·c); a missing one (−1) adds 0. Branch-free
    and free of memory lookups, so the loop over annotators vectorises.
    """
    packed = np.uint64(0)
    for j in range(codes.shape[1]):
        c = np.int64(codes[i, j])
        packed += np.uint64(c >= 0) << np.uint64((bits * c) & 63)
    return packed


@njit(cache=True, error_model="numpy", inline="always")
def count_key(packed, bits, table, use_rank):
    """The key of packed counts: the packed integer itself, or its rank (``count_plan``)."""
    if not use_rank:
        return np.int64(packed)
    mask = np.uint64((1 << bits) - 1)
    key = 0
    s = 0
    for c in range(table.shape[0]):
        a = np.int64((packed >> np.uint64(bits * c)) & mask)
        key += table[c, s, a]
        s += a
    return key


def _count_hist_impl(codes, bits, table, use_rank, chunk, out):
    # out[b, key] = number of items of chunk b whose count vector has this key.
    n = codes.shape[0]
    for b in prange(out.shape[0]):
        for i in range(b * chunk, min(n, (b + 1) * chunk)):
            out[b, count_key(packed_counts(codes, i, bits), bits, table, use_rank)] += 1


def _count_keys_impl(codes, bits, table, use_rank, out):
    for i in prange(codes.shape[0]):
        out[i] = count_key(packed_counts(codes, i, bits), bits, table, use_rank)


@njit(cache=True, error_model="numpy")
def decode_ranks(keys, table, k, out):
    """Count vectors of ranked keys: walk the categories, taking the largest count
    whose cumulative rank offset still fits."""
    m = table.shape[0]
    for p in range(keys.shape[0]):
        rem = keys[p]
        s = 0
        for c in range(m):
            a = 0
            while a < k - s and table[c, s, a + 1] <= rem:
                a += 1
            rem -= table[c, s, a]
            s += a
            out[p, c] = a
    return out


@njit(cache=True)
def counts_to_codes(counts, out):
    """A row of codes per count vector: category c written a_c times, then −1."""
    for p in range(counts.shape[0]):
        pos = 0
        for c in range(counts.shape[1]):
            for _ in range(counts[p, c]):
                out[p, pos] = c
                pos += 1
        for j in range(pos, out.shape[1]):
            out[p, j] = -1
    return out


def _builds(impl):
    return serial_and_parallel(impl, error_model="numpy")


row_histogram = _builds(_row_hist_impl)
row_keys = _builds(_row_keys_impl)
count_histogram = _builds(_count_hist_impl)
count_keys = _builds(_count_keys_impl)
