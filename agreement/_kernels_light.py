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


# Up to this many cells the visits are counted in NumPy (exact integers; nothing to
# compile on a first run of crowd data), above it by the one-pass kernel.
_SMALL_VISITS = 1_000_000


def count_visits(codes: np.ndarray) -> int:
    """``Σ_i r_i (r_i − 1) / 2``: the (item, co-rating pair) visits."""
    codes = np.ascontiguousarray(codes)
    if codes.size <= _SMALL_VISITS:
        r = (codes >= 0).sum(axis=1, dtype=np.int64)
        return int((r * (r - 1) // 2).sum())
    return int(_count_visits(codes))


def sparse_visits(codes: np.ndarray, m: int, w: np.ndarray):
    """One entry per (item, co-rating pair): ``(keys, vals, items, onehot, rated, pairable)``."""
    codes = np.ascontiguousarray(codes)
    total = count_visits(codes)
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


# ----------------------------------------------------------------------------- triangle
# Per-pair sums in two 1-D arrays over the upper triangle (pair (a, b), a < b, at
# a·k − a(a+1)/2 + b − a − 1): 16 bytes a pair, and no per-pair temporaries — κ, the
# mean and the linearisation are accumulated pair by pair. For many annotators who
# share items (memory O(k²/2), time O(Σ_i r_i²)).

@njit(cache=True, inline="always")
def _tri(a, b, k):
    return a * k - (a * (a + 1)) // 2 + b - a - 1


@njit(cache=True, error_model="numpy")
def _tri_sums(codes, w, both, agree, onehot):
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
            base = ja * k - (ja * (ja + 1)) // 2 - ja - 1
            for b in range(a + 1, r):
                jb = who[b]
                both[base + jb] += 1.0
                agree[base + jb] += w[ca, codes[i, jb]]
    return rated, pairable


@njit(cache=True, error_model="numpy")
def _tri_kappas(both, agree, p, pw, min_common, tol):
    # Σ κ, Σ PA, Σ PE over usable pairs, their number and the co-rating pairs.
    k, m = p.shape
    sk = 0.0
    spa = 0.0
    spe = 0.0
    n_ok = 0
    n_co = 0
    for a in range(k):
        base = a * k - (a * (a + 1)) // 2 - a - 1
        for b in range(a + 1, k):
            t = base + b
            nb = both[t]
            if nb <= 0.0:
                continue
            n_co += 1
            if nb < min_common:
                continue
            pe = 0.0
            for c in range(m):
                pe += pw[a, c] * p[b, c]
            q = 1.0 - pe
            if q <= tol:
                continue
            pa = agree[t] / nb
            sk += (pa - pe) / q
            spa += pa
            spe += pe
            n_ok += 1
    return sk, spa, spe, n_ok, n_co


@njit(cache=True, error_model="numpy")
def _tri_linearise(both, agree, p, pw, ng, n, n_ok, min_common, tol, b1):
    # The delta-method coefficients of Light's SE (agreement._light._standard_error),
    # pair by pair; both[t] and agree[t] are overwritten with the pair's bb and ba
    # (0 for pairs that do not enter the mean).
    k, m = p.shape
    for a in range(k):
        base = a * k - (a * (a + 1)) // 2 - a - 1
        for b in range(a + 1, k):
            t = base + b
            nb = both[t]
            usable = nb >= min_common
            pe = 0.0
            if usable:
                for c in range(m):
                    pe += pw[a, c] * p[b, c]
                usable = (1.0 - pe) > tol
            if not usable:
                both[t] = 0.0
                agree[t] = 0.0
                continue
            qp = 1.0 - pe
            kap = (agree[t] / nb - pe) / qp
            npq = ng[a] + ng[b] - nb
            scale = n / npq / n_ok
            for c in range(m):
                ta = (npq / ng[a]) * (pw[b, c] - pe)
                tb = (npq / ng[b]) * (pw[a, c] - pe)
                b1[a, c] += scale * (-(1.0 - kap) * ta / qp - kap)
                b1[b, c] += scale * (-(1.0 - kap) * tb / qp - kap)
            both[t] = scale * (-(npq / nb) * pe / qp + kap)
            agree[t] = scale * (npq / nb) / qp


@njit(cache=True, error_model="numpy")
def _tri_ss(codes, w, b1, bb, ba, beta0, center):
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
            base = ja * k - (ja * (ja + 1)) // 2 - ja - 1
            for b in range(a + 1, r):
                jb = who[b]
                t = base + jb
                x += bb[t] + w[ca, codes[i, jb]] * ba[t]
        d = x - center
        ss += d * d
    return ss


def triangle_light(codes: np.ndarray, m: int, w: np.ndarray, min_common: int, tol: float):
    """Light's κ with its pair sums over the upper triangle (see the section comment).

    Returns ``(onehot, n_rated, n_pairable, Σκ, ΣPA, ΣPE, n_ok, n_co, ss_of)`` where
    ``ss_of(value, n)`` is the sum of squares of the linearisation (it overwrites the
    pair sums, so it is called once, last).
    """
    codes = np.ascontiguousarray(codes)
    k = codes.shape[1]
    npairs = k * (k - 1) // 2
    both = np.zeros(npairs)
    agree = np.zeros(npairs)
    onehot = np.zeros((k, m))
    w = np.ascontiguousarray(w, dtype=np.float64)
    rated, pairable = _tri_sums(codes, w, both, agree, onehot)
    ng = onehot.sum(axis=1)
    p = np.divide(onehot, ng[:, None], out=np.zeros_like(onehot), where=ng[:, None] > 0)
    pw = np.ascontiguousarray(p @ w)
    sk, spa, spe, n_ok, n_co = _tri_kappas(both, agree, p, pw, float(min_common), float(tol))

    def ss_of(value: float, n: int) -> float:
        b1 = np.zeros((k, m))
        _tri_linearise(both, agree, p, pw, ng, float(n), float(n_ok), float(min_common),
                       float(tol), b1)
        return float(_tri_ss(codes, w, b1, both, agree, float(value), float(value)))

    return onehot, int(rated), int(pairable), sk, spa, spe, int(n_ok), int(n_co), ss_of
