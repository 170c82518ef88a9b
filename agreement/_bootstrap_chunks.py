"""The Poisson bootstrap over chunks of items (SPEC §3, "Larger than memory").

With Poisson(1) weights keyed by (seed, item id, replicate), an item's weight
in every replicate depends on nothing but its id, so a chunk of items (every
rating of each of its items) can draw its own:

* :func:`poisson_partial` — the chunk's distinct per-item rows (the
  :func:`agreement.item_statistics` rows of every statistic, side by side),
  how many items have each, and per replicate the sum of their Poisson
  weights (exact integers);
* :func:`poisson_combine` — merge two chunks' parts by row (integer sums:
  exact, in any order and any split);
* :func:`poisson_finalize` — the estimate, the replicates ``finalize(c @ S)``,
  the leave-one-item-out jackknife and the intervals: the
  :class:`BootstrapResult` that ``bootstrap(..., scheme="poisson")`` gives in
  memory, up to the order of the floating-point row sums.

``bootstrap(statistics, chunked_ratings, scheme="poisson")`` runs them over a
chunked ratings object (one map-reduce).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from _goldnoise_lib.resampling import BootstrapResult
from _goldnoise_lib.resampling import weights as _resample
from _goldnoise_lib.resampling.intervals import METHODS
from _goldnoise_lib.resampling.result import result_from_sums
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Resamples,
    check_params,
    validate_params,
)
from agreement._item_stats import coefficient_info, item_statistics
from agreement._ratings import Ratings

__all__ = ["PoissonParts", "poisson_combine", "poisson_finalize", "poisson_partial"]


class PoissonParts(NamedTuple):
    """One or more chunks' share of a Poisson bootstrap (see the module docstring)."""

    rows: np.ndarray  # (P, C) distinct per-item rows, sorted
    freq: np.ndarray  # (P,) int64 items with each row
    counts: np.ndarray  # (B, P) int64 Σ of the items' Poisson weights, per replicate
    n_rows: int  # items of the chunks, rated or not


def _specs(statistics: Any) -> list:
    items = statistics if isinstance(statistics, (list, tuple)) else [statistics]
    return [s if hasattr(s, "name") and not callable(s) else coefficient_info(s)
            for s in items]


def _stats(specs, r: Ratings, weights: Any, level: Any) -> list:
    return [item_statistics(r, s.name, level=level) if s.family == "alpha"
            else item_statistics(r, s.name, weights=weights) for s in specs]


@validate_params(n_resamples=Resamples(1))
def poisson_partial(chunk: Ratings, statistics: Any, seed: int, n_resamples: int, *,
                    weights: Any = None, level: Any = None) -> PoissonParts:
    """The partial step: a chunk's distinct rows, their frequencies and Poisson counts.

    ``statistics`` are coefficient names (as in :func:`bootstrap`), ``seed`` the
    Poisson seed shared by every chunk (an integer), ``n_resamples`` the
    replicates. The chunk must be coded with the data set's shared categories
    (and annotators): :func:`agreement.ratings_chunk`.

    Examples
    --------
    Two chunks merged give the same parts as the whole:

    >>> import numpy as np
    >>> from agreement import Ratings
    >>> from agreement import poisson_combine, poisson_partial
    >>> r = Ratings.from_wide(np.random.default_rng(0).integers(0, 3, size=(50, 3)))
    >>> specs = ["fleiss_kappa"]
    >>> whole = poisson_partial(r, specs, seed=7, n_resamples=20)
    >>> parts = poisson_combine(poisson_partial(r.take(range(20)), specs, 7, 20),
    ...                         poisson_partial(r.take(range(20, 50)), specs, 7, 20))
    >>> bool(np.array_equal(whole.counts, parts.counts) and np.array_equal(whole.rows, parts.rows))
    True
    """
    check_params(poisson_partial, locals())
    specs = _specs(statistics)
    n_rows = chunk.n_items
    kept = np.flatnonzero(chunk.ratings_per_item >= 1)
    if kept.size < n_rows:
        chunk = chunk.take(kept)
    if chunk.n_items == 0:
        width = sum(st.values.shape[1] for st in _stats(specs, chunk, weights, level))
        return PoissonParts(np.empty((0, width)), np.empty(0, np.int64),
                            np.empty((n_resamples, 0), np.int64), n_rows)
    rows = np.concatenate([st.values for st in _stats(specs, chunk, weights, level)], axis=1)
    patterns, groups, freq = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    counts = _resample.poisson_counts(seed, _resample.item_keys(chunk.items), groups.ravel(),
                                      patterns.shape[0], n_resamples)
    return PoissonParts(patterns, freq.astype(np.int64), counts, n_rows)


def poisson_combine(a: PoissonParts, b: PoissonParts) -> PoissonParts:
    """Merge two chunks' parts by row (exact integer sums).

    Examples
    --------
    See :func:`poisson_partial`.

    >>> import numpy as np
    >>> from agreement import PoissonParts, poisson_combine
    >>> a = PoissonParts(np.array([[1.0]]), np.array([2]), np.array([[3]]), 2)
    >>> poisson_combine(a, a).counts.tolist(), poisson_combine(a, a).freq.tolist()
    ([[6]], [4])
    """
    rows = np.concatenate([a.rows, b.rows])
    merged, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.zeros((a.counts.shape[0], merged.shape[0]), dtype=np.int64)
    np.add.at(counts.T, inverse, np.concatenate([a.counts, b.counts], axis=1).T)
    freq = np.bincount(inverse, weights=np.concatenate([a.freq, b.freq]),
                       minlength=merged.shape[0]).astype(np.int64)
    return PoissonParts(merged, freq, counts, a.n_rows + b.n_rows)


@validate_params(method=Option(METHODS), confidence_level=ConfidenceLevel())
def poisson_finalize(parts: PoissonParts, statistics: Any, schema: Ratings, *, method: str,
                     confidence_level: float, weights: Any = None, level: Any = None,
                     stacklevel: int = 2) -> BootstrapResult:
    """The :class:`BootstrapResult` from the merged parts of every chunk.

    Examples
    --------
    >>> import numpy as np
    >>> from agreement import Ratings
    >>> from agreement import poisson_combine, poisson_finalize, poisson_partial
    >>> r = Ratings.from_wide(np.random.default_rng(0).integers(0, 3, size=(50, 3)))
    >>> specs = ["fleiss_kappa"]
    >>> parts = poisson_combine(poisson_partial(r.take(range(20)), specs, 7, 99),
    ...                         poisson_partial(r.take(range(20, 50)), specs, 7, 99))
    >>> res = poisson_finalize(parts, specs, r, method="percentile", confidence_level=0.9)
    >>> res.n_items, res.bootstrap_distribution.shape
    (50, (99, 1))
    """
    check_params(poisson_finalize, locals())
    specs = _specs(statistics)
    n_kept = int(parts.freq.sum())
    if n_kept == 0:
        raise ValueError("every rating is missing: there is nothing to resample.")
    stats = _stats(specs, schema, weights, level)
    slices, start = [], 0
    for st in stats:
        slices.append(slice(start, start + st.values.shape[1]))
        start += st.values.shape[1]
    names = tuple(s.name for s in specs)

    def finalize(sums: np.ndarray) -> np.ndarray:  # statistics (…, S) from row sums (…, C)
        return np.stack([np.asarray(st.finalize(sums[..., sl]).value, dtype=np.float64)
                         for st, sl in zip(stats, slices, strict=True)], axis=-1)

    notes = []
    if n_kept < parts.n_rows:
        notes.append(f"{parts.n_rows - n_kept} items without a rating are not resampled")
    return result_from_sums(
        names, finalize, parts.rows, parts.freq,
        _resample.replicate_sums(parts.counts, parts.rows), method=method,
        confidence_level=confidence_level, scheme="poisson", n_items=n_kept, notes=notes,
        stacklevel=stacklevel + 1)
