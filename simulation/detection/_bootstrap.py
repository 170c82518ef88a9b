"""Detection metrics through :func:`simulation.bootstrap` (its weights, intervals, result).

``bootstrap(["average_precision", "auroc"], (scores, is_error), ...)`` comes
here: the items are sorted once, the bootstrap engine's resample weights
(stratified multinomial counts, or Poisson(1) weights keyed by item id) are
drawn in blocks, and each replicate is one weighted pass of the detection
kernel. Intervals and the result are the engine's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from _goldnoise_lib.lazy import lazy_module
from simulation.bootstrap import _resample
from simulation.bootstrap._result import BootstrapResult
from _goldnoise_lib.validation import check_confidence_level, check_resamples
from simulation.detection._metrics import (
    _COLS,
    INTERVAL_METHODS,
    METRICS,
    _check_k,
    _scores_and_truth,
    _sort,
    bootstrap_result,
)

# Numba kernels, imported at first use (import simulation stays fast).
K = lazy_module("simulation.detection._kernels")

__all__ = ["detection_bootstrap", "is_detection_request"]

# replicates per block of weights (bounds the memory of the weight matrix)
_BLOCK_CELLS = 2**24


def _names(statistics: Any) -> list[Any]:
    return list(statistics) if isinstance(statistics, (list, tuple)) else [statistics]


def is_detection_request(statistics: Any, data: Any) -> bool:
    """Whether a ``bootstrap`` call names detection metrics on ``(scores, is_error)``."""
    names = _names(statistics)
    return bool(names) and all(isinstance(s, str) and s in METRICS for s in names) and \
        isinstance(data, tuple) and len(data) == 2


def detection_bootstrap(statistics: Any, data: tuple[Any, Any], *, n_resamples: int,
                        method: str, confidence_level: float, scheme: str, rng: Any,
                        k: int | None = None) -> BootstrapResult:
    """Bootstrap of detection metrics with the engine's resample weights.

    ``scheme="multinomial"``: within errors and within non-errors as many
    items are drawn with replacement as the stratum holds. ``"poisson"``:
    Poisson(1) weights keyed by (seed, item id, replicate), rescaled within
    each stratum to its size.
    """
    names = _names(statistics)
    if len(set(names)) != len(names):
        raise ValueError(f"`statistics` names a metric twice: {names}.")
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"`method` must be one of {list(INTERVAL_METHODS)} for detection metrics; got "
            f"{method!r} (BCa needs a leave-one-out jackknife, O(n²) for average precision)."
        )
    if scheme not in ("multinomial", "poisson"):
        raise ValueError(f"`scheme` must be 'multinomial' or 'poisson'; got {scheme!r}.")
    n_resamples = check_resamples(n_resamples, minimum=0)
    level = check_confidence_level(confidence_level)
    scores, is_error = data
    values, truth, items = _scores_and_truth(scores, is_error)
    n = len(values)
    k = _check_k(k, n, int(truth.sum()))
    srt = _sort(values, truth, items)
    cols = [_COLS[METRICS.index(s)] for s in names]
    point = K.metrics_weighted(srt.y, srt.last, np.ones((1, n)), float(k))[0, cols]
    dist = np.empty((n_resamples, len(names)))
    block = max(1, _BLOCK_CELLS // max(n, 1))
    if scheme == "multinomial":
        seeds = _resample.replicate_seeds(rng, n_resamples)
    else:
        seed = _resample.poisson_seed(rng)
        keys = _resample.item_keys(items)
    for lo in range(0, n_resamples, block):
        hi = min(lo + block, n_resamples)
        if scheme == "multinomial":
            w = _resample.multinomial_counts(np.ones(n, dtype=np.int64), seeds[lo:hi],
                                             strata=truth).astype(np.float64)
        else:
            w = _resample.poisson_weights(seed, keys, hi - lo, first=lo).astype(np.float64)
            for stratum in (truth, ~truth):
                tot = w[:, stratum].sum(axis=1, keepdims=True)
                with np.errstate(invalid="ignore", divide="ignore"):
                    w[:, stratum] *= np.where(tot > 0, stratum.sum() / tot, np.nan)
        raw = K.metrics_weighted(srt.y, srt.last, np.ascontiguousarray(w[:, srt.order]),
                                 float(k))
        dist[lo:hi] = raw[:, cols]
    return bootstrap_result(point, dist, method=method, confidence_level=level, scheme=scheme,
                            n_items=n, names=tuple(names))
