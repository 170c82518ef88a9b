"""Resample per-item sums and finalize: the entry for every statistic of summed rows.

Every agreement coefficient, span statistic and F1 is ``finalize(Σ_i s_i)`` over
per-item rows ``s_i``. A replicate draws items with replacement (or weights
them by Poisson(1) draws keyed by item id); item ``i`` drawn ``c_i`` times
contributes ``c_i s_i``, so the replicate is ``finalize(c @ S)`` and nothing is
recomputed from labels. Items sharing a row are merged (``freq``): drawing n
items with replacement is a multinomial over the P distinct rows, O(P) per
replicate however large n is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from _goldnoise_lib.resampling import weights
from _goldnoise_lib.resampling.result import DEGENERATE, BootstrapResult, result_from_sums

__all__ = ["bootstrap_sums"]

#: Replicates per block when progress is reported (and the bound on the memory of the
#: Poisson counts, with the number of cells below).
BLOCK = 256
_POISSON_CELLS = 1 << 24


def replicate_sums(rows: np.ndarray, freq: np.ndarray, n_resamples: int, rng: Any, *,
                   scheme: str = "multinomial", keys: npt.ArrayLike | None = None,
                   groups: npt.ArrayLike | None = None,
                   progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The summed rows ``c @ rows`` of every replicate (B, C).

    ``"multinomial"``: ``Σ freq`` items drawn with replacement (one seed per
    replicate, no counts stored). ``"poisson"``: each item (``keys``, its row
    ``groups``) weighted by a Poisson(1) draw keyed by (seed, item, replicate).
    Replicates run in blocks only to report ``progress`` (and to bound the
    Poisson counts' memory): the sums do not depend on the blocks.
    """
    sums = np.empty((n_resamples, rows.shape[1]))
    if scheme == "multinomial":
        seeds = weights.replicate_seeds(rng, n_resamples)
        block = BLOCK if progress is not None else n_resamples
    else:
        seed = weights.poisson_seed(rng)
        block = max(1, min(n_resamples, _POISSON_CELLS // freq.size,
                           BLOCK if progress is not None else n_resamples))
    for lo in range(0, n_resamples, block):
        hi = min(n_resamples, lo + block)
        if scheme == "multinomial":
            sums[lo:hi] = weights.multinomial_sums(freq, rows, seeds[lo:hi])
        else:
            counts = weights.poisson_counts(seed, keys, groups, freq.size, hi - lo, first=lo)
            sums[lo:hi] = weights.replicate_sums(counts, rows)
        if progress is not None:
            progress(hi - lo)
    return sums


def bootstrap_sums(rows: npt.ArrayLike, finalize: Callable[[np.ndarray], np.ndarray], *,
                   names: Sequence[str], n_resamples: int, rng: Any,
                   freq: npt.ArrayLike | None = None, method: str = "percentile",
                   confidence_level: float = 0.95, scheme: str = "multinomial",
                   keys: npt.ArrayLike | None = None, groups: npt.ArrayLike | None = None,
                   bounds: npt.ArrayLike | None = None, degenerate: str = DEGENERATE,
                   notes: Sequence[str] = (), n_items: int | None = None,
                   progress: Callable[[int], None] | None = None,
                   stacklevel: int = 1) -> BootstrapResult:
    """Bootstrap statistics that are functions of summed per-item rows.

    Parameters
    ----------
    rows : array_like, shape (P, C)
        The distinct per-item rows (or one row per item).
    finalize : callable
        Summed rows ``(..., C)`` to the statistics ``(..., S)``; called on the
        total, on the replicates ``(B, C)`` and on the jackknife ``(P, C)``.
    names : sequence of str
        The S statistics.
    n_resamples, rng
        Replicates, and ``np.random.default_rng(rng)``'s seed of them.
    freq : array_like of int, shape (P,), optional
        Items sharing each row (default one each).
    method, confidence_level
        The interval (:func:`_goldnoise_lib.resampling.intervals.confidence_intervals`).
    scheme : {"multinomial", "poisson"}
        ``"poisson"`` needs ``keys`` (each item's 64-bit key,
        :func:`weights.item_keys`) and ``groups`` (each item's row).
    bounds : array_like, shape (S, 2), optional
        The statistics' ranges (default a coefficient's: at most 1).
    degenerate : str
        Why a replicate may be undefined (for the notes and the warning).
    notes : sequence of str
        Notes of the caller, kept first.
    n_items : int, optional
        Items resampled (default ``Σ freq``).
    progress : callable, optional
        Called with the replicates done after each block.
    stacklevel : int
        Of the caller, for the warning of an undefined estimate.

    Returns
    -------
    BootstrapResult
        Paired (every statistic from the same resamples), with the
        leave-one-item-out jackknife (BCa; :meth:`BootstrapResult.difference`).
    """
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    freq = (np.ones(rows.shape[0], dtype=np.int64) if freq is None
            else np.ascontiguousarray(freq, dtype=np.int64))
    sums = replicate_sums(rows, freq, int(n_resamples), rng, scheme=scheme, keys=keys,
                          groups=groups, progress=progress)
    return result_from_sums(tuple(names), finalize, rows, freq, sums, method=method,
                            confidence_level=float(confidence_level), scheme=scheme,
                            n_items=int(freq.sum()) if n_items is None else int(n_items),
                            notes=list(notes), stacklevel=stacklevel + 1, bounds=bounds,
                            degenerate=degenerate)
