"""Numba kernels of Light's κ over the annotator pairs that co-rated an item.

Two layouts of the per-pair sums ``both[j, l]`` (items both rated) and
``agree[j, l]`` (their weighted agreement on them):

* dense: ``k × k`` arrays, for few annotators (memory O(k²), constant in the
  number of ratings);
* sparse: one entry per (item, co-rating pair) visit, reduced with
  ``np.unique`` (memory O(Σ_i r_i²), linear in the ratings when each item has a
  bounded number of ratings), for many annotators.

Both read the codes row by row; nothing compiles at import.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _raters_of(codes, i, who, onehot):
    # The annotators who rated item i into who[:r] (every pair of them co-rated it),
    # and their labels counted in onehot; returns r.
    r = 0
    for j in range(codes.shape[1]):
        c = codes[i, j]
        if c >= 0:
            who[r] = j
            r += 1
            onehot[j, c] += 1.0
    return r

@njit(cache=True, error_model="numpy")
def _dense_sums(codes, m, w, both, agree, onehot):
    # Per item: the annotators who rated it; every pair of them co-rated it.
    n, k = codes.shape
    who = np.empty(k, dtype=np.int64)
    rated = 0
    pairable = 0
    for i in range(n):
        r = _raters_of(codes, i, who, onehot)
        if r >= 1:
            rated += 1
        if r >= 2:
            pairable += 1
        for a in range(r):
            ja = who[a]
            ca = codes[i, ja]
            for b in range(a + 1, r):
                jb = who[b]
                both[ja, jb] += 1.0
                agree[ja, jb] += w[ca, codes[i, jb]]
    return rated, pairable


@njit(cache=True, error_model="numpy")
def _dense_ss(codes, w, b1, bb, ba, beta0, center):
    # Σ_i (x_i − center)² over rated items, x_i the item's linearised value.
    n, k = codes.shape
    who = np.empty(k, dtype=np.int64)
    ss = 0.0
    for i in range(n):
        r = 0
        x = beta0
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                who[r] = j
                r += 1
                x += b1[j, c]
        if r == 0:
            continue
        for a in range(r):
            ja = who[a]
            ca = codes[i, ja]
            for b in range(a + 1, r):
                jb = who[b]
                x += bb[ja, jb] + w[ca, codes[i, jb]] * ba[ja, jb]
        d = x - center
        ss += d * d
    return ss


@njit(cache=True, error_model="numpy")
def _count_visits(codes):
    n, k = codes.shape
    total = 0
    for i in range(n):
        r = 0
        for j in range(k):
            if codes[i, j] >= 0:
                r += 1
        total += r * (r - 1) // 2
    return total


@njit(cache=True, error_model="numpy")
def _sparse_visits(codes, m, w, keys, vals, items, onehot):
    n, k = codes.shape
    who = np.empty(k, dtype=np.int64)
    t = 0
    rated = 0
    pairable = 0
    for i in range(n):
        r = _raters_of(codes, i, who, onehot)
        if r >= 1:
            rated += 1
        if r >= 2:
            pairable += 1
        for a in range(r):
            ja = who[a]
            ca = codes[i, ja]
            for b in range(a + 1, r):
                jb = who[b]
                keys[t] = ja * k + jb
                vals[t] = w[ca, codes[i, jb]]
                items[t] = i
                t += 1
    return rated, pairable


@njit(cache=True, error_model="numpy")
def _onehot_values(codes, b1, beta0, out):
    # out[i] = beta0 + Σ_{j rated i} b1[j, c_ij] for rated items, NaN for unrated ones.
    n, k = codes.shape
    for i in range(n):
        x = beta0
        r = 0
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                x += b1[j, c]
                r += 1
        out[i] = x if r > 0 else np.nan


def dense_sums(codes: np.ndarray, m: int, w: np.ndarray):
    """``(both, agree, onehot, n_rated, n_pairable)`` with k × k pair arrays."""
    k = codes.shape[1]
    both = np.zeros((k, k))
    agree = np.zeros((k, k))
    onehot = np.zeros((k, m))
    rated, pairable = _dense_sums(np.ascontiguousarray(codes), m, w, both, agree, onehot)
    return both, agree, onehot, int(rated), int(pairable)


def dense_ss(codes, w, b1, bb, ba, beta0, center) -> float:
    return float(_dense_ss(np.ascontiguousarray(codes), w, b1, bb, ba, float(beta0),
                           float(center)))


def count_visits(codes: np.ndarray) -> int:
    """``Σ_i r_i (r_i − 1) / 2``: the (item, co-rating pair) visits."""
    return int(_count_visits(np.ascontiguousarray(codes)))


def sparse_visits(codes: np.ndarray, m: int, w: np.ndarray):
    """One entry per (item, co-rating pair): ``(keys, vals, items, onehot, rated, pairable)``."""
    codes = np.ascontiguousarray(codes)
    total = int(_count_visits(codes))
    keys = np.empty(total, dtype=np.int64)
    vals = np.empty(total, dtype=np.float64)
    items = np.empty(total, dtype=np.int64)
    onehot = np.zeros((codes.shape[1], m))
    rated, pairable = _sparse_visits(codes, m, w, keys, vals, items, onehot)
    return keys, vals, items, onehot, int(rated), int(pairable)


def onehot_values(codes: np.ndarray, b1: np.ndarray, beta0: float) -> np.ndarray:
    out = np.empty(codes.shape[0])
    _onehot_values(np.ascontiguousarray(codes), b1, float(beta0), out)
    return out
