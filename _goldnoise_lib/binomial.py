"""``binomial_interval``: the one two-sided interval of a binomial share k / n.

``"exact"`` is Clopper–Pearson as its beta quantiles (Clopper & Pearson 1934):
``low = B⁻¹(α/2; k, n − k + 1)`` (0 at k = 0), ``high = B⁻¹(1 − α/2; k + 1, n − k)`` (1 at
k = n). ``"wilson"`` is the score interval (Wilson 1927), written as statsmodels'
``proportion_confint(method="wilson")`` writes it. Vectorised over ``k`` and ``n``; an
empty sample (n = 0) gives NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["binomial_interval"]

METHODS = ("exact", "wilson")


def binomial_interval(k: Any, n: Any, level: float = 0.95,
                      method: str = "exact") -> tuple[Any, Any]:
    """Two-sided ``level`` interval of the share ``k / n`` (floats for scalars, else arrays).

    Examples
    --------
    >>> from _goldnoise_lib.binomial import binomial_interval
    >>> [round(v, 4) for v in binomial_interval(8, 10)]
    [0.4439, 0.9748]
    >>> [round(v, 4) for v in binomial_interval(8, 10, method="wilson")]
    [0.4902, 0.9433]
    """
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {METHODS}; got {method!r}.")
    scalar = np.ndim(k) == 0 and np.ndim(n) == 0
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    tail = (1.0 - float(level)) / 2.0
    some = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "exact":
            from scipy.stats import beta

            low = np.where(k == 0, 0.0, beta.ppf(tail, k, n - k + 1))
            high = np.where(k == n, 1.0, beta.ppf(1.0 - tail, k + 1, n - k))
        else:
            from scipy.stats import norm

            crit = norm.isf(tail)
            share = k / n
            crit2 = crit ** 2
            denom = 1 + crit2 / n
            center = (share + crit2 / (2 * n)) / denom
            dist = crit * np.sqrt(share * (1.0 - share) / n + crit2 / (4.0 * n ** 2)) / denom
            low, high = center - dist, center + dist
    low = np.where(some, low, np.nan)
    high = np.where(some, high, np.nan)
    if scalar:
        return float(low), float(high)
    return low, high
