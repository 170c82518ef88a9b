"""Prediction-powered inference for a mean: PPI, PPI++ and stratified PPI (SPEC §10).

A judge (any automatic rater) labels every item; humans label ``n`` of them. With
``Y`` the human value of a labelled item, ``f`` the judge's value on it and ``f̃``
the judge's value on the ``N`` unlabelled items, the estimate of the mean is

    θ̂(λ) = λ · mean(f̃) + mean(Y − λ f)                 (Angelopoulos et al. 2023, eq. 1;
                                                          PPI++, Angelopoulos, Duchi & Zrnic 2023)

with variance ``λ² Var(f̃)/N + Var(Y − λ f)/n`` (sample variances with divisor ``N``
and ``n``, as ``ppi_py`` computes them). ``λ = 1`` is PPI; ``λ = 0`` is the classical
mean of the human values; PPI++ uses the variance-minimising

    λ̂ = Cov(Y, f) / ((1 + n/N) · Var(f, f̃)),  clipped to [0, 1]

(the covariance with divisor ``n`` over the labelled items, the variance with divisor
``n + N − 1`` over the judge's values on all items) -- the same plug-in as
``ppi_py.ppi_mean_ci`` with ``lam=None``, so the two agree to rounding.

Stratified PPI (Fisch et al. 2024) runs the estimate in each stratum ``k`` with its
own λ_k and combines ``θ̂ = Σ w_k θ̂_k``, ``Var = Σ w_k² Var_k``, where ``w_k`` is the
stratum's share of all items (labelled and unlabelled). The classical interval
beside it is the same estimator at λ = 0 (the stratified human-only mean when
strata are given). The effective sample-size gain is the ratio of the classical
variance to the PPI variance: the human labels the judge is worth, per human label.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import EstimationWarning, ShapeError
from _goldnoise_lib.results import ConfidenceInterval, Result, plain_value
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    check_confidence_level,
    check_params,
    validate_params,
)

__all__ = ["WEAK_GAIN", "PPIResult", "ppi_core", "ppi_mean"]

#: Below this effective sample-size gain the judge is "too weakly correlated to
#: help": its labels are worth less than a tenth of the human labels again.
WEAK_GAIN = 1.1


@dataclasses.dataclass(frozen=True)
class PPIResult(Result):
    """A prediction-powered estimate of a mean, with the human-only estimate beside it.

    Attributes
    ----------
    estimate : float
        The prediction-powered estimate (``float(result)``).
    low, high : float
        Its interval at ``confidence_level`` (normal approximation).
    standard_error : float
    confidence_level : float
    method : str
        ``"PPI++"`` (power-tuned λ), ``"PPI"`` (λ = 1), with ``"stratified "`` in
        front when strata were given.
    lam : float or None
        The λ used; None when stratified (each stratum's λ is in ``strata``).
    classical_estimate, classical_low, classical_high, classical_standard_error : float
        The human-only estimate (the same estimator at λ = 0) and its interval.
    sample_size_gain : float
        ``classical_standard_error² / standard_error²``: how many human labels each
        human label is worth once the judge's labels are added (1 = no gain; below 1
        the judge's labels hurt, possible with λ = 1).
    effective_n : float
        ``n_labelled · sample_size_gain``: the human-only sample the estimate matches.
    correlation : float
        Pearson correlation of the judge's and the humans' values on the labelled
        items (NaN when either is constant).
    n_labelled, n_unlabelled : int
    weak_judge : bool
        ``sample_size_gain < 1.1``; an :class:`~goldnoise.EstimationWarning` said so.
    notes : tuple of str
    strata : pandas.DataFrame or None
        Stratified only: one row per stratum (``stratum``, ``weight``, ``n_labelled``,
        ``n_unlabelled``, ``lam``, ``estimate``, ``standard_error``,
        ``classical_estimate``, ``classical_standard_error``).

    ``to_frame()`` is one row of the scalar fields. ``confidence_interval(level)`` and
    ``classical_interval(level)`` give the intervals at another level.
    """

    _headline: ClassVar[str] = "estimate"
    _records = ("strata",)
    _summary = (
        "Prediction-powered estimate of a mean",
        "  {method} ({lam==None:λ per stratum|λ = {lam:.3g}}): {estimate:.4f}, "
        "{confidence_level:.0%} interval [{low:.4f}, {high:.4f}]",
        "  humans only: {classical_estimate:.4f}, {confidence_level:.0%} interval "
        "[{classical_low:.4f}, {classical_high:.4f}]",
        "  {n_labelled} human-labelled and {n_unlabelled} judge-only items; correlation "
        "{correlation:.3f}",
        "  effective sample-size gain {sample_size_gain:.3f}: the interval is worth "
        "{effective_n:,.0f} human-labelled items", ("notes", "  * {}"))

    estimate: float
    low: float
    high: float
    standard_error: float
    confidence_level: float
    method: str
    lam: float | None
    classical_estimate: float
    classical_low: float
    classical_high: float
    classical_standard_error: float
    sample_size_gain: float
    effective_n: float
    correlation: float
    n_labelled: int
    n_unlabelled: int
    weak_judge: bool
    notes: tuple[str, ...]
    strata: pd.DataFrame | None = dataclasses.field(repr=False, compare=False)

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The prediction-powered interval (default: the level it was computed at)."""
        check_params(PPIResult.confidence_interval, locals())
        return _interval(self.estimate, self.standard_error,
                         self.confidence_level if confidence_level is None else confidence_level)

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def classical_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The human-only interval (default: the level the result was computed at)."""
        check_params(PPIResult.classical_interval, locals())
        return _interval(self.classical_estimate, self.classical_standard_error,
                         self.confidence_level if confidence_level is None else confidence_level)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.method}: {self.estimate:.4g} "
                f"[{self.low:.4g}, {self.high:.4g}], gain {self.sample_size_gain:.3g})")



def _interval(estimate: float, se: float, confidence_level: Any) -> ConfidenceInterval:
    level = check_confidence_level(confidence_level)
    from scipy import stats  # loaded on first use: import goldnoise stays light
    z = float(stats.norm.isf((1.0 - level) / 2.0))
    return ConfidenceInterval(estimate - z * se, estimate + z * se)


def _values(x: Any, name: str, minimum: int) -> np.ndarray:
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"`{name}` must be a 1-D array of numbers; got {type(x).__name__}.")
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a 1-D array of numbers (0/1 for a class); "
                        f"got values that are not numbers.") from None
    if a.ndim != 1:
        raise ShapeError(f"`{name}` must be 1-D (one value per item); got shape {a.shape}.")
    if a.size < minimum:
        raise ShapeError(f"`{name}` needs at least {minimum} values; got {a.size}.")
    if not np.isfinite(a).all():
        raise ValueError(f"`{name}` holds {int((~np.isfinite(a)).sum())} NaN or infinite "
                         "values; drop those items first (a missing label is no value).")
    return a


def _tuned_lambda(y: np.ndarray, f: np.ndarray, fu: np.ndarray) -> float:
    """PPI++'s plug-in λ for a mean (ppi_py's ``_calc_lam_glm`` with d = 1), in [0, 1]."""
    n, big_n = y.size, fu.size
    cov = float(np.mean((y - y.mean()) * (f - f.mean())))
    var = float(np.var(np.concatenate([f, fu]), ddof=1))
    if not var > 0.0:  # the judge says the same everywhere: it carries no information
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


def _one_stratum(y: np.ndarray, f: np.ndarray, fu: np.ndarray, tuned: bool
                 ) -> tuple[float, float, float, float, float]:
    """(λ, estimate, SE, classical estimate, classical SE) of one stratum."""
    n = y.size
    if fu.size == 0:  # every item of the stratum is labelled: nothing to add
        lam = 0.0
    else:
        lam = _tuned_lambda(y, f, fu) if tuned else 1.0
    rect = y - lam * f
    if fu.size:
        est = lam * float(fu.mean()) + float(rect.mean())
        var = lam * lam * float(fu.var()) / fu.size + float(rect.var()) / n
    else:
        est, var = float(rect.mean()), float(rect.var()) / n
    return lam, est, math.sqrt(var), float(y.mean()), math.sqrt(float(y.var()) / n)


def _correlation(y: np.ndarray, f: np.ndarray) -> float:
    if y.size < 2 or np.ptp(y) == 0.0 or np.ptp(f) == 0.0:
        return math.nan
    return float(np.corrcoef(y, f)[0, 1])


def ppi_core(y: np.ndarray, f: np.ndarray, fu: np.ndarray, *, tuned: bool,
             strata: tuple[np.ndarray, np.ndarray] | None, confidence_level: float,
             notes: list[str], result_class: type = PPIResult, stacklevel: int = 3,
             **extra: Any) -> Any:
    """The estimate from validated float arrays; ``extra`` fields go to ``result_class``."""
    method = "PPI++" if tuned else "PPI"
    if strata is None:
        lam, est, se, c_est, c_se = _one_stratum(y, f, fu, tuned)
        table = None
    else:
        s_lab, s_unl = strata
        keys = list(pd.unique(np.concatenate([s_lab, s_unl])))
        try:
            keys = sorted(keys)
        except TypeError:  # names of mixed types: keep their order of appearance
            pass
        total = y.size + fu.size
        rows = []
        for k in keys:
            in_l, in_u = s_lab == k, s_unl == k
            n_k = int(in_l.sum())
            if n_k < 2:
                raise ValueError(
                    f"stratum {k!r} has {n_k} labelled item(s); each stratum needs at least 2 "
                    "to estimate its variance. Merge it with a neighbour or label more items.")
            lam_k, est_k, se_k, c_k, cse_k = _one_stratum(y[in_l], f[in_l], fu[in_u], tuned)
            rows.append({"stratum": plain_value(k), "weight": (n_k + int(in_u.sum())) / total,
                         "n_labelled": n_k, "n_unlabelled": int(in_u.sum()), "lam": lam_k,
                         "estimate": est_k, "standard_error": se_k,
                         "classical_estimate": c_k, "classical_standard_error": cse_k})
        table = pd.DataFrame(rows)
        w = table["weight"].to_numpy()
        est = float(w @ table["estimate"].to_numpy())
        se = math.sqrt(float(w**2 @ table["standard_error"].to_numpy() ** 2))
        c_est = float(w @ table["classical_estimate"].to_numpy())
        c_se = math.sqrt(float(w**2 @ table["classical_standard_error"].to_numpy() ** 2))
        lam = None
        method = f"stratified {method}"
    if se > 0.0:
        gain = (c_se / se) ** 2
    else:  # both zero: every value identical, the judge neither helps nor hurts
        gain = 1.0 if c_se == 0.0 else math.inf
    corr = _correlation(y, f)
    weak = bool(gain < WEAK_GAIN)
    if weak:
        if np.ptp(f) == 0.0:
            why = "its labels are constant on the labelled items"
        elif np.ptp(y) == 0.0:
            why = ("the human values are constant on the labelled items, so the human-only "
                   "interval has width 0")
        else:
            why = f"correlation {corr:.3f} with the human values"
        msg = (f"the judge is too weakly correlated with the humans to help ({why}): the "
               f"effective sample-size gain is {gain:.3f} (below {WEAK_GAIN}), so the "
               f"interval is about as wide as the human-only one or wider"
               + ("; PPI++ fell back towards the classical estimate" if tuned else
                  "; with λ = 1 (PPI) a weak judge can widen it, tuned=True avoids that")
               + ".")
        notes.append(msg)
        warnings.warn(msg, EstimationWarning, stacklevel=stacklevel)
    z_lo, z_hi = _interval(est, se, confidence_level)
    c_lo, c_hi = _interval(c_est, c_se, confidence_level)
    return result_class(
        estimate=est, low=z_lo, high=z_hi, standard_error=se,
        confidence_level=confidence_level, method=method, lam=lam,
        classical_estimate=c_est, classical_low=c_lo, classical_high=c_hi,
        classical_standard_error=c_se, sample_size_gain=gain,
        effective_n=y.size * gain, correlation=corr, n_labelled=int(y.size),
        n_unlabelled=int(fu.size), weak_judge=weak, notes=tuple(notes), strata=table,
        **extra)


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False; got {value!r}.")
    return bool(value)


def _check_strata(strata: Any, n: int, big_n: int) -> tuple[np.ndarray, np.ndarray] | None:
    if strata is None:
        return None
    if not (isinstance(strata, (tuple, list)) and len(strata) == 2):
        raise TypeError("`strata` must be a pair (strata of the labelled items, strata of the "
                        "unlabelled items), two 1-D arrays of stratum names; got "
                        f"{type(strata).__name__}.")
    out = []
    for part, size, what in zip(strata, (n, big_n), ("labelled", "unlabelled"), strict=True):
        a = np.asarray(part, dtype=object)
        if a.ndim != 1 or a.size != size:
            raise ShapeError(f"`strata` of the {what} items must have one entry per item "
                             f"({size}); got shape {a.shape}.")
        if pd.isna(a).any():
            raise ValueError(f"`strata` of the {what} items holds missing values; give every "
                             "item a stratum.")
        out.append(a)
    return out[0], out[1]


@validate_params(confidence_level=ConfidenceLevel())
def ppi_mean(labels: Any, predictions: Any, unlabeled_predictions: Any, *,
             tuned: bool = True, strata: Any = None, confidence_level: float = 0.95
             ) -> PPIResult:
    """Prediction-powered estimate of a mean: PPI, PPI++ and stratified PPI.

    Parameters
    ----------
    labels : array_like of float, shape (n,)
        The human value of each labelled item (0/1 for a class's prevalence).
    predictions : array_like of float, shape (n,)
        The judge's value on the same items.
    unlabeled_predictions : array_like of float, shape (N,)
        The judge's value on the items without a human label.
    tuned : bool, default True
        PPI++'s power-tuned λ (Angelopoulos, Duchi & Zrnic 2023), clipped to [0, 1],
        which never does worse than the human-only mean asymptotically; False is the
        original PPI (λ = 1; Angelopoulos et al. 2023).
    strata : (array_like, array_like) or None
        Stratum names of the labelled and of the unlabelled items: stratified PPI
        (Fisch et al. 2024), each stratum with its own λ, weighted by its share of
        all ``n + N`` items. Each stratum needs two labelled items.
    confidence_level : float, default 0.95

    Returns
    -------
    PPIResult
        The estimate, ``confidence_interval()``, the human-only (classical) interval,
        the effective sample-size gain, the correlation.

    Raises
    ------
    TypeError, ValueError, ShapeError
        Values that are not finite numbers, lengths that differ, fewer than 2
        labelled or 1 unlabelled items, a stratum with fewer than 2 labelled items.

    Warns
    -----
    EstimationWarning
        When the effective sample-size gain is below 1.1: the judge is too weakly
        correlated with the humans to help.

    Notes
    -----
    ``θ̂ = λ·mean(f̃) + mean(Y − λf)``, ``Var = λ²·Var(f̃)/N + Var(Y − λf)/n`` and the
    normal interval ``θ̂ ± z·SE`` (see the module docstring for λ̂). Without strata
    the result equals ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=1 −
    confidence_level, lam=None or 1)`` to rounding; the classical interval equals
    ``ppi_py.baselines.classical_mean_ci``. The interval covers the mean of the
    population that the labelled and unlabelled items are both random samples from.

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), Prediction-powered inference,
    Science 382:669–674, doi:10.1126/science.adi6000.
    Angelopoulos, Duchi & Zrnic (2023), PPI++: efficient prediction-powered inference,
    arXiv:2311.01453.
    Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen (2024), Stratified prediction-powered
    inference for hybrid language model evaluation, NeurIPS 2024, arXiv:2406.04291.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import ppi_mean
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(2200) < 0.3
    >>> judge = np.where(rng.random(2200) < 0.9, truth, ~truth)   # right 90% of the time
    >>> res = ppi_mean(truth[:200], judge[:200], judge[200:])
    >>> round(res.estimate, 3), round(res.classical_estimate, 3), round(res.lam, 2)
    (0.283, 0.265, 0.63)
    >>> round(res.sample_size_gain, 2)     # worth 2.11 human labels per human label
    2.11
    """
    check_params(ppi_mean, locals())
    y = _values(labels, "labels", 2)
    f = _values(predictions, "predictions", 2)
    fu = _values(unlabeled_predictions, "unlabeled_predictions", 1)
    if f.size != y.size:
        raise ShapeError(f"`predictions` must have one value per labelled item ({y.size}); "
                         f"got {f.size}.")
    tuned = _check_flag(tuned, "tuned")
    st = _check_strata(strata, y.size, fu.size)
    return ppi_core(y, f, fu, tuned=tuned, strata=st,
                    confidence_level=float(confidence_level), notes=[])
