"""The engine on rows a caller built: statistics finalized from per-item rows, resampled.

For statistics the engine does not name (a coefficient of a subset of the
annotators, an average of several, their differences): the caller gives the
distinct per-item rows, how many items share each, and a ``finalize`` from
summed rows to the statistics; the engine draws the multinomial counts, sums
the rows per replicate without storing the counts, and returns the paired
:class:`BootstrapResult` (BCa included: the jackknife subtracts one row from
the total).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from simulation.bootstrap import _resample
from simulation.bootstrap._intervals import METHODS
from simulation.bootstrap._result import BootstrapResult, result_from_sums

__all__ = ["bootstrap_rows"]


@validate_params(n_resamples=Resamples(1), method=Option(METHODS),
                 confidence_level=ConfidenceLevel(), rng=Rng())
def bootstrap_rows(rows: npt.ArrayLike, finalize: Callable[[np.ndarray], np.ndarray], *,
                   names: Sequence[str], freq: npt.ArrayLike | None = None,
                   n_resamples: int = 9999, method: str = "percentile",
                   confidence_level: float = 0.95, rng: Any = None) -> BootstrapResult:
    """Bootstrap statistics that are functions of summed per-item rows (items resampled).

    Parameters
    ----------
    rows : array_like, shape (P, C)
        Per-item rows (or the distinct rows, with ``freq``), e.g. the
        :func:`agreement.item_statistics` rows of several coefficients side
        by side.
    finalize : callable
        Maps summed rows ``(..., C)`` to the statistics ``(..., S)``; called
        on the total, on every replicate (``(B, C)``) and on the jackknife.
    names : sequence of str
        The S statistics' names.
    freq : array_like of int, shape (P,), optional
        Items sharing each row (default one each).
    n_resamples : int, default 9999
    method : {"percentile", "basic", "bca"}, default "percentile"
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BootstrapResult
        Paired: :meth:`BootstrapResult.difference` gives any two statistics'
        difference from the same resamples.

    Examples
    --------
    >>> import numpy as np
    >>> from simulation import bootstrap_rows
    >>> x = np.random.default_rng(0).normal(size=(200, 1))
    >>> rows = np.column_stack([np.ones(200), x[:, 0]])  # n, Σx
    >>> res = bootstrap_rows(rows, lambda s: s[..., 1:] / s[..., :1], names=["mean"],
    ...                      n_resamples=999, rng=1)
    >>> bool(res.interval.low[0] < x.mean() < res.interval.high[0])
    True
    """
    check_params(bootstrap_rows, locals())
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] == 0:
        raise ValueError(f"`rows` must be a non-empty 2-d array (items × columns); got shape "
                         f"{rows.shape}.")
    freq = (np.ones(rows.shape[0], dtype=np.int64) if freq is None
            else np.ascontiguousarray(freq, dtype=np.int64))
    if freq.shape != (rows.shape[0],) or (freq < 0).any():
        raise ValueError("`freq` must give a non-negative count for each row of `rows`.")
    names = tuple(str(n) for n in names)
    seeds = _resample.replicate_seeds(rng, int(n_resamples))
    sums = _resample.multinomial_sums(freq, rows, seeds)
    return result_from_sums(names, finalize, rows, freq, sums, method=method,
                            confidence_level=float(confidence_level), scheme="multinomial",
                            n_items=int(freq.sum()), notes=[], stacklevel=2)
