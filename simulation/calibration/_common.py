"""Shared checks and the binomial interval of a coverage estimate."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_counts", "coverage_interval"]


def check_counts(values: Any, name: str, high: int, high_name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values))
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must be a non-empty list of integers; got {values!r}.")
    if arr.min() < 0 or arr.max() > high:
        raise ValueError(f"`{name}` must lie in 0..{high_name} = 0..{high}; got {values!r}.")
    return arr.astype(np.int64)


def coverage_interval(hits: int, total: int) -> tuple[float, float]:
    """Wilson 95% interval of a coverage ``hits / total`` (``binomial_interval``)."""
    from _goldnoise_lib.binomial import binomial_interval

    if total == 0:
        return float("nan"), float("nan")
    lo, hi = binomial_interval(hits, total, 0.95, method="wilson")
    share = hits / total  # the Wilson limits can miss 0 or 1 by rounding
    return float(min(lo, share)), float(max(hi, share))
