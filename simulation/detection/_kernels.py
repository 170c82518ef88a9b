"""Numba kernels of the detection metrics: one pass over items sorted once.

Every metric takes a multiplicity (weight) per item, so a bootstrap
replicate is a re-weighting of the same sorted order, never a re-sort.
Items are sorted by score, highest first; ``last[i]`` marks the last item of
a run of tied scores (a distinct threshold).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["metrics_weighted", "poisson_table", "poisson_weights", "stratified_bootstrap"]

# metric columns of the kernels' output
AP, AUROC, TP_AT_K, PRECISION_AT_K, RECALL_AT_K, F1_AT_K = range(6)
N_METRICS = 6

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, error_model="numpy")
def _metrics_into(y, last, w, k, out):
    """AP, AUROC and the counts at ``k`` of one weighting; writes ``out[0:6]``.

    y[i] in {0, 1} (is an error), in score order; w[i] >= 0 multiplicity.
    AP is scikit-learn's: Σ over distinct thresholds of ΔR · P (no
    interpolation). AUROC counts a tied (error, non-error) pair as ½. The top
    ``k`` take whole items in score order (ties broken by that order) and the
    item that crosses ``k`` partly, as copies of an item are adjacent.
    """
    n = y.shape[0]
    pos = 0.0
    neg = 0.0
    for i in range(n):
        if y[i]:
            pos += w[i]
        else:
            neg += w[i]
    tp = 0.0
    fp = 0.0
    g_tp = 0.0
    g_fp = 0.0
    ap = 0.0
    auc = 0.0
    seen = 0.0
    tp_k = 0.0
    for i in range(n):
        wi = w[i]
        if y[i]:
            g_tp += wi
            if seen < k:
                take = min(wi, k - seen)
                tp_k += take
        else:
            g_fp += wi
        seen += wi
        if last[i]:
            if g_tp > 0.0:
                tp += g_tp
                fp += g_fp
                ap += g_tp * (tp / (tp + fp))
                # errors in this group beat every non-error below it, tie with its own
                auc += g_tp * (neg - fp) + 0.5 * g_tp * g_fp
            else:
                fp += g_fp
            g_tp = 0.0
            g_fp = 0.0
    out[AP] = ap / pos if pos > 0 else np.nan
    out[AUROC] = auc / (pos * neg) if pos > 0 and neg > 0 else np.nan
    out[TP_AT_K] = tp_k
    kk = min(k, seen)
    out[PRECISION_AT_K] = tp_k / kk if kk > 0 else np.nan
    out[RECALL_AT_K] = tp_k / pos if pos > 0 else np.nan
    out[F1_AT_K] = 2.0 * tp_k / (kk + pos) if kk + pos > 0 else np.nan


@njit(cache=True)
def metrics_weighted(y, last, w, k):
    """Metrics of several weightings ``w`` (replicates × items, in score order)."""
    out = np.empty((w.shape[0], N_METRICS))
    for r in range(w.shape[0]):
        _metrics_into(y, last, w[r], k, out[r])
    return out


@njit(cache=True, inline="always")
def _splitmix64(x):
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def poisson_table() -> np.ndarray:
    """``floor(2**64 · P(Poisson(1) ≤ j))`` for j = 0..19: thresholds of an inverse-CDF draw."""
    from math import exp, factorial

    cdf = 0.0
    out = np.empty(20, dtype=np.uint64)
    for j in range(20):
        cdf += exp(-1.0) / factorial(j)
        out[j] = np.uint64(min(int(cdf * 2.0**64), 2**64 - 1))
    return out


@njit(cache=True, inline="always")
def _poisson1(seed, item, table):
    # Poisson(1) by inversion of one 64-bit draw keyed by (replicate seed, item):
    # the splitmix64 stream of the replicate at position `item`. Branch-free up
    # to 7 (P(X > 7) = 1e-5), then a loop.
    x = _splitmix64(seed + np.uint64(item) * _GOLDEN)
    j = ((x >= table[0]) + (x >= table[1]) + (x >= table[2]) + (x >= table[3])
         + (x >= table[4]) + (x >= table[5]) + (x >= table[6]))
    if j == 7:
        while j < 19 and x >= table[j]:
            j += 1
    return j


@njit(cache=True)
def _draw_weights(seed, order, y, table, buf):
    """Poisson(1) weight of each item (in score order), and the scale of each stratum.

    Rescaling the weights of errors and non-errors to the strata's sizes
    makes every replicate hold as many errors (in weight) as the data.
    """
    s_pos = 0.0
    s_neg = 0.0
    for i in range(order.shape[0]):
        w = _poisson1(seed, order[i], table)
        buf[i] = w
        if y[i]:
            s_pos += w
        else:
            s_neg += w
    n_pos = 0.0
    for i in range(y.shape[0]):
        n_pos += y[i]
    n_neg = y.shape[0] - n_pos
    c_pos = n_pos / s_pos if s_pos > 0 else np.nan
    c_neg = n_neg / s_neg if s_neg > 0 else np.nan
    return c_pos, c_neg


@njit(cache=True)
def poisson_weights(seed, order, y, table):
    """The weights of one replicate, in score order (for tests and adapters)."""
    buf = np.empty(order.shape[0], dtype=np.uint8)
    c_pos, c_neg = _draw_weights(np.uint64(seed), order, y, table, buf)
    out = np.empty(order.shape[0])
    for i in range(order.shape[0]):
        out[i] = buf[i] * (c_pos if y[i] else c_neg)
    return out


@njit(cache=True, error_model="numpy")
def _replicate(seed, y, last, order, k, table, pw, pp, pn, gtp, gp, gn, gfp, out):
    """One stratified Poisson replicate in a single pass over the items.

    The weights are drawn as the pass goes; what the metrics need is kept
    for the errors only (their raw weight and the raw weights before them,
    and per tie group holding errors its totals), and finished once the
    strata's totals, hence their scales, are known.
    """
    n = y.shape[0]
    n_pos = 0.0
    for i in range(n):
        n_pos += y[i]
    n_neg = n - n_pos
    P = 0.0
    N = 0.0
    g_tp = 0.0
    g_fp = 0.0
    n_p = 0
    n_g = 0
    for i in range(n):
        w = np.float64(_poisson1(seed, order[i], table))
        if y[i]:
            pw[n_p] = w
            pp[n_p] = P
            pn[n_p] = N
            n_p += 1
            P += w
            g_tp += w
        else:
            N += w
            g_fp += w
        if last[i]:
            if g_tp > 0.0:
                gtp[n_g] = g_tp
                gp[n_g] = P
                gn[n_g] = N
                gfp[n_g] = g_fp
                n_g += 1
            g_tp = 0.0
            g_fp = 0.0
    c_pos = n_pos / P if P > 0 else np.nan
    c_neg = n_neg / N if N > 0 else np.nan
    ap = 0.0
    auc = 0.0
    for q in range(n_g):
        tp = c_pos * gp[q]
        fp = c_neg * gn[q]
        ap += c_pos * gtp[q] * (tp / (tp + fp))
        auc += gtp[q] * ((N - gn[q]) + 0.5 * gfp[q])
    tp_k = 0.0
    for t in range(n_p):
        before = c_pos * pp[t] + c_neg * pn[t]
        if before >= k:
            break
        tp_k += min(c_pos * pw[t], k - before)
    out[AP] = ap / n_pos if n_pos > 0 else np.nan
    out[AUROC] = auc / (P * N) if P > 0 and N > 0 else np.nan
    out[TP_AT_K] = tp_k
    kk = min(k, np.float64(n))
    out[PRECISION_AT_K] = tp_k / kk if kk > 0 else np.nan
    out[RECALL_AT_K] = tp_k / n_pos if n_pos > 0 else np.nan
    out[F1_AT_K] = 2.0 * tp_k / (kk + n_pos) if kk + n_pos > 0 else np.nan


@njit(cache=True, parallel=True)
def stratified_bootstrap(y, last, order, k, seeds, table, n_chunks):
    """Metrics of ``len(seeds)`` replicates, parallel over chunks of them.

    Replicate ``r`` weighs item ``i`` (input position) by a Poisson(1) draw
    keyed by ``(seeds[r], i)``, rescaled within errors and within
    non-errors to the strata's sizes. The weights do not depend on the
    order of the items, so two rankings of the same items scored with the
    same seeds are paired, and results do not depend on the thread count.
    One pass per replicate, in score order: no random memory access.
    """
    n_rep = seeds.shape[0]
    out = np.empty((n_rep, N_METRICS))
    n_pos = 0
    for i in range(y.shape[0]):
        n_pos += y[i]
    for c in prange(n_chunks):
        pw = np.empty(n_pos)
        pp = np.empty(n_pos)
        pn = np.empty(n_pos)
        gtp = np.empty(n_pos)
        gp = np.empty(n_pos)
        gn = np.empty(n_pos)
        gfp = np.empty(n_pos)
        lo = c * n_rep // n_chunks
        hi = (c + 1) * n_rep // n_chunks
        for r in range(lo, hi):
            _replicate(seeds[r], y, last, order, k, table, pw, pp, pn, gtp, gp, gn, gfp,
                       out[r])
    return out
