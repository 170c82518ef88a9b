"""Numba kernels of the detection metrics: one pass over items sorted once.

Every metric takes a multiplicity (weight) per item, so a bootstrap
replicate is a re-weighting of the same sorted order, never a re-sort.
Items are sorted by score, highest first; ``last[i]`` marks the last item of
a run of tied scores (a distinct threshold).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["metrics_weighted", "stratified_bootstrap", "stratified_counts"]

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


@njit(cache=True, inline="always")
def _below(x, m):
    # Lemire's multiply-shift: a 32-bit draw mapped onto 0..m-1 (m < 2**32).
    return np.int64(((x >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


@njit(cache=True)
def _fill_counts(seed, pos_rank, neg_rank, counts):
    """Stratified multinomial draw: as many errors and non-errors as in the data.

    Draw ``t`` of stratum ``s`` is item ``stratum[splitmix64(seed, s, t) mod size]``
    (the strata listed in item order), its count added at the item's place in
    score order. So the replicate keyed by ``seed`` draws the same items
    whatever the ranking: replicates of two rankings are paired.
    """
    counts[:] = 0.0
    npos = pos_rank.shape[0]
    nneg = neg_rank.shape[0]
    base = seed * np.uint64(2)
    for t in range(npos):
        x = _splitmix64(base ^ (np.uint64(t) * _GOLDEN))
        counts[pos_rank[_below(x, npos)]] += 1.0
    base = base + np.uint64(1)
    for t in range(nneg):
        x = _splitmix64(base ^ (np.uint64(t) * _GOLDEN))
        counts[neg_rank[_below(x, nneg)]] += 1.0


@njit(cache=True)
def stratified_counts(seed, pos_rank, neg_rank, n):
    """The multiplicities of one replicate, in score order (for tests and adapters)."""
    counts = np.empty(n)
    _fill_counts(np.uint64(seed), pos_rank, neg_rank, counts)
    return counts


@njit(cache=True, parallel=True)
def stratified_bootstrap(y, last, pos_rank, neg_rank, k, seeds, n_chunks):
    """Metrics of ``len(seeds)`` stratified replicates, parallel over chunks of them.

    Each replicate depends only on its own seed, so results are identical
    whatever the number of threads.
    """
    n_rep = seeds.shape[0]
    out = np.empty((n_rep, N_METRICS))
    n = y.shape[0]
    for c in prange(n_chunks):
        counts = np.empty(n)
        lo = c * n_rep // n_chunks
        hi = (c + 1) * n_rep // n_chunks
        for r in range(lo, hi):
            _fill_counts(seeds[r], pos_rank, neg_rank, counts)
            _metrics_into(y, last, counts, k, out[r])
    return out
