"""The bootstrap of agreement coefficients: their per-item rows, resampled by the core.

Every agreement coefficient is ``finalize(Σ_i s_i)`` over per-item rows
``s_i`` (:func:`agreement.item_statistics`). Items with the same rating
pattern have the same row, so they are merged: with ``f_p`` items of pattern
``p``, drawing n items with replacement is a multinomial over the P distinct
patterns (probabilities ``f_p / n``), exact and O(P) per replicate however
large n is. This module builds those rows (the plan) and hands them to the
resampling core's ``bootstrap_sums`` (:mod:`_goldnoise_lib.resampling`), which
draws the replicates and assembles the :class:`BootstrapResult`;
``bootstrap_rows`` is the same entry for rows the caller built.

The leave-one-item-out jackknife for BCa is the total sums minus one item's
row, one finalize per distinct pattern: O(P) finalize steps, never O(n²).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.resampling import BootstrapResult, bootstrap_sums
from _goldnoise_lib.resampling import weights as resample_keys
from _goldnoise_lib.resampling.intervals import METHODS
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
from agreement import _bootstrap_chunks as _partial
from agreement._chunked import ChunkedRatings
from agreement._item_stats import coefficient_info, item_statistics
from agreement._ratings import Ratings, as_ratings

__all__ = ["bootstrap", "bootstrap_rows"]

SCHEMES = ("multinomial", "poisson")


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
    return _finalize(plan, resample_keys.replicate_sums(counts, plan.rows))


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
        ``"krippendorff_alpha"``; for numeric ratings also the intraclass
        correlations ``"icc1"`` ... ``"icc3k"`` and ``"lin_ccc"``
        (:data:`agreement.SCALE_STATISTICS`). A list is computed from the same
        resamples (paired): see :meth:`BootstrapResult.difference`.
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
    >>> from agreement import bootstrap
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
    keys = resample_keys.item_keys(plan.ratings.items) if scheme == "poisson" else None
    return bootstrap_sums(
        plan.rows, lambda sums: _finalize(plan, sums), names=plan.names, freq=plan.freq,
        n_resamples=n_resamples, rng=rng, method=method, confidence_level=confidence_level,
        scheme=scheme, keys=keys, groups=plan.groups, notes=notes,
        n_items=int(plan.kept.size), progress=_progress, stacklevel=2)


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
    seed = resample_keys.poisson_seed(rng)
    parts = ratings.map_reduce(
        lambda chunk: _partial.poisson_partial(chunk, specs, seed, n_resamples,
                                               weights=weights, level=level),
        _partial.poisson_combine)
    return _partial.poisson_finalize(parts, specs, ratings.schema, method=method,
                                     confidence_level=confidence_level, weights=weights,
                                     level=level, stacklevel=4)


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
    >>> from agreement import bootstrap_rows
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
    return bootstrap_sums(rows, finalize, names=[str(n) for n in names], freq=freq,
                          n_resamples=int(n_resamples), rng=rng, method=method,
                          confidence_level=float(confidence_level), stacklevel=2)
