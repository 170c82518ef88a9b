"""Numba kernels of the detection metrics: one pass over items sorted once.

Every metric takes a multiplicity (weight) per item, so a bootstrap
replicate is a re-weighting of the same sorted order, never a re-sort.
Items are sorted by score, highest first; ``last[i]`` marks the last item of
a run of tied scores (a distinct threshold).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# One keyed Poisson(1) generator for the package: the bootstrap engine's.
from _goldnoise_lib.resampling._kernels import POISSON_CDF, keyed_poisson
from _goldnoise_lib.threads import kernel_input

__all__ = ["POISSON_CDF", "metrics_weighted", "poisson_weights", "stratified_bootstrap"]

# metric columns of the kernels' output
AP, AUROC, TP_AT_K, PRECISION_AT_K, RECALL_AT_K, F1_AT_K = range(6)
N_METRICS = 6

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


@njit(cache=True)
def _draw_weights(hashes, rep, y, cdf, buf):
    """Poisson(1) weight of each item (in score order), and the scale of each stratum.

    The weights are the bootstrap engine's keyed Poisson(1) draws
    (``keyed_poisson(item hash, replicate)``); rescaling the weights of errors
    and non-errors to the strata's sizes makes every replicate hold as many
    errors (in weight) as the data.
    """
    s_pos = 0.0
    s_neg = 0.0
    for i in range(hashes.shape[0]):
        w = keyed_poisson(hashes[i], rep, cdf)
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
def poisson_weights(hashes, rep, y, cdf):
    """The rescaled weights of replicate ``rep``, in score order (for tests and adapters)."""
    buf = np.empty(hashes.shape[0], dtype=np.uint8)
    c_pos, c_neg = _draw_weights(hashes, np.uint64(rep), y, cdf, buf)
    out = np.empty(hashes.shape[0])
    for i in range(hashes.shape[0]):
        out[i] = buf[i] * (c_pos if y[i] else c_neg)
    return out


@njit(cache=True, error_model="numpy")
def _replicate(rep, y, last, hashes, k, cdf, pw, pp, pn, gtp, gp, gn, gfp, out):
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
        w = np.float64(keyed_poisson(hashes[i], rep, cdf))
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
def stratified_bootstrap(y, last, hashes, k, first, n_rep, cdf, n_chunks):
    """Metrics of replicates ``first .. first + n_rep − 1``, parallel over chunks of them.

    ``hashes`` are the items' keyed hashes in score order
    (the resampling core's ``item_hashes(seed, item keys)``): replicate
    ``r`` weighs an item by the engine's Poisson(1) draw keyed by
    ``(seed, item id, r)``, rescaled within errors and within non-errors to
    the strata's sizes. The weights do not depend on the order of the items,
    so two rankings of the same items scored with the same seed are paired,
    and results do not depend on the thread count. One pass per replicate,
    in score order: no random memory access.
    """
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
            _replicate(first + np.uint64(r), y, last, hashes, k, cdf, pw, pp, pn, gtp, gp, gn,
                       gfp, out[r])
    return out


_RADIX_BITS = 11
_RADIX = 1 << _RADIX_BITS


@njit(cache=True, error_model="numpy")
def _radix_descending(scores):
    """Stable argsort of ``-scores`` (finite float64) and the sorted keys: each score
    mapped to an unsigned 64-bit key that orders as ``-score`` (``-0.0`` as ``0.0``),
    the six 11-bit digit histograms counted in the same pass, then least significant
    digit first (a digit that is the same for every key is skipped)."""
    n = scores.size
    neg = np.empty(n, dtype=np.float64)
    for i in range(n):
        neg[i] = -scores[i] + 0.0  # -0.0 -> 0.0: they tie, as in numpy
    bits = neg.view(np.uint64)
    top = np.uint64(1) << np.uint64(63)
    mask = np.uint64(_RADIX - 1)
    k = np.empty(n, dtype=np.uint64)
    hist = np.zeros((6, _RADIX + 1), dtype=np.int64)
    for i in range(n):
        b = bits[i]
        key = ~b if b & top else b | top  # order-preserving map of IEEE doubles
        k[i] = key
        for p in range(6):
            hist[p, np.intp((key >> np.uint64(p * _RADIX_BITS)) & mask) + 1] += 1
    idx = np.arange(n)
    idx2 = np.empty(n, dtype=idx.dtype)
    k2 = np.empty(n, dtype=np.uint64)
    for p in range(6):
        counts = hist[p]
        if counts.max() == n:
            continue
        shift = np.uint64(p * _RADIX_BITS)
        for d in range(_RADIX):
            counts[d + 1] += counts[d]
        for i in range(n):
            d = np.intp((k[i] >> shift) & mask)
            pos = counts[d]
            counts[d] = pos + 1
            k2[pos] = k[i]
            idx2[pos] = idx[i]
        k, k2 = k2, k
        idx, idx2 = idx2, idx
    return idx, k


def argsort_descending(scores: np.ndarray) -> np.ndarray:
    """``np.argsort(-scores, kind="stable")`` for finite float64 scores, by a radix sort:
    the same order (ties, and -0.0 with 0.0, in index order)."""
    return _radix_descending(kernel_input(scores, np.float64))[0]


def sort_descending(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`argsort_descending` and the sorted keys (equal keys: equal scores)."""
    return _radix_descending(kernel_input(scores, np.float64))
