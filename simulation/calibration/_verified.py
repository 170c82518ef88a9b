"""Coverage of the verified-sample bound (``noise_models.verified_sample_bound``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import (
    Alpha,
    Integer,
    Rng,
    check_integer,
    check_params,
    check_rng,
    validate_params,
)
from noise_models import verified_sample_bound
from simulation.calibration._common import check_counts, coverage_interval

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_stats = lazy_module("scipy.stats")

__all__ = ["verified_sample_coverage"]


@validate_params(n_agreed=Integer(1), sample_size=Integer(1), alpha=Alpha(), n_sims=Integer(1),
                 rng=Rng())
def verified_sample_coverage(
    n_agreed: int,
    error_counts: Any,
    *,
    sample_size: int,
    alpha: float = 0.95,
    n_sims: int = 1000,
    rng: Any = None,
    _progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Coverage of :func:`noise_models.verified_sample_bound` across true error counts.

    For each true number K of wrong labels among ``n_agreed`` agreed items,
    ``n_sims`` random samples of ``sample_size`` items are checked (the errors
    found are hypergeometric) and the bound's ``max_errors`` is computed; the
    bound covers when ``K ≤ max_errors``. It should do so in at least a share
    α of draws for every K.

    Parameters
    ----------
    n_agreed : int
        Items in the agreed subset (≥ 1).
    error_counts : int or list of int
        True numbers of wrong labels, each in 0..n_agreed.
    sample_size : int
        Items verified per draw (1..n_agreed).
    alpha : float, default 0.95
        The bound's confidence.
    n_sims : int, default 1000
    rng : None, int or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        One row per error count: ``error_count``, ``error_share``,
        ``coverage``, ``coverage_low``, ``coverage_high`` (Wilson 95%,
        statsmodels), ``exact_coverage`` (the hypergeometric sum over the
        errors found), ``mean_max_errors``, ``n_sims``.

    Examples
    --------
    >>> from simulation import verified_sample_coverage
    >>> tab = verified_sample_coverage(10_000, [0, 100, 500], sample_size=500, n_sims=300, rng=0)
    >>> bool((tab["exact_coverage"] >= 0.95).all())
    True
    """
    check_params(verified_sample_coverage, locals())
    n_pop = check_integer(n_agreed, "n_agreed", 1)
    errs = check_counts(error_counts, "error_counts", n_pop, "n_agreed")
    s = check_integer(sample_size, "sample_size", 1)
    if s > n_pop:
        raise ValueError(f"`sample_size` ({s}) cannot exceed `n_agreed` ({n_pop}).")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"`alpha` must be in (0, 1); got {alpha!r}.")
    n_sims = check_integer(n_sims, "n_sims", 1)
    gen = check_rng(rng)
    bound: dict[int, int] = {}

    def max_errors(e: int) -> int:
        if e not in bound:
            bound[e] = verified_sample_bound(n_pop, s, e, alpha=alpha).max_errors
        return bound[e]

    rows = []
    for k in errs:
        k = int(k)
        found = gen.hypergeometric(k, n_pop - k, s, size=n_sims)
        ub = np.array([max_errors(int(e)) for e in found])
        hits = int(np.count_nonzero(k <= ub))
        low, high = coverage_interval(hits, n_sims)
        support = np.arange(max(0, s - (n_pop - k)), min(k, s) + 1)
        ok = np.array([k <= max_errors(int(e)) for e in support])
        exact = float(_stats.hypergeom.pmf(support, n_pop, k, s)[ok].sum())
        rows.append({"error_count": k, "error_share": k / n_pop, "coverage": hits / n_sims,
                     "coverage_low": low, "coverage_high": high, "exact_coverage": exact,
                     "mean_max_errors": float(ub.mean()), "n_sims": n_sims})
        if _progress is not None:
            _progress(n_sims)
    return pd.DataFrame(rows)
