"""Numba kernels for Krippendorff's α over the integer code matrix.

Conventions (as in :mod:`agreement._kernels`):

* ``codes`` is a C-ordered ``int8``/``int16`` array, items × raters, category
  codes ``0..m-1`` and ``-1`` for a missing rating; ``values`` is the float64
  value of each category (the metric's input).
* Kernels are private and compiled lazily (``cache=True``); each is built
  twice from one Python function, serial and ``parallel=True``, and small
  inputs take the serial build.
* Work is split into fixed chunks of items that depend only on the input's
  shape, never on the thread count. Each chunk writes its own partial sums and
  the caller adds the chunks in order, so results are identical for any number
  of threads.

Nothing here builds an items × values × values array: a unit's contribution is
computed from its own ratings, in O(r) for the nominal and interval metrics and
O(r²) for the ratio metric (r = ratings on the unit).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from _goldnoise_lib._pattern_kernels import packed_counts
from _goldnoise_lib.threads import HISTOGRAM_PARALLEL_CELLS, kernel_input, serial_and_parallel

# Below this many cells the serial builds run. A unit's pass costs under a nanosecond per
# cell, as a pattern histogram does: on web (2,665 × 177 = 471,705 cells) the serial sums
# took 0.15 ms and the parallel build 28 ms (2 cores, load 8), and compiling the parallel
# builds cost a first audit about 9 s of CPU.
PARALLEL_THRESHOLD = HISTOGRAM_PARALLEL_CELLS

# How a unit's disagreement is computed from its values.
KIND_NOMINAL = 0  # δ² = [c ≠ k]
KIND_INTERVAL = 1  # δ² = (v_c − v_k)²; also the ordinal metric, on mid-ranks
KIND_RATIO = 2  # δ² = ((v_c − v_k) / (v_c + v_k))²

# Partial sums kept per chunk: at most this many float64 cells in total.
_PARTIALS_BUDGET = 4_000_000
_MAX_CHUNKS = 256
_MIN_CHUNK = 2048


def chunk_size(n: int, width: int) -> int:
    """Items per chunk for ``n`` items and ``width`` partial sums per chunk.

    Depends only on the shape, so the summation order (and the result) is the
    same whatever the number of threads.
    """
    n_chunks = max(1, min(_MAX_CHUNKS, _PARTIALS_BUDGET // max(width, 1)))
    return max(_MIN_CHUNK, -(-n // n_chunks))


@njit(cache=True, error_model="numpy", inline="always")
def _unit_disagreement(codes, i, values, kind, scratch):
    """Ratings ``r`` on unit ``i`` and ``q = Σ_{j≠j'} δ²(x_j, x_j') / (r − 1)``.

    The sum runs over ordered pairs of distinct ratings, so ``q`` is the unit's
    contribution to ``n · D_o`` (Krippendorff 2011, eq. for D_o); ``q = 0`` for
    ``r < 2``. ``scratch`` is an all-zero int array of length m, left all zero.
    """
    k = codes.shape[1]
    r = 0
    if kind == KIND_NOMINAL:
        same = 0  # unordered pairs of equal values
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                same += scratch[c]
                scratch[c] += 1
                r += 1
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                scratch[c] = 0
        if r < 2:
            return r, 0.0
        return r, (r * (r - 1) - 2 * same) / (r - 1.0)
    if kind == KIND_INTERVAL:
        # Σ_{j≠j'} (x_j − x_j')² = 2 r Σ_j (x_j − x̄)²: centred, so no cancellation.
        s1 = 0.0
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                s1 += values[c]
                r += 1
        if r < 2:
            return r, 0.0
        mean = s1 / r
        ss = 0.0
        for j in range(k):
            c = codes[i, j]
            if c >= 0:
                d = values[c] - mean
                ss += d * d
        return r, 2.0 * r * ss / (r - 1.0)
    # ratio: no moment shortcut, sum over pairs
    acc = 0.0
    for j in range(k):
        c = codes[i, j]
        if c < 0:
            continue
        r += 1
        vc = values[c]
        for jj in range(j + 1, k):
            e = codes[i, jj]
            if e < 0:
                continue
            ve = values[e]
            den = vc + ve
            if den != 0.0:
                t = (vc - ve) / den
                acc += 2.0 * t * t
    if r < 2:
        return r, 0.0
    return r, acc / (r - 1.0)


@njit(cache=True, error_model="numpy", inline="always")
def _unit_stats(codes, i, values, kind, delta, bits, small, scratch, a):
    """``(r, q)`` of unit i (see ``_unit_disagreement``).

    With few categories (``small``), first count the unit's ratings per
    category into ``a`` (``packed_counts``: ``bits``-wide fields of one
    integer, no branch, no memory dependency between ratings); then ``q`` from the counts (for the
    ratio metric as ``Σ_ck a_c a_k δ²_ck / (r − 1)`` with the m × m ``delta``),
    and ``a`` is valid for the caller.
    Otherwise walk the ratings (O(r) or O(r²)); ``a`` is not filled.
    """
    if not small:
        return _unit_disagreement(codes, i, values, kind, scratch)
    m = a.shape[0]
    packed = np.int64(packed_counts(codes, i, bits))
    mask = (1 << bits) - 1
    r = 0
    if kind == KIND_NOMINAL:
        sq = 0
        for c in range(m):
            cnt = (packed >> (bits * c)) & mask
            a[c] = cnt
            r += cnt
            sq += cnt * cnt
        if r < 2:
            return r, 0.0
        return r, (r * r - sq) / (r - 1.0)  # ordered pairs of unequal values
    if kind == KIND_INTERVAL:
        s1 = 0.0
        for c in range(m):
            cnt = (packed >> (bits * c)) & mask
            a[c] = cnt
            r += cnt
            s1 += cnt * values[c]
        if r < 2:
            return r, 0.0
        mean = s1 / r
        ss = 0.0
        for c in range(m):
            d = values[c] - mean
            ss += a[c] * d * d
        return r, 2.0 * r * ss / (r - 1.0)
    for c in range(m):
        cnt = (packed >> (bits * c)) & mask
        a[c] = cnt
        r += cnt
    if r < 2:
        return r, 0.0
    acc = 0.0
    for c in range(m):
        s = 0.0
        for e in range(m):
            s += delta[c, e] * a[e]
        acc += a[c] * s
    return r, acc / (r - 1.0)


def _sums_impl(codes, values, kind, delta, bits, small, weights, use_weights, chunk, n_c, d_o,
               n_units):
    # Per chunk b: n_c[b, c] = Σ_u w_u a_uc over pairable units (the coincidence
    # marginals), d_o[b] = Σ_u w_u q_u, n_units[b] = Σ_u w_u (pairable units).
    n, k = codes.shape
    m = n_c.shape[1]
    for b in prange(n_c.shape[0]):
        scratch = np.zeros(m, dtype=np.int64)
        a = np.zeros(m, dtype=np.int64)
        local = np.zeros(m)
        do = 0.0
        nu = 0.0
        for i in range(b * chunk, min(n, (b + 1) * chunk)):
            w = weights[i] if use_weights else 1.0
            r, q = _unit_stats(codes, i, values, kind, delta, bits, small, scratch, a)
            if r < 2:
                continue
            do += w * q
            nu += w
            if small:
                for c in range(m):
                    local[c] += w * a[c]
            else:
                for j in range(k):
                    c = codes[i, j]
                    if c >= 0:
                        local[c] += w
        for c in range(m):  # element by element: an array assignment would compile
            n_c[b, c] = local[c]  # Numba's shape-mismatch error path (seconds)
        d_o[b] = do
        n_units[b] = nu


_sums_serial, _sums_parallel = serial_and_parallel(_sums_impl, error_model="numpy")


def _unit_terms_impl(codes, values, kind, delta, bits, small, m, r_out, q_out):
    n = codes.shape[0]
    n_chunks = -(-n // _MIN_CHUNK)
    for b in prange(n_chunks):
        scratch = np.zeros(m, dtype=np.int64)
        a = np.zeros(m, dtype=np.int64)
        for i in range(b * _MIN_CHUNK, min(n, (b + 1) * _MIN_CHUNK)):
            r, q = _unit_stats(codes, i, values, kind, delta, bits, small, scratch, a)
            r_out[i] = r
            q_out[i] = q


_unit_terms_serial, _unit_terms_parallel = serial_and_parallel(_unit_terms_impl, error_model="numpy")


def _gwet_se_impl(codes, values, kind, delta, bits, small, wpi, rbar, pa_p, pe, alpha_p, scale,
                  chunk, out):
    # Gwet (2014) linearised variance of α, as irrCAC's krippen.alpha.raw:
    # out[b] = Σ_u (α*_u − α')² over the pairable units of chunk b, where α*_u
    # is unit u's linearised term (see _krippendorff._gwet_constants).
    n, k = codes.shape
    m = wpi.shape[0]
    for b in prange(out.shape[0]):
        scratch = np.zeros(m, dtype=np.int64)
        a = np.zeros(m, dtype=np.int64)
        acc = 0.0
        for i in range(b * chunk, min(n, (b + 1) * chunk)):
            r, q = _unit_stats(codes, i, values, kind, delta, bits, small, scratch, a)
            if r < 2:
                continue
            g = 0.0
            if small:
                for c in range(m):
                    g += a[c] * wpi[c]
            else:
                for j in range(k):
                    c = codes[i, j]
                    if c >= 0:
                        g += wpi[c]
            dr = (r - rbar) / rbar
            pa_u = (r - q / scale) / rbar - pa_p * dr
            pe_u = g / rbar - pe * dr
            x = (pa_u - pe) / (1.0 - pe) - 2.0 * (1.0 - alpha_p) * (pe_u - pe) / (1.0 - pe)
            acc += (x - alpha_p) ** 2
        out[b] = acc


_gwet_se_serial, _gwet_se_parallel = serial_and_parallel(_gwet_se_impl, error_model="numpy")


def _coincidences_impl(codes, weights, use_weights, chunk, out):
    # out[b] = Σ_u w_u o_u over chunk b: o_u[c, k] = #(ordered pairs of distinct
    # ratings of unit u with values c, k) / (r_u − 1)  (Krippendorff 2011, o_ck).
    n, k = codes.shape
    for b in prange(out.shape[0]):
        for i in range(b * chunk, min(n, (b + 1) * chunk)):
            r = 0
            for j in range(k):
                if codes[i, j] >= 0:
                    r += 1
            if r < 2:
                continue
            w = (weights[i] if use_weights else 1.0) / (r - 1.0)
            for j in range(k):
                c = codes[i, j]
                if c < 0:
                    continue
                for jj in range(k):
                    e = codes[i, jj]
                    if jj != j and e >= 0:
                        out[b, c, e] += w


_coincidences_serial, _coincidences_parallel = serial_and_parallel(_coincidences_impl, error_model="numpy")


@njit(cache=True, error_model="numpy")
def _ratio_expected(values, n_c):
    # g_c = Σ_k n_k ((v_c − v_k)/(v_c + v_k))² over the used categories: O(m_used²)
    # time, O(m) memory.
    m = values.shape[0]
    used = np.flatnonzero(n_c > 0)
    g = np.zeros(m)
    for c in range(m):
        vc = values[c]
        acc = 0.0
        for t in range(used.shape[0]):
            e = used[t]
            den = vc + values[e]
            if den != 0.0:
                d = (vc - values[e]) / den
                acc += n_c[e] * d * d
        g[c] = acc
    return g


# ----------------------------------------------------------------- thin wrappers
def _prepare(codes: np.ndarray) -> np.ndarray:
    codes = np.ascontiguousarray(codes)
    if codes.dtype not in (np.int8, np.int16):
        codes = np.ascontiguousarray(codes, dtype=np.int16)
    return kernel_input(codes)


def _use_parallel(codes: np.ndarray, parallel: bool | None) -> bool:
    return codes.size >= PARALLEL_THRESHOLD if parallel is None else bool(parallel)


def _weights_arg(weights, n):
    if weights is None:
        return kernel_input(np.ones(1)), False
    w = kernel_input(weights, np.float64)
    if w.shape != (n,):
        raise ValueError(f"`item_weights` must have shape ({n},); got {w.shape}.")
    return w, True


# Up to this many categories (and while the packed counts fit 63 bits) a unit
# is first counted per category, then its disagreement is a m × m quadratic
# form; beyond, its ratings are walked one by one.
SMALL_M = 16


def _metric(values, kind, k):
    """Kernel arguments ``(values, delta, bits, small)`` for k raters."""
    v = kernel_input(values, np.float64)
    m = v.size
    bits = max(1, int(k).bit_length())
    if m > SMALL_M or m * bits > 63:
        return v, kernel_input(np.zeros((1, 1))), bits, False
    if kind == KIND_NOMINAL:
        delta = 1.0 - np.eye(m)
    elif kind == KIND_INTERVAL:
        delta = (v[:, None] - v[None, :]) ** 2
    else:
        s = v[:, None] + v[None, :]
        delta = np.divide(v[:, None] - v[None, :], s, out=np.zeros_like(s), where=s != 0) ** 2
    return v, kernel_input(delta, np.float64), bits, True


def unit_sums(codes, values, kind, m, weights=None, *, parallel=None):
    """``(n_c, Σ w q, Σ w)`` over pairable units; see ``_sums_impl``."""
    codes = _prepare(codes)
    n = codes.shape[0]
    w, use_w = _weights_arg(weights, n)
    chunk = chunk_size(n, m + 2)
    n_chunks = max(1, -(-n // chunk))
    n_c = np.zeros((n_chunks, m))
    d_o = np.zeros(n_chunks)
    n_units = np.zeros(n_chunks)
    fn = _sums_parallel if _use_parallel(codes, parallel) else _sums_serial
    v, delta, bits, small = _metric(values, kind, codes.shape[1])
    fn(codes, v, kind, delta, bits, small, w, use_w, chunk, n_c, d_o, n_units)
    return n_c.sum(axis=0), float(math.fsum(d_o)), float(math.fsum(n_units))


def unit_terms(codes, values, kind, m, *, parallel=None):
    """Per-unit ``(r_u, q_u)``: ratings and disagreement sum (0 when r_u < 2)."""
    codes = _prepare(codes)
    n = codes.shape[0]
    r = np.empty(n, dtype=np.int64)
    q = np.empty(n)
    v, delta, bits, small = _metric(values, kind, codes.shape[1])
    fn = _unit_terms_parallel if _use_parallel(codes, parallel) else _unit_terms_serial
    fn(codes, v, kind, delta, bits, small, m, r, q)
    return r, q


def gwet_se_sum(codes, values, kind, wpi, rbar, pa_p, pe, alpha_p, scale, *, parallel=None):
    """``Σ_u (α*_u − α')²`` over pairable units (Gwet's linearised terms)."""
    codes = _prepare(codes)
    n = codes.shape[0]
    chunk = chunk_size(n, 1)
    out = np.zeros(max(1, -(-n // chunk)))
    v, delta, bits, small = _metric(values, kind, codes.shape[1])
    fn = _gwet_se_parallel if _use_parallel(codes, parallel) else _gwet_se_serial
    fn(codes, v, kind, delta, bits, small, kernel_input(wpi, np.float64),
       float(rbar), float(pa_p), float(pe), float(alpha_p), float(scale), chunk, out)
    return float(math.fsum(out))


def coincidences(codes, m, weights=None, *, parallel=None):
    """Krippendorff's m × m coincidence matrix ``Σ_u w_u o_u``."""
    codes = _prepare(codes)
    n = codes.shape[0]
    w, use_w = _weights_arg(weights, n)
    chunk = chunk_size(n, m * m)
    out = np.zeros((max(1, -(-n // chunk)), m, m))
    fn = _coincidences_parallel if _use_parallel(codes, parallel) else _coincidences_serial
    fn(codes, w, use_w, chunk, out)
    return out.sum(axis=0)


def ratio_expected(values, n_c):
    """``g_c = Σ_k n_k δ²_ratio(c, k)`` for every category c."""
    return _ratio_expected(kernel_input(values, np.float64), kernel_input(n_c, np.float64))
