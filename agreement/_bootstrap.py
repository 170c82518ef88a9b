"""The bootstrap engine: resampling items over per-item sufficient statistics.

Every agreement coefficient is ``finalize(Σ_i s_i)`` over per-item rows
``s_i`` (:func:`agreement.item_statistics`). A bootstrap replicate draws items
with replacement; item ``i`` drawn ``c_i`` times contributes ``c_i s_i``, so
the replicate is ``finalize(c @ S)``: no coefficient is ever recomputed from
labels. Items with the same rating pattern have the same row, so the engine
merges them: with ``f_p`` items of pattern ``p``, drawing n items with
replacement is a multinomial over the P distinct patterns (probabilities
``f_p / n``), exact and O(P) per replicate however large n is.

Internal contract (for other statistics built on this engine)
-------------------------------------------------------------
A statistic that is a function of resample weights can reuse the parts:

* weights — :mod:`simulation.bootstrap._resample`:
  ``replicate_seeds(rng, B)`` then ``multinomial_counts(freq, seeds, strata)``
  (int64, B × P; ``freq`` = ones for plain items, ``strata`` e.g. ``is_error``
  for the stratified bootstrap), or ``multinomial_sums(freq, rows, seeds)`` when
  the statistic is a function of weighted row sums (never stores the counts);
  ``poisson_seed(rng)``, ``item_keys(ids)`` and ``poisson_weights(seed, keys, B,
  first=b0)`` for Poisson(1) weights keyed by (seed, item id, replicate). The
  same seeds give the same weights whatever the block of replicates or the
  thread count, so replicates can be computed in blocks.
* partitions — ``poisson_pattern_counts(seed, keys, rows, B)`` per chunk,
  ``combine_pattern_counts(parts)`` (exact integer sums by distinct row) and
  ``replicate_sums(counts, patterns)``: bit-identical to the whole data in one
  piece, in any order and any split (``poisson_replicate_sums`` does all three
  for one chunk; per-chunk sums of it add up to rounding).
* intervals — :func:`simulation.bootstrap._intervals.confidence_intervals`
  ``(estimate (S,), distribution (B, S), method=, confidence_level=,
  jackknife=(n, S), jackknife_weights=(n,), bounds=(S, 2))`` for any
  statistic; NaN replicates are left out (count and report them).
* result — :class:`simulation.bootstrap._result.BootstrapResult` takes the
  arrays (with the jackknife, so that ``difference`` supports BCa).

The leave-one-item-out jackknife for BCa is the total sums minus one item's
row, one finalize per distinct pattern: O(P) finalize steps, never O(n²).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Resamples,
    Rng,
    check_confidence_level,
    check_option,
    check_params,
    check_resamples,
    validate_params,
)
from agreement import (
    ChunkedRatings,
    Ratings,
    as_ratings,
    coefficient_info,
    item_statistics,
)
from simulation.bootstrap import _partial, _resample
from simulation.bootstrap._intervals import METHODS
from simulation.bootstrap._result import BootstrapResult, result_from_sums

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.

__all__ = ["bootstrap"]

SCHEMES = ("multinomial", "poisson")
# Replicates per block (progress reports; bounded memory of the Poisson counts).
_BLOCK = 256


class _Plan(NamedTuple):
    names: tuple[str, ...]
    stats: list  # ItemStatistics of each statistic over the distinct patterns
    slices: list[slice]
    rows: np.ndarray  # P × C, the statistics' rows side by side
    freq: np.ndarray  # items with each pattern (int64, P)
    groups: np.ndarray  # pattern of each kept item (int64, n)
    kept: np.ndarray  # positions of the items with a rating
    ratings: Ratings


def _statistics_iv(statistics: Any) -> list:
    items = list(statistics) if isinstance(statistics, (list, tuple)) else [statistics]
    if not items:
        raise ValueError("`statistics` must name at least one coefficient.")
    try:
        specs = [coefficient_info(s) for s in items]
    except ValueError as exc:
        raise ValueError(f"{exc} Metrics of a label-error ranking (average precision, AUROC, "
                         "...) take their intervals from `detection_metrics(scores, is_error, "
                         "n_resamples=...)`.") from None
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"`statistics` names a coefficient twice: {names}.")
    return specs


def _bootstrap_iv(statistics, ratings, n_resamples, method, confidence_level, scheme, weights,
                  level):
    specs = _statistics_iv(statistics)
    n_resamples = check_resamples(n_resamples, minimum=1)
    method = check_option(method, "method", METHODS)
    scheme = check_option(scheme, "scheme", SCHEMES)
    confidence_level = check_confidence_level(confidence_level)
    has_alpha = any(s.family == "alpha" for s in specs)
    if level is not None and not has_alpha:
        raise ValueError("`level` applies to Krippendorff's α only, which is not among "
                         "`statistics`; use `weights=` for weighted agreement.")
    if weights is not None and all(s.family == "alpha" for s in specs):
        raise ValueError("`weights` does not apply to Krippendorff's α; its metric is set by "
                         "`level`.")
    return specs, as_ratings(ratings), n_resamples, method, confidence_level, scheme


def _pattern_groups(r: Ratings, by_rater: bool) -> np.ndarray:
    """A key per item such that equal keys mean equal rows of every statistic.

    The whole row of labels (``by_rater``) or the counts per category: the
    shared pattern keys (:mod:`_goldnoise_lib.patterns`), or ``np.unique``
    where they would not fit.
    """
    if r.has_raters:
        codes = r.codes
        keys = (_patterns.row_keys(codes, r.n_categories) if by_rater
                else _patterns.count_keys(codes, r.n_categories))
        if keys is not None:
            return keys if by_rater else keys[0]
        if by_rater:
            return np.unique(codes, axis=0, return_inverse=True)[1].ravel()
    return np.unique(r.counts, axis=0, return_inverse=True)[1].ravel()


#: Light's κ keeps one column per annotator pair in every item's row; beyond this many
#: pairs (100 annotators) the rows would grow with annotators², not with the data.
LIGHT_MAX_PAIRS = 4950


def _plan(specs, r: Ratings, weights, level) -> tuple[_Plan, list[str]]:
    notes = []
    pairs = r.n_raters * (r.n_raters - 1) // 2
    if any(s.name == "light_kappa" for s in specs) and pairs > LIGHT_MAX_PAIRS:
        raise ValueError(
            f"`light_kappa` is bootstrapped for at most 100 annotators: its per-item rows keep "
            f"one column per annotator pair, and {r.n_raters} annotators have {pairs:,} pairs. "
            "Use light_kappa's analytic standard error, or bootstrap `conger_kappa` or "
            "`fleiss_kappa`.")
    rated = r.ratings_per_item >= 1
    kept = np.flatnonzero(rated)
    if kept.size == 0:
        raise ValueError("every rating is missing: there is nothing to resample.")
    if kept.size < r.n_items:
        notes.append(f"{r.n_items - kept.size} items without a rating are not resampled")
        r = r.take(kept)
    by_rater = any(s.family != "alpha" and s.family != "count" for s in specs)
    key = _pattern_groups(r, by_rater)
    _, first, groups, freq = np.unique(key, return_index=True, return_inverse=True,
                                       return_counts=True)
    rep = r.take(first)
    stats, slices, start = [], [], 0
    for s in specs:
        st = (item_statistics(rep, s.name, level=level) if s.family == "alpha"
              else item_statistics(rep, s.name, weights=weights))
        stats.append(st)
        slices.append(slice(start, start + st.values.shape[1]))
        start += st.values.shape[1]
    rows = np.concatenate([st.values for st in stats], axis=1)
    # Patterns in the lexicographic order of their rows: the draws for a seed then depend on
    # the rows only, not on how the items were keyed (wide labels or a count table alike).
    order = np.lexsort(rows.T[::-1])
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    rows = np.ascontiguousarray(rows[order])
    plan = _Plan(tuple(s.name for s in specs), stats, slices, rows,
                 freq[order].astype(np.int64), rank[groups.ravel()].astype(np.int64), kept, r)
    return plan, notes


def _finalize(plan: _Plan, sums: np.ndarray) -> np.ndarray:
    """Statistics (…, S) from summed rows (…, C)."""
    out = [st.finalize(sums[..., sl]).value for st, sl in zip(plan.stats, plan.slices,
                                                                strict=True)]
    return np.stack([np.asarray(v, dtype=np.float64) for v in out], axis=-1)


def replicates_from_multiplicity(plan: _Plan, multiplicity: npt.ArrayLike) -> np.ndarray:
    """Replicates (B, S) for explicit item multiplicities (B, n_kept items)."""
    mult = np.atleast_2d(np.asarray(multiplicity, dtype=np.float64))
    counts = np.zeros((mult.shape[0], plan.freq.size))
    for b in range(mult.shape[0]):
        counts[b] = np.bincount(plan.groups, weights=mult[b], minlength=plan.freq.size)
    return _finalize(plan, _resample.replicate_sums(counts, plan.rows))


def _replicate_sums(plan: _Plan, scheme: str, n_resamples: int, rng: Any,
                    progress: Callable[[int], None] | None) -> np.ndarray:
    sums = np.empty((n_resamples, plan.rows.shape[1]))
    if scheme == "multinomial":
        seeds = _resample.replicate_seeds(rng, n_resamples)
    else:
        seed = _resample.poisson_seed(rng)
        keys = _resample.item_keys(plan.ratings.items)
    if scheme == "multinomial":  # no counts stored: blocks only to report progress
        block = _BLOCK if progress is not None else n_resamples
    else:  # bounded memory of the B × P counts
        block = max(1, min(n_resamples, (1 << 24) // plan.freq.size,
                           _BLOCK if progress is not None else n_resamples))
    for lo in range(0, n_resamples, block):
        hi = min(n_resamples, lo + block)
        if scheme == "multinomial":
            sums[lo:hi] = _resample.multinomial_sums(plan.freq, plan.rows, seeds[lo:hi])
        else:
            counts = _resample.poisson_counts(seed, keys, plan.groups, plan.freq.size, hi - lo,
                                              first=lo)
            sums[lo:hi] = _resample.replicate_sums(counts, plan.rows)
        if progress is not None:
            progress(hi - lo)
    return sums


@validate_params(n_resamples=Resamples(1), method=Option(METHODS), confidence_level=ConfidenceLevel(),
                 scheme=Option(SCHEMES), rng=Rng())
def bootstrap(
    statistics: Any,
    ratings: Any,
    *,
    n_resamples: int = 9999,
    method: str = "percentile",
    confidence_level: float = 0.95,
    scheme: str = "multinomial",
    rng: Any = None,
    weights: Any = None,
    level: str | None = None,
    _progress: Callable[[int], None] | None = None,
) -> BootstrapResult:
    r"""Bootstrap intervals of agreement coefficients, resampling items.

    Parameters
    ----------
    statistics : str, function, or list of them
        Coefficients by name or function: ``"percent_agreement"``,
        ``"fleiss_kappa"``, ``"scott_pi"``, ``"cohen_kappa"``, ``"conger_kappa"``,
        ``"light_kappa"``, ``"brennan_prediger"``, ``"gwet_ac1"``,
        ``"krippendorff_alpha"``. A list is computed from the same resamples
        (paired): see :meth:`BootstrapResult.difference`.
    ratings : Ratings or array_like, shape (n_items, n_raters)
        Anything :func:`agreement.as_ratings` accepts (count tables for the
        coefficients that need no annotator identity). Detection metrics of
        a ranking draw this engine's weights through their own function,
        :func:`simulation.detection_metrics` (``n_resamples=``, ``scheme=``).
    n_resamples : int, default 9999
    method : {"percentile", "basic", "bca"}, default "percentile"
    confidence_level : float, default 0.95
    scheme : {"multinomial", "poisson"}, default "multinomial"
        ``"multinomial"``: n items drawn with replacement. ``"poisson"``: each
        item weighted by an independent Poisson(1) draw keyed by (seed, item
        id, replicate), so replicates do not depend on the items' order or on
        how they are split into partitions.
    rng : None, int or numpy.random.Generator
        Seeds ``np.random.default_rng(rng)``; the same seed gives bit-identical
        results whatever the number of threads.
    weights : None, {"linear", "quadratic"} or array_like (m, m)
        Agreement weights of every coefficient except Krippendorff's α.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Krippendorff's α's level of measurement (default "nominal").

    Returns
    -------
    BootstrapResult

    Raises
    ------
    TypeError, ValueError
        For an unknown statistic, method or scheme, a bad ``n_resamples`` or
        ``confidence_level``, ``level`` without α or ``weights`` with α only,
        or data with no rating.

    Warns
    -----
    DegenerateDataWarning
        When a statistic is undefined on the full sample (its estimate, SE and
        interval are then NaN).

    Notes
    -----
    Items with no rating are not resampled (they count in no coefficient).
    Each replicate is ``finalize(c @ S)``, ``S`` the per-item rows of
    :func:`agreement.item_statistics` merged over identical rating patterns,
    ``c`` the resampled counts: Krippendorff's α thus resamples units and
    recomputes both its observed and expected disagreement (unlike R's
    ``krippendorffsalpha``, which holds the expected disagreement fixed, and
    the KALPHA macro, which resamples pairs of judgments). The BCa
    acceleration uses the leave-one-item-out jackknife, each item's row
    subtracted from the total sums (O(n)). Replicates on which a coefficient
    is undefined are counted in ``n_degenerate``, left out of its SE and
    interval, and named in ``notes``; intervals are clipped to the
    coefficient's range (at most 1; percent agreement in [0, 1]), with a note.

    Items are merged by their category counts when every statistic depends on
    those only (the count family and α), else by their full row of labels; a
    seed thus reproduces the replicates for the same data and the same set of
    statistics (adding a Cohen-type coefficient to the list changes how items
    are merged, and so which draws a seed gives).

    References
    ----------
    Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
    Chapman & Hall. https://doi.org/10.1201/9780429246593

    Hanley, J. A., & MacGibbon, B. (2006). Creating non-parametric bootstrap
    samples using Poisson frequencies. Computer Methods and Programs in
    Biomedicine, 83(1), 57–62. https://doi.org/10.1016/j.cmpb.2006.04.006

    Examples
    --------
    >>> import numpy as np
    >>> from simulation import bootstrap
    >>> x = np.random.default_rng(0).integers(0, 3, size=(300, 4))
    >>> x[:200] = x[:200, :1]  # 200 unanimous items
    >>> res = bootstrap(["fleiss_kappa", "krippendorff_alpha"], x, n_resamples=999, rng=1)
    >>> res.to_frame().round(2)
                        estimate  standard_error   low  high  n_degenerate
    statistic
    fleiss_kappa            0.68            0.03  0.62  0.73             0
    krippendorff_alpha      0.68            0.03  0.62  0.73             0
    """
    check_params(bootstrap, locals())
    if isinstance(ratings, ChunkedRatings) and not isinstance(ratings, Ratings):
        return _bootstrap_chunked(statistics, ratings, n_resamples, method, confidence_level,
                                  scheme, rng, weights, level)
    specs, r, n_resamples, method, confidence_level, scheme = _bootstrap_iv(
        statistics, ratings, n_resamples, method, confidence_level, scheme, weights, level)
    plan, notes = _plan(specs, r, weights, level)
    return result_from_sums(
        plan.names, lambda sums: _finalize(plan, sums), plan.rows, plan.freq,
        _replicate_sums(plan, scheme, n_resamples, rng, _progress), method=method,
        confidence_level=confidence_level, scheme=scheme, n_items=int(plan.kept.size),
        notes=notes, stacklevel=2)


def _bootstrap_chunked(statistics, ratings, n_resamples, method, confidence_level, scheme, rng,
                       weights, level) -> BootstrapResult:
    """The Poisson bootstrap of a chunked ratings object: one map-reduce (``_partial``)."""
    specs, _, n_resamples, method, confidence_level, scheme = _bootstrap_iv(
        statistics, ratings.schema, n_resamples, method, confidence_level, scheme, weights,
        level)
    if scheme != "poisson":
        raise ValueError(
            "chunked ratings are resampled with `scheme='poisson'` (each item's weight keyed by "
            "its id, so that no chunk needs the others); the multinomial scheme draws n items "
            "from the whole data at once.")
    seed = _resample.poisson_seed(rng)
    parts = ratings.map_reduce(
        lambda chunk: _partial.poisson_partial(chunk, specs, seed, n_resamples,
                                               weights=weights, level=level),
        _partial.poisson_combine)
    return _partial.poisson_finalize(parts, specs, ratings.schema, method=method,
                                     confidence_level=confidence_level, weights=weights,
                                     level=level, stacklevel=4)
