"""Refit per resample: the entry for statistics recomputed from each resample's counts.

A ranking's AUROC, a histogram overlap or a refitted latent-class model are not
functions of summed rows: each replicate hands the caller's ``refit`` how often
every item is drawn, and ``refit`` returns the statistics of that resample.
The counts are the resampling core's multinomial counts (plain or stratified),
one seed per replicate, so any block of replicates gives the same counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from _goldnoise_lib.progress import progress as _progress
from _goldnoise_lib.resampling import weights
from _goldnoise_lib.resampling.result import BootstrapResult, result_from_replicates

__all__ = ["bootstrap_refit"]

#: Replicates × items cells of resample counts held at once (default block size).
BLOCK_CELLS = 2**23


def bootstrap_refit(refit: Callable[[np.ndarray], np.ndarray], n_items: int, *,
                    names: Sequence[str], estimate: npt.ArrayLike, n_resamples: int,
                    rng: Any, method: str = "percentile", confidence_level: float = 0.95,
                    strata: npt.ArrayLike | None = None, bounds: npt.ArrayLike | None = None,
                    block: int | None = None, desc: str | None = None) -> BootstrapResult:
    """Bootstrap statistics recomputed on every resample of ``n_items`` items.

    Parameters
    ----------
    refit : callable
        Maps a block of item counts, int64 ``(b, n_items)`` (row ``r``: how often
        each item is drawn in that replicate), to the statistics ``(b, S)``; NaN
        where a statistic is undefined on a resample.
    n_items : int
    names : sequence of str
        The S statistics.
    estimate : array_like, shape (S,)
        The statistics on the full sample.
    n_resamples, rng
        Replicates; their seeds are drawn from ``np.random.default_rng(rng)``
        first (a Generator passed in goes on from there).
    method : {"percentile", "basic"}
        (No jackknife here: BCa needs leave-one-out refits.)
    confidence_level : float
    strata : array_like, shape (n_items,), optional
        Resample within each stratum (as many items as it holds), e.g. the truth
        of a ranking's items.
    bounds : array_like, shape (S, 2), optional
        The statistics' ranges: intervals clipped there, with a note.
    block : int, optional
        Replicates per call of ``refit`` (default: ``2**23`` count cells).
    desc : str, optional
        A progress bar with this label (one step per block).

    Returns
    -------
    BootstrapResult
    """
    n = int(n_items)
    seeds = weights.replicate_seeds(rng, int(n_resamples))
    if block is None:
        block = max(1, BLOCK_CELLS // max(n, 1))
    ones = np.ones(n, dtype=np.int64)
    dist = np.empty((int(n_resamples), len(names)))
    starts = range(0, int(n_resamples), block)
    for lo in (starts if desc is None else _progress(starts, desc=desc)):
        hi = min(lo + block, int(n_resamples))
        counts = weights.multinomial_counts(ones, seeds[lo:hi], strata=strata)
        dist[lo:hi] = refit(counts)
    return result_from_replicates(
        tuple(names), np.asarray(estimate, dtype=np.float64), dist, method=method,
        confidence_level=float(confidence_level), scheme="multinomial", n_items=n,
        bounds=None if bounds is None else np.asarray(bounds, dtype=np.float64))
