"""Numba kernels over the integer code matrix of a :class:`~agreement.Ratings`.

Conventions shared by every kernel in this package:

* ``codes`` is a C-ordered ``int8``/``int16`` array of shape ``(n_items, n_raters)``
  holding category codes ``0..m-1`` and ``-1`` for a missing rating.
* Kernels are private. The public functions validate and convert their input,
  then call a kernel; they never let a kernel see unvalidated data.
* Each kernel is compiled lazily (``cache=True``); importing this module
  compiles nothing. Where it helps, one Python function is compiled twice,
  serial and ``parallel=True`` (as umap does), and small inputs take the serial
  one: ``prange`` is a plain ``range`` in the serial build.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import HISTOGRAM_PARALLEL_CELLS, kernel_input, serial_and_parallel


def _item_counts_impl(codes, m):
    # a[i, c] = number of annotators who put item i in category c (SPEC §1).
    n, k = codes.shape
    out = np.zeros((n, m), dtype=np.int32)
    for i in prange(n):
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                out[i, c] += 1
    return out


_item_counts_serial, _item_counts_parallel = serial_and_parallel(_item_counts_impl,
                                                                  error_model="numpy")


def item_counts(codes: np.ndarray, m: int) -> np.ndarray:
    """Per-item category counts ``a[i, c]`` of an int code matrix (missing = -1)."""
    codes = kernel_input(codes)
    # A pass of well under a nanosecond per cell: the parallel build pays only where a
    # pattern histogram's does (compiling it cost a first audit of web, 471,705 cells, 1 s).
    if codes.size >= HISTOGRAM_PARALLEL_CELLS:
        return _item_counts_parallel(codes, m)
    return _item_counts_serial(codes, m)


# --------------------------------------------------------------------------
# Per-item statistics of the agreement coefficients.
#
# Three layouts of per-item columns (see agreement/_item_stats.py):
#   count family (percent, Fleiss, Scott, Brennan-Prediger, Gwet):
#       [rated, pairable, agreement, unanimous, p_0 .. p_{m-1}]
#   rater family (Cohen, Conger):
#       [rated, pairable, agreement, x[0, 0] .. x[k-1, m-1]]
#   pair family (Light):
#       [rated, pairable, x[0, 0] .. x[k-1, m-1], both[pairs], agree[pairs]]
# "rated" = r_i >= 1, "pairable" = r_i >= 2, "agreement" = PA_i (weighted; 0 when
# r_i < 2), p_c = a[i, c] / r[i], x[j, c] = 1 if annotator j put item i in c.
#
# Each layout has three kernels: `rows` (one row per item, for the public
# per-item layer), `sums` (the column sums) and `ss` (Σ over rated items of
# (row · beta − center)², the linearised variance), all one pass over the codes.
# `sums` accumulates integers per block of items, grouped by the number of
# ratings r (Σ_i a_ic / r_i = Σ_r (Σ_{i: r_i = r} a_ic) / r), so the column sums
# are exact in the unweighted case and never depend on the number of threads;
# the block size depends only on n and the number of columns.

_PART_CELLS = 1 << 22  # bound on blocks × cells of the per-block partial sums
# Below this many cells the agreement kernels run serially: one core takes a few
# milliseconds, and starting the thread team (OpenMP threads spin, then sleep)
# costs more than it saves on a shared machine.
ITEM_PARALLEL_CELLS = 1 << 23
_TALLY_FROM = 17  # annotator columns from which PA_i counts categories, not pairs


def blocking(n: int, cells: int) -> int:
    """Items per block when each block keeps ``cells`` partial sums."""
    max_blocks = max(64, _PART_CELLS // max(cells, 1))
    return max(1024, -(-n // max_blocks))


@njit(cache=True, error_model="numpy", inline="always")
def _item_pairs(codes, i, w, weighted, cnt, seen):
    # r_i, the (weighted) number of ordered pairs of distinct ratings that agree,
    # Σ_c a_c (Σ_l w_cl a_l − 1) (Gwet 2014; SPEC §1 PA_i numerator), and the
    # number of ordered pairs with identical ratings.
    k = codes.shape[1]
    r = 0
    num = 0.0
    eq = 0
    if k < _TALLY_FROM:
        for j in range(k):
            a = codes[i, j]
            if a >= 0:
                r += 1
                for q in range(j + 1, k):
                    b = codes[i, q]
                    if b >= 0:
                        if a == b:
                            eq += 1
                        if weighted:
                            num += w[a, b]
        if not weighted:
            num = eq
        return r, 2.0 * num, 2 * eq
    t = 0
    for j in range(k):
        c = codes[i, j]
        if c >= 0:
            if cnt[c] == 0:
                seen[t] = c
                t += 1
            cnt[c] += 1
            r += 1
    for s in range(t):
        a = seen[s]
        eq += cnt[a] * (cnt[a] - 1)
        if weighted:
            inner = 0.0
            for u in range(t):
                inner += w[a, seen[u]] * cnt[seen[u]]
            num += cnt[a] * (inner - 1.0)
    for s in range(t):
        cnt[seen[s]] = 0
    if not weighted:
        num = eq
    return r, num, eq


def _count_rows_impl(codes, m, w, weighted, block):
    n, k = codes.shape
    nb = (n + block - 1) // block
    out = np.zeros((n, 4 + m))
    for b in prange(nb):
        cnt = np.zeros(m, dtype=np.int64)
        seen = np.zeros(max(k, 1), dtype=np.int64)
        for i in range(b * block, min(n, (b + 1) * block)):
            r, num, eq = _item_pairs(codes, i, w, weighted, cnt, seen)
            if r > 0:
                out[i, 0] = 1.0
                for j in range(k):
                    c = codes[i, j]
                    if c >= 0:
                        out[i, 4 + c] += 1.0 / r
                if r >= 2:
                    out[i, 1] = 1.0
                    out[i, 2] = num / (r * (r - 1.0))
                    if eq == r * (r - 1):
                        out[i, 3] = 1.0
    return out


def _count_sums_impl(codes, m, w, weighted, block):
    n, k = codes.shape
    nb = (n + block - 1) // block
    nr = np.zeros((nb, k + 1), dtype=np.int64)  # items with r ratings
    ag = np.zeros((nb, k + 1))  # Σ agreeing ordered pairs, by r
    un = np.zeros((nb, k + 1), dtype=np.int64)  # unanimous items, by r
    cat = np.zeros((nb, k + 1, m), dtype=np.int64)  # Σ a_ic, by r
    for b in prange(nb):
        cnt = np.zeros(m, dtype=np.int64)
        seen = np.zeros(max(k, 1), dtype=np.int64)
        for i in range(b * block, min(n, (b + 1) * block)):
            r, num, eq = _item_pairs(codes, i, w, weighted, cnt, seen)
            nr[b, r] += 1
            ag[b, r] += num
            if eq == r * (r - 1):
                un[b, r] += 1
            for j in range(k):
                c = codes[i, j]
                if c >= 0:
                    cat[b, r, c] += 1
    return nr, ag, un, cat


def _count_ss_impl(codes, m, w, weighted, beta, center, block):
    # Σ_i (row_i · beta − center)² over rated items, without building the rows.
    n, k = codes.shape
    nb = (n + block - 1) // block
    part = np.zeros(nb)
    for b in prange(nb):
        cnt = np.zeros(m, dtype=np.int64)
        seen = np.zeros(max(k, 1), dtype=np.int64)
        acc = 0.0
        for i in range(b * block, min(n, (b + 1) * block)):
            r, num, eq = _item_pairs(codes, i, w, weighted, cnt, seen)
            if r > 0:
                s = 0.0
                for j in range(k):
                    c = codes[i, j]
                    if c >= 0:
                        s += beta[4 + c]
                x = beta[0] + s / r
                if r >= 2:
                    x += beta[1] + beta[2] * (num / (r * (r - 1.0)))
                    if eq == r * (r - 1):
                        x += beta[3]
                d = x - center
                acc += d * d
        part[b] = acc
    return part


def _rater_rows_impl(codes, m, w, weighted, block):
    n, k = codes.shape
    nb = (n + block - 1) // block
    out = np.zeros((n, 3 + k * m))
    for b in prange(nb):
        cnt = np.zeros(m, dtype=np.int64)
        seen = np.zeros(max(k, 1), dtype=np.int64)
        for i in range(b * block, min(n, (b + 1) * block)):
            r, num, _eq = _item_pairs(codes, i, w, weighted, cnt, seen)
            if r > 0:
                out[i, 0] = 1.0
                for j in range(k):
                    c = codes[i, j]
                    if c >= 0:
                        out[i, 3 + j * m + c] = 1.0
                if r >= 2:
                    out[i, 1] = 1.0
                    out[i, 2] = num / (r * (r - 1.0))
    return out


def _rater_sums_impl(codes, m, w, weighted, block):
    n, k = codes.shape
    nb = (n + block - 1) // block
    nr = np.zeros((nb, k + 1), dtype=np.int64)
    ag = np.zeros((nb, k + 1))
    x = np.zeros((nb, k, m), dtype=np.int64)  # items annotator j put in c
    for b in prange(nb):
        cnt = np.zeros(m, dtype=np.int64)
        seen = np.zeros(max(k, 1), dtype=np.int64)
        for i in range(b * block, min(n, (b + 1) * block)):
            r, num, _eq = _item_pairs(codes, i, w, weighted, cnt, seen)
            nr[b, r] += 1
            ag[b, r] += num
            for j in range(k):
                c = codes[i, j]
                if c >= 0:
                    x[b, j, c] += 1
    return nr, ag, x


def _rater_ss_impl(codes, m, w, weighted, beta, center, block):
    n, k = codes.shape
    nb = (n + block - 1) // block
    part = np.zeros(nb)
    for b in prange(nb):
        cnt = np.zeros(m, dtype=np.int64)
        seen = np.zeros(max(k, 1), dtype=np.int64)
        acc = 0.0
        for i in range(b * block, min(n, (b + 1) * block)):
            r, num, _eq = _item_pairs(codes, i, w, weighted, cnt, seen)
            if r > 0:
                x = beta[0]
                for j in range(k):
                    c = codes[i, j]
                    if c >= 0:
                        x += beta[3 + j * m + c]
                if r >= 2:
                    x += beta[1] + beta[2] * (num / (r * (r - 1.0)))
                d = x - center
                acc += d * d
        part[b] = acc
    return part


def _pair_rows_impl(codes, m, w, weighted, block):
    n, k = codes.shape
    npairs = (k * k - k) // 2  # not k * (k - 1): see _pair_sums_impl
    base = 2 + k * m
    nb = (n + block - 1) // block
    out = np.zeros((n, base + 2 * npairs))
    for b in prange(nb):
        for i in range(b * block, min(n, (b + 1) * block)):
            r = 0
            idx = 0
            for p in range(k):
                a = codes[i, p]
                if a >= 0:
                    r += 1
                    out[i, 2 + p * m + a] = 1.0
                    for q in range(p + 1, k):
                        c = codes[i, q]
                        if c >= 0:
                            out[i, base + idx] = 1.0
                            if weighted:
                                out[i, base + npairs + idx] = w[a, c]
                            elif a == c:
                                out[i, base + npairs + idx] = 1.0
                        idx += 1
                else:
                    idx += k - 1 - p
            if r > 0:
                out[i, 0] = 1.0
            if r > 1:
                out[i, 1] = 1.0
    return out


def _pair_sums_impl(codes, m, w, weighted, block):
    # npairs is (k² − k) / 2, never written k (k − 1) / 2: with the expression k − 1 in
    # the function, Numba's parallel build allocated `nr` with k − 1 columns instead of
    # k + 1 (its array analysis equated the two; numba 0.68, the serial build was right).
    n, k = codes.shape
    npairs = (k * k - k) // 2  # not k * (k - 1): see _pair_sums_impl
    nb = (n + block - 1) // block
    nr = np.zeros((nb, k + 1), dtype=np.int64)
    x = np.zeros((nb, k, m), dtype=np.int64)
    both = np.zeros((nb, npairs), dtype=np.int64)
    agree = np.zeros((nb, npairs))
    for b in prange(nb):
        for i in range(b * block, min(n, (b + 1) * block)):
            r = 0
            idx = 0
            for p in range(k):
                a = codes[i, p]
                if a >= 0:
                    r += 1
                    x[b, p, a] += 1
                    for q in range(p + 1, k):
                        c = codes[i, q]
                        if c >= 0:
                            both[b, idx] += 1
                            if weighted:
                                agree[b, idx] += w[a, c]
                            elif a == c:
                                agree[b, idx] += 1.0
                        idx += 1
                else:
                    idx += k - 1 - p
            nr[b, r] += 1
    return nr, x, both, agree


def _pair_ss_impl(codes, m, w, weighted, beta, center, block):
    n, k = codes.shape
    npairs = (k * k - k) // 2  # not k * (k - 1): see _pair_sums_impl
    base = 2 + k * m
    nb = (n + block - 1) // block
    part = np.zeros(nb)
    for b in prange(nb):
        acc = 0.0
        for i in range(b * block, min(n, (b + 1) * block)):
            r = 0
            x = 0.0
            idx = 0
            for p in range(k):
                a = codes[i, p]
                if a >= 0:
                    r += 1
                    x += beta[2 + p * m + a]
                    for q in range(p + 1, k):
                        c = codes[i, q]
                        if c >= 0:
                            x += beta[base + idx]
                            if weighted:
                                x += beta[base + npairs + idx] * w[a, c]
                            elif a == c:
                                x += beta[base + npairs + idx]
                        idx += 1
                else:
                    idx += k - 1 - p
            if r > 0:
                x += beta[0]
                if r >= 2:
                    x += beta[1]
                d = x - center
                acc += d * d
        part[b] = acc
    return part


def _builds(impl):
    return serial_and_parallel(impl, error_model="numpy")


_count_sums_serial, _count_sums_parallel = _builds(_count_sums_impl)
_count_rows_serial, _count_rows_parallel = _builds(_count_rows_impl)
_count_ss_serial, _count_ss_parallel = _builds(_count_ss_impl)
_rater_sums_serial, _rater_sums_parallel = _builds(_rater_sums_impl)
_rater_rows_serial, _rater_rows_parallel = _builds(_rater_rows_impl)
_rater_ss_serial, _rater_ss_parallel = _builds(_rater_ss_impl)
_pair_sums_serial, _pair_sums_parallel = _builds(_pair_sums_impl)
_pair_rows_serial, _pair_rows_parallel = _builds(_pair_rows_impl)
_pair_ss_serial, _pair_ss_parallel = _builds(_pair_ss_impl)

_ITEM_KERNELS = {
    ("count", "sums"): (_count_sums_serial, _count_sums_parallel),
    ("count", "rows"): (_count_rows_serial, _count_rows_parallel),
    ("count", "ss"): (_count_ss_serial, _count_ss_parallel),
    ("rater", "sums"): (_rater_sums_serial, _rater_sums_parallel),
    ("rater", "rows"): (_rater_rows_serial, _rater_rows_parallel),
    ("rater", "ss"): (_rater_ss_serial, _rater_ss_parallel),
    ("pair", "sums"): (_pair_sums_serial, _pair_sums_parallel),
    ("pair", "rows"): (_pair_rows_serial, _pair_rows_parallel),
    ("pair", "ss"): (_pair_ss_serial, _pair_ss_parallel),
}


def n_item_columns(family: str, k: int, m: int) -> int:
    """Length of a per-item row of ``family`` for ``k`` annotators and ``m`` categories."""
    if family == "count":
        return 4 + m
    if family == "rater":
        return 3 + k * m
    return 2 + k * m + k * (k - 1)


def _call(family, what, codes, w, weighted, *extra, parallel=None, cells=None):
    codes = kernel_input(codes)
    w = kernel_input(w, np.float64)
    n, k = codes.shape
    m = w.shape[0]
    block = blocking(n, n_item_columns(family, k, m) if cells is None else cells)
    if parallel is None:
        parallel = codes.size >= ITEM_PARALLEL_CELLS
    kernel = _ITEM_KERNELS[family, what][1 if parallel else 0]
    return kernel(codes, m, w, bool(weighted), *extra, block)


def _by_r(total, k):
    # Σ_r total[r] / r, and / (r (r − 1)), for r = 1..k (0 where undefined).
    r = np.arange(k + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        inv = np.where(r >= 1, 1.0 / np.maximum(r, 1.0), 0.0)
        inv2 = np.where(r >= 2, 1.0 / np.maximum(r * (r - 1.0), 1.0), 0.0)
    return inv, inv2


def item_sums(family: str, codes: np.ndarray, w: np.ndarray, weighted: bool, *,
              parallel: bool | None = None) -> np.ndarray:
    """Column sums of the per-item statistics of ``family`` (one pass over ``codes``)."""
    k = codes.shape[1]
    m = w.shape[0]
    inv, inv2 = _by_r(None, k)
    if family == "count":
        nr, ag, un, cat = _call(family, "sums", codes, w, weighted, parallel=parallel,
                                cells=(k + 1) * (m + 3))
        nr, un, cat = nr.sum(axis=0), un.sum(axis=0), cat.sum(axis=0)
        ag = ag.sum(axis=0)
        out = np.empty(4 + m)
        out[0], out[1] = nr[1:].sum(), nr[2:].sum()
        out[2] = ag @ inv2
        out[3] = un[2:].sum()
        out[4:] = inv @ cat
        return out
    if family == "rater":
        nr, ag, x = _call(family, "sums", codes, w, weighted, parallel=parallel,
                          cells=2 * (k + 1) + k * m)
        nr, ag = nr.sum(axis=0), ag.sum(axis=0)
        return np.concatenate([[nr[1:].sum(), nr[2:].sum(), ag @ inv2],
                               x.sum(axis=0).ravel().astype(np.float64)])
    nr, x, both, agree = _call(family, "sums", codes, w, weighted, parallel=parallel)
    nr = nr.sum(axis=0)
    return np.concatenate([[nr[1:].sum(), nr[2:].sum()],
                           x.sum(axis=0).ravel().astype(np.float64),
                           both.sum(axis=0).astype(np.float64), agree.sum(axis=0)])


def item_rows(family: str, codes: np.ndarray, w: np.ndarray, weighted: bool, *,
              parallel: bool | None = None) -> np.ndarray:
    """Per-item statistics of ``family``, one row per item."""
    return _call(family, "rows", codes, w, weighted, parallel=parallel)


def item_ss(family: str, codes: np.ndarray, w: np.ndarray, weighted: bool,
            beta: np.ndarray, center: float, *, parallel: bool | None = None) -> float:
    """``Σ (row_i · beta − center)²`` over rated items, in one pass over ``codes``."""
    beta = np.ascontiguousarray(beta, dtype=np.float64)
    part = _call(family, "ss", codes, w, weighted, beta, float(center), parallel=parallel,
                 cells=1)
    return float(part.sum())


# --------------------------------------------------------------------------
# Compression of the code matrix to its distinct rating patterns: the keys
# and histograms are the shared ones (`_goldnoise_lib.patterns`). Every per-item
# statistic is a function of the item's row of codes, and the count-family
# ones only of its category counts: with few possible keys, one histogram pass
# replaces the item loop, and the statistics are computed once per distinct
# key and weighted by its count (the multiplicity form of ItemStatistics.sums).

MAX_KEYS = 1 << 22  # bound on the keys a histogram may hold


# --------------------------------------------------------------------------
# Column kernels for many annotators (rater and pair families).
#
# When the rating patterns are too many to histogram, the rater and pair
# statistics are computed over the transposed codes (annotators × items), in
# blocks of items, with loops that run along the items of one annotator: they
# vectorise (SIMD) where the row kernels cannot. They return the same column
# sums and Σ (row · beta − center)² as `item_sums` / `item_ss`.

_COL_BLOCK = 4000  # items per block (not a power of two: avoids cache-set aliasing)


def _rater_colsums_impl(cols, m, w, weighted, block):
    # Also returns each item's PA_i and r_i, which the variance pass reuses.
    k, n = cols.shape
    nb = (n + block - 1) // block
    part = np.zeros((nb, 3))
    x = np.zeros((nb, k, m), dtype=np.int64)
    pa = np.zeros(n)
    rr = np.zeros(n, dtype=np.int32)
    for b in prange(nb):
        lo = b * block
        size = min(n, lo + block) - lo
        a = np.zeros((m, size), dtype=np.int32)  # a[c, i]: ratings of item i in c
        for c in range(m):
            ac = a[c]
            for j in range(k):
                cj = cols[j, lo:lo + size]
                s = 0
                for i in range(size):
                    e = np.int32(cj[i] == c)
                    ac[i] += e
                    s += e
                x[b, j, c] = s
        r = rr[lo:lo + size]
        num = np.zeros(size)
        for c in range(m):
            ac = a[c]
            for i in range(size):
                r[i] += ac[i]
        if weighted:
            for c in range(m):
                ac = a[c]
                for d in range(m):
                    wcd = w[c, d]
                    ad = a[d]
                    for i in range(size):
                        num[i] += wcd * ac[i] * ad[i]
            for i in range(size):
                num[i] -= r[i]
        else:
            for c in range(m):
                ac = a[c]
                for i in range(size):
                    num[i] += ac[i] * (ac[i] - 1.0)
        rated = 0.0
        pairable = 0.0
        total = 0.0
        for i in range(size):
            ri = r[i]
            if ri >= 1:
                rated += 1.0
            if ri >= 2:
                pairable += 1.0
                v = num[i] / (ri * (ri - 1.0))
                pa[lo + i] = v
                total += v
        part[b, 0] = rated
        part[b, 1] = pairable
        part[b, 2] = total
    return part, x, pa, rr


def _rater_colss_impl(cols, m, beta, center, pa, rr, block):
    # x_i = β_0 + Σ_j β[x_ij] + [r_i ≥ 2](β_1 + β_2 PA_i), PA_i and r_i from the sums pass.
    k, n = cols.shape
    nb = (n + block - 1) // block
    table = np.zeros((k, m + 1))  # column 0: missing rating
    for j in range(k):
        for c in range(m):
            table[j, c + 1] = beta[3 + j * m + c]
    part = np.zeros(nb)
    for b in prange(nb):
        lo = b * block
        size = min(n, lo + block) - lo
        x = np.zeros(size)
        for j in range(k):
            cj = cols[j, lo:lo + size]
            tj = table[j]
            for i in range(size):
                x[i] += tj[cj[i] + 1]
        acc = 0.0
        for i in range(size):
            ri = rr[lo + i]
            if ri >= 1:
                v = x[i] + beta[0]
                if ri >= 2:
                    v += beta[1] + beta[2] * pa[lo + i]
                d = v - center
                acc += d * d
        part[b] = acc
    return part


def _pair_colsums_impl(cols, m, block):
    # Unweighted pair family: rated, pairable, x[j, c], both[pairs], agree[pairs].
    k, n = cols.shape
    npairs = (k * k - k) // 2  # not k * (k - 1): see _pair_sums_impl
    nb = (n + block - 1) // block
    part = np.zeros((nb, 2))
    x = np.zeros((nb, k, m), dtype=np.int64)
    both = np.zeros((nb, npairs), dtype=np.int64)
    agree = np.zeros((nb, npairs), dtype=np.int64)
    for b in prange(nb):
        lo = b * block
        size = min(n, lo + block) - lo
        r = np.zeros(size, dtype=np.int32)
        idx = 0
        for p in range(k):
            cp = cols[p, lo:lo + size]
            for i in range(size):
                r[i] += np.int32(cp[i] >= 0)
            for c in range(m):
                s = 0
                for i in range(size):
                    s += cp[i] == c
                x[b, p, c] = s
            for q in range(p + 1, k):
                cq = cols[q, lo:lo + size]
                sb = 0
                sa = 0
                for i in range(size):
                    u = cp[i]
                    v = cq[i]
                    ok = (u >= 0) & (v >= 0)
                    sb += ok
                    sa += ok & (u == v)
                both[b, idx] = sb
                agree[b, idx] = sa
                idx += 1
        rated = 0.0
        pairable = 0.0
        for i in range(size):
            rated += r[i] >= 1
            pairable += r[i] >= 2
        part[b, 0] = rated
        part[b, 1] = pairable
    return part, x, both, agree


def _pair_colss_impl(cols, m, beta, center, block):
    k, n = cols.shape
    npairs = (k * k - k) // 2  # not k * (k - 1): see _pair_sums_impl
    base = 2 + k * m
    nb = (n + block - 1) // block
    part = np.zeros(nb)
    for b in prange(nb):
        lo = b * block
        size = min(n, lo + block) - lo
        r = np.zeros(size, dtype=np.int32)
        x = np.zeros(size)
        idx = 0
        for p in range(k):
            cp = cols[p, lo:lo + size]
            for i in range(size):
                r[i] += np.int32(cp[i] >= 0)
            for c in range(m):
                t = beta[2 + p * m + c]
                for i in range(size):
                    x[i] += t if cp[i] == c else 0.0
            for q in range(p + 1, k):
                cq = cols[q, lo:lo + size]
                tb = beta[base + idx]
                tab = tb + beta[base + npairs + idx]
                for i in range(size):
                    u = cp[i]
                    v = cq[i]
                    x[i] += (tab if u == v else tb) if (u >= 0) & (v >= 0) else 0.0
                idx += 1
        acc = 0.0
        for i in range(size):
            if r[i] >= 1:
                v = x[i] + beta[0]
                if r[i] >= 2:
                    v += beta[1]
                d = v - center
                acc += d * d
        part[b] = acc
    return part


_rater_colsums_serial, _rater_colsums_parallel = _builds(_rater_colsums_impl)
_rater_colss_serial, _rater_colss_parallel = _builds(_rater_colss_impl)
_pair_colsums_serial, _pair_colsums_parallel = _builds(_pair_colsums_impl)
_pair_colss_serial, _pair_colss_parallel = _builds(_pair_colss_impl)


class ColumnPass:
    """Transposed codes, and what the sums pass leaves for the variance pass."""

    def __init__(self, codes: np.ndarray) -> None:
        self.cols = kernel_input(np.asarray(codes).T)
        self.pa: np.ndarray | None = None
        self.r: np.ndarray | None = None


def column_sums(family: str, cp: ColumnPass, w: np.ndarray, weighted: bool, *,
                parallel: bool | None = None) -> np.ndarray:
    """``item_sums`` of the rater or (unweighted) pair family from transposed codes."""
    cols = cp.cols
    m = w.shape[0]
    w = kernel_input(w, np.float64)
    if parallel is None:
        parallel = cols.size >= ITEM_PARALLEL_CELLS
    if family == "rater":
        kernel = _rater_colsums_parallel if parallel else _rater_colsums_serial
        part, x, cp.pa, cp.r = kernel(cols, m, w, bool(weighted), _COL_BLOCK)
        return np.concatenate([part.sum(axis=0), x.sum(axis=0).ravel().astype(np.float64)])
    if weighted:
        raise ValueError("the pair column kernels are unweighted")
    kernel = _pair_colsums_parallel if parallel else _pair_colsums_serial
    part, x, both, agree = kernel(cols, m, _COL_BLOCK)
    return np.concatenate([part.sum(axis=0), x.sum(axis=0).ravel().astype(np.float64),
                           both.sum(axis=0).astype(np.float64),
                           agree.sum(axis=0).astype(np.float64)])


def column_ss(family: str, cp: ColumnPass, w: np.ndarray, weighted: bool,
              beta: np.ndarray, center: float, *, parallel: bool | None = None) -> float:
    """``item_ss`` of the rater or (unweighted) pair family, after :func:`column_sums`."""
    cols = cp.cols
    m = w.shape[0]
    beta = kernel_input(beta, np.float64)
    if parallel is None:
        parallel = cols.size >= ITEM_PARALLEL_CELLS
    if family == "rater":
        if cp.pa is None:
            column_sums(family, cp, w, weighted, parallel=parallel)
        kernel = _rater_colss_parallel if parallel else _rater_colss_serial
        part = kernel(cols, m, beta, float(center), cp.pa, cp.r, _COL_BLOCK)
    else:
        if weighted:
            raise ValueError("the pair column kernels are unweighted")
        kernel = _pair_colss_parallel if parallel else _pair_colss_serial
        part = kernel(cols, m, beta, float(center), _COL_BLOCK)
    return float(part.sum())
