"""How well a ranking finds label errors: AP, AUROC, P/R/F1 at k, with intervals (SPEC §3)."""

from __future__ import annotations

import math
import numbers
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.messages import few
from _goldnoise_lib.resampling import BootstrapResult, bootstrap_refit
from _goldnoise_lib.resampling import weights as _resample
from _goldnoise_lib.resampling.intervals import confidence_intervals
from _goldnoise_lib.resampling.result import result_from_replicates
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Probability,
    Resamples,
    Rng,
    check_confidence_level,
    check_option,
    check_params,
    check_resamples,
    validate_params,
)
from agreement import ConfidenceInterval
from simulation.detection._ranking import Ranking

# the engine's resample schemes, stratified by the truth here
SCHEMES = ("poisson", "multinomial")

# Numba kernels, imported at first use (import simulation stays fast).
K = lazy_module("simulation.detection._kernels")

__all__ = [
    "DetectedErrorRateResult",
    "DetectionResult",
    "detected_error_rate",
    "detection_metrics",
    "detection_replicates",
]

METRICS = ("average_precision", "auroc", "precision_at_k", "recall_at_k", "f1_at_k")
INTERVAL_METHODS = ("percentile", "basic")
# every detection metric lies in [0, 1]: intervals are clipped there
_BOUNDS = np.tile([0.0, 1.0], (len(METRICS), 1))
# Columns of the kernels' output for METRICS (the kernels' AP, AUROC, PRECISION_AT_K,
# RECALL_AT_K, F1_AT_K; column 2 is the true positives at k): literal here so that
# importing this module does not import Numba; a test checks they agree.
_COLS = (0, 1, 3, 4, 5)
# Replicates below which the parallel kernel is not worth its threads.
_PARALLEL_MIN = 2_000_000


@dataclass(frozen=True)
class _Sorted:
    """Items sorted once by score (highest first), with the truth in that order."""

    order: np.ndarray       # positions of the items in score order
    y: np.ndarray           # is_error in score order (uint8)
    last: np.ndarray        # last item of a run of tied scores (bool)
    items: pd.Index         # item ids in the input order

#: From this many items the scores are sorted by the radix kernel (same order).
_RADIX_FROM = 50_000


def _sort(scores: np.ndarray, is_error: np.ndarray, items: pd.Index) -> _Sorted:
    if len(scores) >= _RADIX_FROM and scores.dtype == np.float64 \
            and np.isfinite(scores).all():
        order, s = K.sort_descending(scores)  # s: sorted keys, equal where scores are
    else:
        order = np.argsort(-scores, kind="stable")
        s = scores[order]
    last = np.empty(len(s), dtype=np.bool_)
    if len(s):
        np.not_equal(s[1:], s[:-1], out=last[:-1])
        last[-1] = True
    truth = is_error.view(np.uint8) if is_error.dtype == np.bool_ else \
        is_error.astype(np.uint8)
    return _Sorted(order, truth[order], last, items)


def _as_bool(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf" and np.isin(arr, (0, 1)).all():
        return arr.astype(bool)
    raise TypeError(f"`{name}` must be booleans (or 0/1); got dtype {arr.dtype}.")


def _scores_and_truth(scores: Any, is_error: Any) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Suspicion scores and truth, aligned by id when ids are known."""
    if isinstance(scores, Ranking):
        s = scores.score_key()
    elif isinstance(scores, pd.Series):
        s = scores
    else:
        arr = np.asarray(scores)
        if arr.dtype == object or arr.dtype.kind not in "iufb" or arr.ndim != 1:
            raise TypeError(
                "`scores` must be a Ranking, a Series of scores indexed by item id, or a "
                f"1-D numeric array (higher = more suspicious); got {type(scores).__name__}"
                f"{'' if not hasattr(arr, 'shape') else f' of shape {arr.shape}'}."
            )
        s = pd.Series(arr.astype(np.float64), index=pd.RangeIndex(len(arr), name="item"))
    if s.dtype.kind not in "iufb":
        raise TypeError(f"`scores` must be numeric; got dtype {s.dtype}.")
    if isinstance(is_error, pd.Series) and not (isinstance(scores, np.ndarray)
                                                 or isinstance(scores, list)):
        if not is_error.index.is_unique:
            raise ValueError("`is_error` repeats item ids.")
        missing = s.index.difference(is_error.index)
        if len(missing):
            raise ValueError(
                f"`is_error` lacks {len(missing)} of the scored items: "
                f"{few(missing.to_numpy())}. Give the truth of every ranked item."
            )
        truth = _as_bool(is_error.reindex(s.index).to_numpy(), "is_error")
    else:
        truth = _as_bool(is_error.to_numpy() if isinstance(is_error, pd.Series) else is_error,
                         "is_error")
        if truth.ndim != 1 or len(truth) != len(s):
            raise ValueError(
                f"`is_error` has {truth.size} entries for {len(s)} scored items; pass a "
                "Series indexed by item id to align by id."
            )
    values = s.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(
            f"`scores` has NaN or infinite values at items {few(s.index[bad].to_numpy())}."
        )
    return values, truth, pd.Index(s.index)


def _check_k(k: Any, n: int, default: int) -> int:
    if k is None:
        return max(default, 1)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"`k` must be an integer in 1..{n} or None; got {k!r}.")
    if not 1 <= int(k) <= n:
        raise ValueError(f"`k` must be in 1..{n} (the number of items); got {k}.")
    return int(k)


def clopper_pearson(successes: int, trials: int, confidence_level: float) -> ConfidenceInterval:
    """Exact (Clopper–Pearson) binomial interval (``binomial_interval``)."""
    from _goldnoise_lib.binomial import binomial_interval

    return ConfidenceInterval(*binomial_interval(successes, trials, confidence_level,
                                                 method="exact"))


def bootstrap_result(estimate: np.ndarray, dist: np.ndarray, *, method: str,
                     confidence_level: float, scheme: str, n_items: int,
                     names: tuple[str, ...] = METRICS) -> BootstrapResult:
    """The resampling core's result from detection replicates (intervals clipped to [0, 1])."""
    return result_from_replicates(names, estimate, dist, method=method,
                                  confidence_level=confidence_level, scheme=scheme,
                                  n_items=n_items, bounds=_BOUNDS[: len(names)])


def _multinomial_boot(srt: _Sorted, truth: np.ndarray, k: int, point: np.ndarray, rng: Any,
                      n_resamples: int, method: str, level: float) -> BootstrapResult:
    """Stratified multinomial replicates: the core's counts within errors and non-errors."""
    cols = list(_COLS)

    def metrics(counts: np.ndarray) -> np.ndarray:
        w = np.ascontiguousarray(counts.astype(np.float64)[:, srt.order])
        return K.metrics_weighted(srt.y, srt.last, w, float(k))[:, cols]

    return bootstrap_refit(metrics, len(srt.y), names=METRICS, estimate=point[cols],
                           n_resamples=n_resamples, rng=rng, method=method,
                           confidence_level=level, strata=truth, bounds=_BOUNDS,
                           block=max(1, _BLOCK_CELLS // max(len(srt.y), 1)))


# replicates per block of multinomial weights (bounds the memory of the weight matrix)
_BLOCK_CELLS = 2**24


def _replicates(srt: _Sorted, k: int, rng: Any, n_resamples: int) -> np.ndarray:
    """Stratified Poisson replicates with the core's weights keyed by (seed, item id, r).

    One fused kernel draws each item's keyed Poisson weight (the core's
    ``keyed_poisson``) as it sweeps the sorted items: no weight matrix is built."""
    n = len(srt.y)
    threads = max(1, min(os.cpu_count() or 1, n_resamples))
    if n_resamples * n < _PARALLEL_MIN:
        threads = 1
    seed = _resample.poisson_seed(rng)
    hashes = _resample.item_hashes(seed, _resample.item_keys(srt.items))[srt.order]
    return K.stratified_bootstrap(srt.y, srt.last, hashes, float(k), np.uint64(0),
                                  n_resamples, K.POISSON_CDF, threads)


@dataclass(frozen=True, repr=False, eq=False)
class DetectionResult(Result):
    """How well a ranking of items finds the label errors.

    Attributes
    ----------
    average_precision : float
        scikit-learn's average precision: Σ over distinct score thresholds
        of (gain in recall) × precision.
    auroc : float
        Area under the ROC curve; a tied (error, non-error) pair counts ½.
    precision_at_k, recall_at_k, f1_at_k : float
        Of the top ``k`` items (ties at the cut broken by item order).
    k : int
    n_items, n_errors : int
    curve : pandas.DataFrame
        ``k``, ``precision``, ``recall`` and ``item`` for every cut of the
        ranking (ties broken by item order).
    n_resamples : int
        Bootstrap replicates (0: no intervals).
    confidence_level : float
    intervals : dict of str to ConfidenceInterval
        Bootstrap interval of each metric (empty without resamples).
    precision_at_k_exact : ConfidenceInterval
        Clopper–Pearson interval of ``precision_at_k`` (the top ``k`` as a
        binomial sample); it stays honest where bootstrap replicates of a
        small ``k`` collapse onto a few values.
    replicates : pandas.DataFrame or None
        One row per replicate, one column per metric: paired across metrics,
        and across rankings scored with the same ``rng`` and truth.
    bootstrap : BootstrapResult or None
        The same replicates as the bootstrap engine's result (standard
        errors, intervals, ``.difference(a, b)`` between metrics).

    ``to_frame()``: one row per metric: ``value``, ``low``, ``high``, ``exact_low``, ``exact_high``.
    """

    average_precision: float
    auroc: float
    precision_at_k: float
    recall_at_k: float
    f1_at_k: float
    k: int
    n_items: int
    n_errors: int
    curve: pd.DataFrame
    n_resamples: int
    confidence_level: float
    precision_at_k_exact: ConfidenceInterval
    intervals: dict[str, ConfidenceInterval] = field(default_factory=dict)
    replicates: pd.DataFrame | None = None
    bootstrap: BootstrapResult | None = None

    _headline = "average_precision"
    _keys = (*METRICS, "k", "n_items", "n_errors", "n_resamples", "confidence_level")
    _rows = METRICS
    _columns: ClassVar[dict[str, str]] = {
        "value": "{}", "low": "metric_interval({}).low", "high": "metric_interval({}).high",
        "exact_low": "{}_exact.0", "exact_high": "{}_exact.1"}
    _index = "metric"

    @validate_params(metric=Option(METRICS), confidence_level=ConfidenceLevel(optional=True))
    def metric_interval(self, metric: str,
                        confidence_level: float | None = None) -> ConfidenceInterval:
        """The bootstrap interval of one metric (NaN bounds without resamples).

        Parameters
        ----------
        metric : {"average_precision", "auroc", "precision_at_k", "recall_at_k", "f1_at_k"}
        confidence_level : float, optional
            Default :attr:`confidence_level` (the intervals computed with the
            result); another level is read from the same replicates.
        """
        check_params(DetectionResult.metric_interval, locals())
        check_option(metric, "metric", METRICS)
        if confidence_level is None or self.bootstrap is None:
            if confidence_level is not None:
                check_confidence_level(confidence_level)
            return self.intervals.get(metric, ConfidenceInterval(math.nan, math.nan))
        s = METRICS.index(metric)
        iv = self.bootstrap.confidence_interval(confidence_level)
        return ConfidenceInterval(float(iv.low[s]), float(iv.high[s]))

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Bootstrap interval of the headline, :attr:`average_precision`.

        ``confidence_level`` defaults to :attr:`confidence_level`; another
        metric's interval is :meth:`metric_interval`.
        """
        check_params(DetectionResult.confidence_interval, locals())
        return self.metric_interval("average_precision", confidence_level)

    def difference_interval(self, other: DetectionResult, metric: str) -> ConfidenceInterval:
        """Percentile interval of ``self − other`` for a metric, from paired replicates.

        Both results must come from the same truth, ``rng`` and ``n_resamples``
        (then replicate ``r`` of each resamples the same items).
        """
        if self.replicates is None or other.replicates is None:
            raise ValueError("both results need bootstrap replicates (`n_resamples` > 0).")
        if len(self.replicates) != len(other.replicates) or self.n_items != other.n_items:
            raise ValueError("the results were not resampled alike (different sizes).")
        if metric not in METRICS:
            raise ValueError(f"`metric` must be one of {list(METRICS)}; got {metric!r}.")
        diff = (self.replicates[metric] - other.replicates[metric]).to_numpy()[:, None]
        est = np.array([getattr(self, metric) - getattr(other, metric)])
        method = self.bootstrap.method if self.bootstrap is not None else "percentile"
        iv = confidence_intervals(est, diff, method=method,
                                  confidence_level=self.confidence_level)
        return ConfidenceInterval(float(iv.low[0]), float(iv.high[0]))

    def to_dict(self) -> dict[str, Any]:
        """Scalar fields and intervals."""
        out = super().to_dict()
        for m, ci in self.intervals.items():
            out[f"{m}_low"], out[f"{m}_high"] = ci
        ex = self.precision_at_k_exact
        return {**out, "precision_at_k_exact_low": ex[0], "precision_at_k_exact_high": ex[1]}

    def __repr__(self) -> str:
        def fmt(m: str) -> str:
            v = getattr(self, m)
            ci = self.intervals.get(m)
            return f"{v:.4f}" + (f" [{ci.low:.4f}, {ci.high:.4f}]" if ci else "")
        return (f"DetectionResult({self.n_errors} errors in {self.n_items} items; AP "
                f"{fmt('average_precision')}, AUROC {fmt('auroc')}, P@{self.k} "
                f"{fmt('precision_at_k')}, R@{self.k} {fmt('recall_at_k')}, F1@{self.k} "
                f"{fmt('f1_at_k')})")


_BCA_HINT = "(BCa needs a leave-one-out jackknife, which for average precision costs O(n²).)"


def _detection_metrics_iv(scores, is_error, k, n_resamples, confidence_level, method):
    check_option(method, "method", INTERVAL_METHODS, hint=_BCA_HINT)
    values, truth, items = _scores_and_truth(scores, is_error)
    n = len(values)
    if n == 0:
        raise ValueError("`scores` is empty.")
    default = scores.n_flagged if isinstance(scores, Ranking) and scores.flagged is not None \
        else int(truth.sum())
    return (values, truth, items, _check_k(k, n, default), check_resamples(n_resamples, minimum=0),
            check_confidence_level(confidence_level))


@validate_params(n_resamples=Resamples(0), confidence_level=ConfidenceLevel(), rng=Rng(),
                 method=Option(INTERVAL_METHODS, hint=_BCA_HINT), scheme=Option(SCHEMES))
def detection_metrics(scores: Any, is_error: Any, *, k: int | None = None,
                      n_resamples: int = 0, confidence_level: float = 0.95,
                      rng: Any = None, method: str = "percentile",
                      scheme: str = "poisson") -> DetectionResult:
    """Average precision, AUROC and precision/recall/F1 at k of a label-error ranking.

    Parameters
    ----------
    scores : Ranking or pandas.Series or array_like, shape (n,)
        Suspicion scores, higher = more likely a label error: a
        :class:`Ranking`, a Series indexed by item id, or an array.
    is_error : pandas.Series or array_like of bool, shape (n,)
        The truth (injected errors, or a verified set). A Series indexed by
        item id is aligned by id to a Ranking or Series of scores.
    k : int, optional
        The cut for P/R/F1 at k. Default: the flagged count of a confident-
        learning ranking, else the number of errors (then P@k = R@k, the
        R-precision).
    n_resamples : int, default 0
        Bootstrap replicates for intervals (0: none). Resampling is stratified
        by ``is_error`` (each replicate has as many errors as the data, see
        Notes) and every metric comes from the same replicates (paired).
    confidence_level : float, default 0.95
        Of the intervals.
    rng : None, int, numpy.random.Generator, optional
        Seed of the bootstrap.
    method : {"percentile", "basic"}, default "percentile"
        Interval of the bootstrap engine (:func:`agreement.bootstrap`'s
        conventions, clipped to [0, 1]).
    scheme : {"poisson", "multinomial"}, default "poisson"
        The engine's resample weights, stratified by ``is_error``:
        ``"poisson"``, each item a Poisson(1) weight keyed by (seed, item id,
        replicate), rescaled within errors and within non-errors to their
        sizes; ``"multinomial"``, as many items drawn with replacement from
        each stratum as it holds.

    Returns
    -------
    DetectionResult

    Raises
    ------
    TypeError, ValueError
        For non-numeric scores or a non-boolean truth, misaligned lengths or
        ids, NaN scores, ``k`` outside ``1..n``.

    Warns
    -----
    DegenerateDataWarning
        When there is no error or no non-error: AP, AUROC (and recall) are NaN.

    Notes
    -----
    Items are sorted once; every metric is one pass over them with a
    multiplicity per item, and a bootstrap replicate is the same pass with
    the replicate's multiplicities, never a re-sort.

    The bootstrap is by default the stratified Poisson bootstrap: in
    replicate ``r`` item ``i`` gets the bootstrap engine's Poisson(1) weight
    keyed by ``(seed, item id, r)`` (SPEC §3; the same weights
    :func:`agreement.bootstrap` gives that item with ``scheme="poisson"``),
    and the weights of the errors and of the non-errors are rescaled to the
    sizes of the two strata, so every replicate holds as many errors (in
    weight) as the data. The weights depend neither on the scores nor on the
    items' order, so two rankings of the same items resampled with the same
    ``rng`` are paired (:meth:`DetectionResult.difference_interval`), and
    results do not depend on the number of threads. Intervals are percentile intervals; for
    precision at k the Clopper–Pearson interval is given beside it.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> is_error = rng.random(1000) < 0.1
    >>> scores = is_error + rng.normal(0, 0.7, 1000)
    >>> res = detection_metrics(scores, is_error, n_resamples=200, rng=1)
    >>> round(res.average_precision, 3), round(res.auroc, 3)
    (0.493, 0.857)
    >>> res.to_frame().loc["auroc", ["low", "high"]].round(2).tolist()
    [0.81, 0.9]
    """
    check_params(detection_metrics, locals())
    values, truth, items, k, n_resamples, level = _detection_metrics_iv(
        scores, is_error, k, n_resamples, confidence_level, method)
    n = len(values)
    n_err = int(truth.sum())
    _warn_if_one_class(n_err, n)
    srt = _sort(values, truth, items)
    point = K.metrics_weighted(srt.y, srt.last, np.ones((1, n)), float(k))[0]
    curve = _curve(srt, items, n_err)
    exact = clopper_pearson(round(point[K.TP_AT_K]), k, level)
    boot, reps, intervals = _bootstrap(srt, truth, k, point, rng, n_resamples, method, level,
                                       scheme)
    return DetectionResult(
        average_precision=float(point[K.AP]), auroc=float(point[K.AUROC]),
        precision_at_k=float(point[K.PRECISION_AT_K]), recall_at_k=float(point[K.RECALL_AT_K]),
        f1_at_k=float(point[K.F1_AT_K]), k=k, n_items=n, n_errors=n_err, curve=curve,
        n_resamples=n_resamples, confidence_level=level, precision_at_k_exact=exact,
        intervals=intervals, replicates=reps, bootstrap=boot,
    )


def _curve(srt: _Sorted, items: Any, n_err: int) -> pd.DataFrame:
    """Precision and recall of the top ``k`` items, for every ``k``, and the ``k``-th item."""
    n = len(srt.y)
    tp = np.cumsum(srt.y, dtype=np.int64)
    ks = np.arange(1, n + 1)
    # column by column: a frame from a dict would copy the columns into blocks
    curve = pd.DataFrame({"k": ks}, copy=False)
    curve["precision"] = tp / ks
    curve["recall"] = tp / n_err if n_err else np.full(n, np.nan)
    curve["item"] = items[srt.order]
    return curve


def _warn_if_one_class(n_err: int, n: int) -> None:
    if n_err == 0 or n_err == n:
        warnings.warn(
            f"the truth has {'no' if n_err == 0 else 'only'} errors: average precision and "
            "AUROC are undefined (NaN).", DegenerateDataWarning, stacklevel=3)


def _bootstrap(srt: _Sorted, truth: np.ndarray, k: int, point: np.ndarray, rng: Any,
               n_resamples: int, method: str, level: float, scheme: str
               ) -> tuple[Any, pd.DataFrame | None, dict[str, ConfidenceInterval]]:
    """The bootstrap of the metrics (stratified Poisson replicates in one pass, or
    multinomial resamples of the items), its replicates and intervals; none without
    resamples."""
    if not n_resamples:
        return None, None, {}
    if scheme == "poisson":
        dist = np.ascontiguousarray(_replicates(srt, k, rng, n_resamples)[:, list(_COLS)])
        boot = bootstrap_result(point[list(_COLS)], dist, method=method,
                                confidence_level=level, scheme=scheme, n_items=len(srt.y))
    else:
        boot = _multinomial_boot(srt, truth, k, point, rng, n_resamples, method, level)
    reps = pd.DataFrame(boot.bootstrap_distribution, columns=list(METRICS))
    intervals = {m: ConfidenceInterval(float(boot.interval.low[s]),
                                       float(boot.interval.high[s]))
                 for s, m in enumerate(METRICS)}
    return boot, reps, intervals


def detection_replicates(scores: Any, is_error: Any, weights: Any, *,
                         k: int | None = None) -> pd.DataFrame:
    """The detection metrics under given item multiplicities (one row per weighting).

    The hook for a bootstrap engine that generates its own resample weights:
    row ``r`` of ``weights`` gives each item's multiplicity in replicate
    ``r`` (in the order of the items of ``scores``); the items are sorted
    once and each replicate is one weighted pass.

    Parameters
    ----------
    scores, is_error, k
        As in :func:`detection_metrics`.
    weights : array_like, shape (n_replicates, n) or (n,)
        Non-negative multiplicities.

    Returns
    -------
    pandas.DataFrame
        Columns ``average_precision``, ``auroc``, ``precision_at_k``,
        ``recall_at_k``, ``f1_at_k``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics import average_precision_score
    >>> y = np.array([1, 0, 1, 0, 0]); s = np.array([0.9, 0.8, 0.3, 0.3, 0.1])
    >>> w = np.array([2, 1, 0, 3, 1])
    >>> rep = detection_replicates(s, y, w)
    >>> bool(np.isclose(rep.average_precision[0],
    ...                 average_precision_score(np.repeat(y, w), np.repeat(s, w))))
    True
    """
    values, truth, items = _scores_and_truth(scores, is_error)
    n = len(values)
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 1:
        w = w[None]
    if w.ndim != 2 or w.shape[1] != n:
        raise ValueError(f"`weights` must have shape (n_replicates, {n}); got {w.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("`weights` must be finite and non-negative.")
    k = _check_k(k, n, int(truth.sum()))
    srt = _sort(values, truth, items)
    raw = K.metrics_weighted(srt.y, srt.last, np.ascontiguousarray(w[:, srt.order]), float(k))
    return pd.DataFrame(raw[:, list(_COLS)], columns=list(METRICS))


@dataclass(frozen=True, repr=False)
class DetectedErrorRateResult(Result):
    """The share of verified label errors among the top of a ranking.

    Attributes
    ----------
    rate : float
        Errors among the verified items of the top ``n_top``.
    n_top : int
        ``round(top_fraction · n)`` items hypothesised as errors.
    n_verified : int
        Of those, the items whose truth is known.
    n_errors : int
        Of those, the verified errors.
    top_fraction : float
    confidence_level : float
    interval : ConfidenceInterval
        Clopper–Pearson interval of ``rate``.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    rate: float
    n_top: int
    n_verified: int
    n_errors: int
    top_fraction: float
    confidence_level: float
    interval: ConfidenceInterval

    _headline = "rate"
    _keys = ("rate", "n_top", "n_verified", "n_errors", "top_fraction", "confidence_level",
             "low=interval.low", "high=interval.high")

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Clopper–Pearson interval of :attr:`rate` (default level: :attr:`confidence_level`)."""
        check_params(DetectedErrorRateResult.confidence_interval, locals())
        if confidence_level is None:
            return self.interval
        return clopper_pearson(self.n_errors, self.n_verified,
                               check_confidence_level(confidence_level))

    def __repr__(self) -> str:
        return (f"DetectedErrorRateResult({self.rate:.2%} of {self.n_verified} verified items "
                f"in the top {self.top_fraction:.2%} ({self.n_top} items) are errors; "
                f"{self.confidence_level:.0%} CI [{self.interval.low:.2%}, "
                f"{self.interval.high:.2%}])")


@validate_params(top_fraction=Probability(open_low=True),
                 confidence_level=ConfidenceLevel())
def detected_error_rate(ranking: Ranking, verified: Any, *, top_fraction: float = 0.0533,
                        confidence_level: float = 0.95) -> DetectedErrorRateResult:
    """Share of the top ``top_fraction`` of a ranking that verification found wrong.

    Parameters
    ----------
    ranking : Ranking
    verified : pandas.Series of bool
        The verified truth (True = a label error) of some or all items,
        indexed by item id; items of the top without a verdict are left out.
    top_fraction : float, default 0.0533
        The share of items hypothesised as errors (Chong et al. 2022 took the
        top 5.33%).
    confidence_level : float, default 0.95

    Returns
    -------
    DetectedErrorRateResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from simulation.detection import Ranking
    >>> r = Ranking.from_scores(pd.Series(np.arange(100.0)))
    >>> verified = pd.Series(np.arange(100) % 2 == 0)
    >>> res = detected_error_rate(r, verified, top_fraction=0.1)
    >>> res.n_top, res.rate
    (10, 0.5)
    """
    check_params(detected_error_rate, locals())
    if not isinstance(ranking, Ranking):
        raise TypeError(f"`ranking` must be a Ranking; got {type(ranking).__name__}.")
    if not isinstance(verified, pd.Series):
        raise TypeError("`verified` must be a Series of booleans indexed by item id.")
    if isinstance(top_fraction, bool) or not isinstance(top_fraction, numbers.Real) or \
            not 0 < float(top_fraction) <= 1:
        raise ValueError(f"`top_fraction` must be in (0, 1]; got {top_fraction!r}.")
    level = check_confidence_level(confidence_level)
    truth = _as_bool(verified.to_numpy(), "verified")
    n_top = max(1, round(float(top_fraction) * len(ranking.items)))
    top = ranking.items[:n_top]
    ver = pd.Series(truth, index=verified.index)
    known = ver.reindex(top).dropna().astype(bool)
    n_ver = len(known)
    n_err = int(known.sum())
    rate = n_err / n_ver if n_ver else math.nan
    if n_ver == 0:
        warnings.warn("no item of the top has a verdict: the rate is NaN.",
                      DegenerateDataWarning, stacklevel=2)
    return DetectedErrorRateResult(rate, n_top, n_ver, n_err, float(top_fraction), level,
                                   clopper_pearson(n_err, n_ver, level))
