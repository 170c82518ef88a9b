"""Bootstrap confidence intervals from any (estimate, distribution, jackknife) arrays.

:func:`confidence_intervals` knows nothing about where the replicates came
from: coefficients, detection metrics or differences of either. Conventions
follow ``scipy.stats.bootstrap`` (Efron & Tibshirani 1993, ch. 13–14), so that
given the same replicates the intervals are the same:

* percentile: the ``(1 − c)/2`` and ``(1 + c)/2`` quantiles of the replicates
  (linear interpolation, NumPy's default);
* basic: ``2 θ̂ − q_high, 2 θ̂ − q_low``;
* BCa: quantiles at ``Φ(z0 + (z0 + z)/(1 − a (z0 + z)))`` for ``z = ±z_{(1−c)/2}``,
  with bias ``z0 = Φ⁻¹((#{θ* < θ̂} + #{θ* ≤ θ̂}) / 2B)`` and acceleration
  ``a = Σ w_i u_i³ / (6 (Σ w_i u_i²)^{3/2})``, ``u_i = θ̄ − θ_(i)`` over the
  leave-one-item-out values ``θ_(i)`` (Efron & Tibshirani 1993, eq. 14.15),
  ``w_i`` the number of items sharing a value (``θ̄`` the weighted mean).

Replicates that are NaN (the statistic undefined on that resample) are left
out of the quantiles and the standard error; the caller counts and reports them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from _goldnoise_lib.lazy import lazy_module

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")

__all__ = ["IntervalSet", "acceleration", "confidence_intervals"]

METHODS = ("percentile", "basic", "bca")


class IntervalSet(NamedTuple):
    """Per statistic: interval, SE, BCa's bias and acceleration, replicates used, clipping."""

    low: np.ndarray
    high: np.ndarray
    standard_error: np.ndarray
    bias: np.ndarray
    acceleration: np.ndarray
    n_used: np.ndarray
    clipped: np.ndarray


def acceleration(jackknife: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """BCa's acceleration from leave-one-out values ``jackknife`` (n, S), rows weighted.

    Leave-one-out values that are NaN (the statistic undefined without that
    item) are left out; NaN where every remaining value is the same.
    """
    th = np.asarray(jackknife, dtype=np.float64)
    if th.ndim == 1:
        th = th[:, None]
    w = np.ones(th.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    ok = np.isfinite(th)
    wt = np.where(ok, w[:, None], 0.0)
    th = np.where(ok, th, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (wt * th).sum(axis=0) / wt.sum(axis=0)
        u = mean - th
        num = (wt * u**3).sum(axis=0)
        den = (wt * u**2).sum(axis=0) ** 1.5
        return np.where(den > 0, num / np.where(den > 0, 6.0 * den, 1.0), np.nan)


def confidence_intervals(estimate, distribution, *, method: str, confidence_level: float,
                         jackknife=None, jackknife_weights=None, bounds=None) -> IntervalSet:
    """Intervals of S statistics from their replicates.

    Parameters
    ----------
    estimate : array_like, shape (S,)
    distribution : array_like, shape (B, S)
        Replicates; NaN marks an undefined replicate.
    method : {"percentile", "basic", "bca"}
    confidence_level : float in (0, 1)
    jackknife : array_like, shape (n, S), optional
        Leave-one-out values (required for ``"bca"``).
    jackknife_weights : array_like, shape (n,), optional
        How many items each jackknife row stands for (default one each).
    bounds : array_like, shape (S, 2), optional
        The statistics' ranges; intervals are clipped to them.
    """
    est = np.atleast_1d(np.asarray(estimate, dtype=np.float64))
    dist = np.asarray(distribution, dtype=np.float64).reshape(-1, est.size)
    s_count = est.size
    tail = (1.0 - confidence_level) / 2.0
    low, high, se, bias, acc, used = (np.full(s_count, np.nan) for _ in range(6))
    clipped = np.zeros(s_count, dtype=bool)
    if method == "bca":
        if jackknife is None:
            raise ValueError("`jackknife` is needed for BCa intervals.")
        acc = acceleration(np.asarray(jackknife).reshape(-1, s_count), jackknife_weights)
    for s in range(s_count):
        d = dist[:, s]
        d = d[np.isfinite(d)]
        used[s] = d.size
        if d.size < 2 or not np.isfinite(est[s]):
            continue
        se[s] = d.std(ddof=1)
        probs = np.array([tail, 1.0 - tail])
        if method == "bca":
            z0 = special.ndtri((np.count_nonzero(d < est[s]) + np.count_nonzero(d <= est[s]))
                       / (2.0 * d.size))
            bias[s] = z0
            z = np.array([special.ndtri(tail), -special.ndtri(tail)])
            num = z0 + z
            probs = special.ndtr(z0 + num / (1.0 - acc[s] * num))
            if not np.all(np.isfinite(probs)):
                continue
        q = np.quantile(d, probs)
        lo, hi = (2.0 * est[s] - q[1], 2.0 * est[s] - q[0]) if method == "basic" else q
        if bounds is not None:
            b_lo, b_hi = np.asarray(bounds, dtype=np.float64)[s]
            if lo < b_lo or hi > b_hi:
                clipped[s] = True
                # both ends into the range (a basic interval can lie wholly beyond it)
                lo, hi = min(max(lo, b_lo), b_hi), max(min(hi, b_hi), b_lo)
        low[s], high[s] = lo, hi
    return IntervalSet(low, high, se, bias, acc, used.astype(np.int64), clipped)
