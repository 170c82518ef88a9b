"""How sure should a fit be? The held-out check and calibration against verified labels (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.labels import labels_by_item
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Integer,
    Option,
    Rng,
    check_params,
    check_rng,
    validate_params,
)
from noise_models.latent_class._em import HELD_OUT_FOLDS, HELD_OUT_MAX_ITEMS, heldout_folds
from noise_models.latent_class._fit import LatentClassFit

T = lazy_module("noise_models.latent_class._tempering")

__all__ = ["CalibrationResult", "PosteriorCheckResult", "calibration", "posterior_check",
           "reliability_table"]


def reliability_table(confidence: np.ndarray, correct: np.ndarray, n_bins: int = 10,
                      weights: np.ndarray | None = None) -> tuple[pd.DataFrame, float]:
    """Equal-width bins of ``confidence`` in [0, 1]: count, mean confidence, accuracy; and ECE.

    ECE = Σ_b (n_b / n) · |accuracy_b − confidence_b| over the non-empty bins
    (Guo et al. 2017); a confidence of exactly 1 falls in the last bin. ``weights``:
    how many cases each entry stands for.
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    correct = np.asarray(correct, dtype=np.float64)
    w = np.ones(len(confidence)) if weights is None else np.asarray(weights, dtype=np.float64)
    b = np.minimum((confidence * n_bins).astype(np.int64), n_bins - 1)
    n = np.bincount(b, weights=w, minlength=n_bins).round().astype(np.int64)
    conf_sum = np.bincount(b, weights=w * confidence, minlength=n_bins)
    acc_sum = np.bincount(b, weights=w * correct, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = conf_sum / n
        acc = acc_sum / n
    edges = np.arange(n_bins + 1) / n_bins
    table = pd.DataFrame({"low": edges[:-1], "high": edges[1:], "n": n,
                          "confidence": mean_conf, "accuracy": acc})
    total = int(n.sum())
    ece = float(np.sum(np.abs(acc_sum - conf_sum)) / total) if total else float("nan")
    return table, ece


# ------------------------------------------------------------------ the held-out check
def _label_counts(codes: np.ndarray, m: int) -> np.ndarray:
    """``out[i, y]``: how many cells of row ``i`` of ``codes`` hold label ``y`` (−1: none),
    as floats; one pass over the rated cells."""
    i, j = np.nonzero(codes >= 0)
    flat = i * m + codes[i, j].astype(np.int64)
    return np.bincount(flat, minlength=codes.shape[0] * m).reshape(codes.shape[0], m
                                                                  ).astype(np.float64)


@dataclass(frozen=True, eq=False, repr=False)
class PosteriorCheckResult(Result):
    """How well a fit predicts ratings it was not shown (see :func:`posterior_check`).

    Attributes
    ----------
    log_score : float
        Mean log probability the fit gives each held-out rating (headline; higher is
        better; ``log(1/m)`` is a uniform guess).
    log_score_majority, log_score_marginal : float
        The same for the two baselines: the add-one smoothed shares of the item's
        other ratings, and the annotator's own add-one smoothed label shares.
    accuracy : float
        Share of held-out ratings equal to the fit's most probable prediction.
    ece : float
        Expected calibration error of the predicted annotator labels (10 bins).
    reliability : pandas.DataFrame
        Per bin: ``low``, ``high``, ``n``, mean predicted ``confidence``, ``accuracy``.
    n_heldout : int
        Held-out ratings (every rating of the items with two or more ratings, or of
        a sample of them).
    temperature : float
        The temperature of the fit's posteriors the check used (1 for a plain fit).
    suggested_temperature : float
        The temperature (≥ 1) at which the held-out ratings are predicted best;
        well above 1, the posteriors are sharper than the ratings bear out
        (``LatentClassModel(..., calibrate="held-out")`` applies it).
    verdict : str
        A plain sentence: whether the model predicts held-out ratings better than
        both baselines.

    ``to_frame()``: the reliability table.
    """

    log_score: float
    log_score_majority: float
    log_score_marginal: float
    accuracy: float
    ece: float
    n_heldout: int
    temperature: float
    suggested_temperature: float
    verdict: str
    reliability: pd.DataFrame = field(repr=False)

    _headline = "log_score"
    _records = _table = "reliability"
    _summary = ("Held-out ratings: {n_heldout}",
                "  log score: model {log_score:.4f}, majority of the rest "
                "{log_score_majority:.4f}, annotator's marginal {log_score_marginal:.4f}",
                "  accuracy of the predicted rating {accuracy:.4f}, ECE {ece:.4f}", "  {verdict}")

    @property
    def worse_than_baseline(self) -> bool:
        """True when a baseline predicts the held-out ratings better than the model."""
        return self.log_score < max(self.log_score_majority, self.log_score_marginal)

    def __repr__(self) -> str:
        return (f"PosteriorCheckResult(log_score={self.log_score:.4f}, majority="
                f"{self.log_score_majority:.4f}, marginal={self.log_score_marginal:.4f}, "
                f"ece={self.ece:.4f}, n_heldout={self.n_heldout})")


@validate_params(rng=Rng(), max_items=Integer(1, optional=True))
def posterior_check(fit: LatentClassFit, *, rng: Any = None,
                    max_items: int | None = HELD_OUT_MAX_ITEMS) -> PosteriorCheckResult:
    """Predict held-out ratings from the fit: a check of the posteriors without gold.

    For each item with two or more ratings, each rating is held out in turn,
    the item's state posterior is computed from its other ratings (at the fit's
    temperature), and the held-out rating is predicted by
    ``P(y) = Σ_s P(s | rest) · P_j(y | s)`` (the formulas are in
    ``noise_models.latent_class._tempering``). The parameters that predict a rating
    never saw it: the items are dealt into 5 seeded folds, and each fold's ratings
    are predicted with the parameters refitted (EM from the fit's own parameters)
    on the other folds' items — cross-fitting. The items of a fit with gold
    (``fit(ratings, gold=...)``) keep their known class in the refits and are
    not held out, as in ``calibrate="held-out"``. Two baselines predict the same
    held-out ratings: the add-one smoothed shares of the item's other ratings
    (majority of the rest), and the annotator's own add-one smoothed label shares
    (its other ratings).

    Parameters
    ----------
    fit : LatentClassFit
    rng : int or numpy.random.Generator, optional
        Seed of the folds, and of the sample of items when there are more than
        ``max_items``. Default: the fitted model's own ``rng``, so that the check's
        ``suggested_temperature`` is the temperature ``calibrate="held-out"`` chooses
        with the same seed.
    max_items : int or None, default 200000
        Items whose ratings are held out, at most (a seeded sample beyond); None:
        every item.

    Returns
    -------
    PosteriorCheckResult

    Examples
    --------
    Five annotators who are each right 80% of the time, independently:

    >>> import numpy as np
    >>> from noise_models import LatentClassModel, posterior_check
    >>> g = np.random.default_rng(1)
    >>> truth = g.integers(0, 2, 400)
    >>> x = np.where(g.random((400, 5)) < 0.8, truth[:, None], 1 - truth[:, None])
    >>> fit = LatentClassModel("one-coin", rng=0).fit(x)
    >>> check = posterior_check(fit, rng=0)
    >>> check.worse_than_baseline
    False
    >>> bool(check.log_score > check.log_score_majority)
    True
    """
    check_params(posterior_check, locals())
    if not isinstance(fit, LatentClassFit):
        raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
    r = fit.ratings
    codes = r.require_raters("`posterior_check`")
    m = r.n_categories
    seed = fit.model.rng if rng is None else rng
    folds = heldout_folds(fit, codes, check_rng(seed), max_items, fit.gold_codes,
                          n_folds=HELD_OUT_FOLDS)
    if not folds:
        if r.n_items < 2:
            raise ValueError("the held-out check refits the model without each fold of items "
                             f"and needs two or more items; there is {r.n_items}.")
        which = "no item without gold" if fit.n_gold else "no item"
        raise ValueError(f"{which} has two or more ratings: no rating can be held out and "
                         "predicted from the others.")
    pred = np.concatenate([T.predictive(f, fit.temperature)
                           for f in folds])
    label = np.concatenate([f.held.label for f in folds])
    annotator = np.concatenate([f.held.annotator for f in folds])
    w = np.concatenate([f.held.weight for f in folds])
    total = float(w.sum())
    rows = np.arange(len(label))
    p = np.maximum(pred[rows, label], 1e-300)
    log_score = float(np.dot(w, np.log(p)) / total)
    top = pred.argmax(axis=1)
    table, ece = reliability_table(pred[rows, top], top == label, weights=w)
    # majority of the rest, add-one smoothed: each held-out rating's item label counts
    # (counted once per distinct row of each fold, from its rated cells), less the rating
    counts = np.concatenate([_label_counts(f.rows, m)[f.held.items] for f in folds])
    counts[rows, label] -= 1.0
    maj = (counts[rows, label] + 1.0) / (counts.sum(axis=1) + m)
    # the annotator's own label shares without this rating, add-one smoothed
    own = _label_counts(codes.T, m)
    mine = own[annotator, label] - 1.0
    marg = (mine + 1.0) / (own[annotator].sum(axis=1) - 1.0 + m)
    ls_maj = float(np.dot(w, np.log(maj)) / total)
    ls_marg = float(np.dot(w, np.log(marg)) / total)
    suggested = T.choose_temperature(folds)
    verdict = _verdict(log_score, ls_maj, ls_marg, suggested, float(fit.temperature))
    return PosteriorCheckResult(log_score=log_score, log_score_majority=ls_maj,
                                log_score_marginal=ls_marg,
                                accuracy=float(np.dot(w, top == label) / total),
                                ece=ece, n_heldout=round(total),
                                temperature=float(fit.temperature),
                                suggested_temperature=suggested, verdict=verdict,
                                reliability=table)


def _verdict(log_score: float, ls_maj: float, ls_marg: float, suggested: float,
             temperature: float) -> str:
    """The check's verdict in words: the held-out log score against the two baselines,
    and what the temperature the held-out ratings ask for says of the posteriors."""
    worse = [name for name, v in (("the majority of the item's other ratings", ls_maj),
                                  ("each annotator's own label shares", ls_marg))
             if v > log_score]
    if worse:
        verdict = ("The model predicts held-out ratings worse than " + " and ".join(worse) +
                   ": its posteriors should not be trusted as they stand (try another "
                   "annotator model, or calibrate against verified items).")
    else:
        verdict = ("The model predicts held-out ratings better than both baselines "
                   "(the majority of the other ratings, the annotator's own shares).")
    if suggested >= 0.99 * T.T_RANGE[1]:
        verdict += (f" The held-out ratings ask for the flattest posteriors allowed "
                    f"(temperature {suggested:.2f}, the top of the range): parameters "
                    "refitted without an item barely predict its ratings, so the fit's "
                    "posteriors carry little information (too few items for each "
                    "annotator's parameters?); more ratings per annotator, or verified "
                    "items, would tell more.")
    elif suggested > 1.1 * temperature:
        verdict += (f" The held-out ratings are predicted best at temperature {suggested:.2f}: "
                    "the posteriors are sharper than the ratings bear out (calibrate="
                    "'held-out' tempers them).")
    return verdict


# ----------------------------------------------------------- calibration against verified labels
@dataclass(frozen=True, eq=False, repr=False)
class CalibrationResult(Result):
    """The fit's confidence against verified labels (see :func:`calibration`).

    Attributes
    ----------
    ece : float
        Expected calibration error of ``P(label right)`` on the verified items (headline).
    ece_recalibrated : float
        ECE of the recalibrated confidence on the verified items, out of fold
        (each item's recalibrated confidence from a map fitted without it).
    claimed_accuracy : float
        Mean ``P(label right)`` the fit claims on the verified items.
    verified_accuracy : float
        Share of verified items whose fitted label is the verified one.
    verified_interval : ConfidenceInterval
        Exact (Clopper–Pearson) interval of the verified accuracy.
    claimed_accuracy_all : float
        Mean ``P(label right)`` over every item of the fit.
    recalibrated_accuracy_all : float
        The same after recalibration: the accuracy the sample says to expect.
    n_verified : int
    confidence_level : float
    reliability : pandas.DataFrame
        10 bins: ``low``, ``high``, ``n``, ``confidence``, ``accuracy``.
    recalibrated : numpy.ndarray, shape (n_items, n_classes)
        Posteriors in the ratings' item and category order, the fitted label's
        probability mapped by the monotone map, the rest shared in proportion to
        the fit's posteriors of the other classes.
    recalibrated_label_posterior : numpy.ndarray, shape (n_items,)
    method : str
        The recalibration map, ``"bayes"``, ``"temperature"``, ``"isotonic"``, or what
        ``method="auto"`` chose: ``"identity"``, ``"temperature"`` or ``"platt"``.
    slope : float
        The map's slope ``a`` on the log-odds (1 for the identity, its posterior mean
        for ``"bayes"``, NaN for the isotonic map).

    ``to_frame()``: the reliability table.
    """

    ece: float
    ece_recalibrated: float
    claimed_accuracy: float
    verified_accuracy: float
    verified_interval: ConfidenceInterval
    claimed_accuracy_all: float
    recalibrated_accuracy_all: float
    n_verified: int
    confidence_level: float
    reliability: pd.DataFrame = field(repr=False)
    recalibrated: np.ndarray = field(repr=False)
    recalibrated_label_posterior: np.ndarray = field(repr=False)
    method: str = "bayes"
    slope: float = float("nan")

    _headline = "ece"
    _records = _table = "reliability"
    _summary = (
        "Calibration against {n_verified} verified items",
        "  claimed accuracy {claimed_accuracy:.4f}, verified {verified_accuracy:.4f} "
        "[{verified_interval.low:.4f}, {verified_interval.high:.4f}] ({confidence_level:g%} exact)",
        "  ECE {ece:.4f}; recalibrated (out of fold) {ece_recalibrated:.4f}{method==isotonic: "
        "by isotonic regression|{method==temperature: by temperature (log-odds x "
        "{slope:.3f})|{method==bayes: by temperature averaged over its posterior (log-odds "
        "x {slope:.3f} on average)| by the {method} map (log-odds x {slope:.3f})}}}",
        "  whole data set: claimed accuracy {claimed_accuracy_all:.4f}, after recalibration "
        "{recalibrated_accuracy_all:.4f}")

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The exact interval of the verified accuracy (at another level when given)."""
        check_params(CalibrationResult.confidence_interval, locals())
        if confidence_level is None or confidence_level == self.confidence_level:
            return self.verified_interval
        from scipy.stats import binomtest

        k = round(self.verified_accuracy * self.n_verified)
        ci = binomtest(k, self.n_verified).proportion_ci(float(confidence_level),
                                                         method="exact")
        return ConfidenceInterval(float(ci.low), float(ci.high))

    def __repr__(self) -> str:
        return (f"CalibrationResult(ece={self.ece:.4f}, ece_recalibrated="
                f"{self.ece_recalibrated:.4f}, claimed={self.claimed_accuracy:.4f}, "
                f"verified={self.verified_accuracy:.4f}, n_verified={self.n_verified})")


def _isotonic_map(x: np.ndarray, y: np.ndarray):
    """A non-decreasing map fitted by isotonic regression (pool adjacent violators),
    read between the fitted blocks by linear interpolation, flat beyond them."""
    from scipy.optimize import isotonic_regression

    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    fitted = isotonic_regression(ys, increasing=True).x
    # one knot per distinct x (the block value there)
    ux, first = np.unique(xs, return_index=True)
    uy = fitted[first]

    def apply(v: np.ndarray) -> np.ndarray:
        return np.interp(v, ux, uy)

    return apply


#: Recalibration maps of :func:`calibration`.
RECALIBRATION_METHODS = ("bayes", "temperature", "isotonic", "auto")

#: Prior standard deviation of ``log a`` of the default (``"bayes"``) map: the spread of the
#: log-slopes that recalibrate the default fit on nine public crowd sets with gold, by type-II
#: maximum likelihood about 0 (0.58-0.70 with any one set left out; benchmarks/RESULTS.md).
TEMPERATURE_PRIOR_SD = 0.66

_LOGIT_CLIP = 1e-12


def _temperature_slope(x: np.ndarray, y: np.ndarray) -> float:
    """``a ≥ 0`` maximising ``Σ t log σ(a z) + (1 − t) log(1 − σ(a z)) − (a − 1)²``,
    ``z = logit(x)``: the logistic fit of "label right" on the confidence's log-odds
    through the origin, with Platt's (1999) smoothed targets ``t`` (``(k + 1)/(k + 2)``
    for a right label, ``1/(n − k + 2)`` for a wrong one, ``k`` of ``n`` right) and a unit
    penalty toward the identity (``a = 1``)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_expit

    z = np.log(np.clip(x, _LOGIT_CLIP, 1 - _LOGIT_CLIP)) - np.log(
        np.clip(1.0 - x, _LOGIT_CLIP, 1 - _LOGIT_CLIP))
    n, k = y.size, float(np.sum(y))
    t = np.where(y > 0, (k + 1.0) / (k + 2.0), 1.0 / (n - k + 2.0))

    def objective(a: float) -> float:
        return -float(np.sum(t * log_expit(a * z) + (1.0 - t) * log_expit(-a * z))) \
            + (a - 1.0) ** 2

    # convex in a (logistic log-likelihood plus a quadratic): one minimum; the penalty
    # keeps it below 1 + sqrt(objective(1)) whatever the data
    upper = 1.0 + np.sqrt(objective(1.0)) + 1.0
    return float(minimize_scalar(objective, bounds=(0.0, upper), method="bounded",
                                 options={"xatol": 1e-10}).x)


def _temperature_map(x: np.ndarray, y: np.ndarray):
    """``v ↦ σ(a · logit(v))`` with ``a`` from :func:`_temperature_slope`."""
    from scipy.special import expit

    a = _temperature_slope(x, y)

    def apply(v: np.ndarray) -> np.ndarray:
        v = np.clip(v, _LOGIT_CLIP, 1 - _LOGIT_CLIP)
        return expit(a * (np.log(v) - np.log1p(-v)))

    apply.slope = a
    return apply


def _platt_map(x: np.ndarray, y: np.ndarray):
    """``v ↦ σ(a · logit(v) + b)``: Platt's (1999) two-parameter map, fitted as
    :func:`_temperature_slope` (smoothed targets) with a unit penalty ``(a − 1)² + b²``
    toward the identity."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    z = _logit(x)
    n, k = y.size, float(np.sum(y))
    t = np.where(y > 0, (k + 1.0) / (k + 2.0), 1.0 / (n - k + 2.0))

    def objective(p: np.ndarray) -> float:
        u = p[0] * z + p[1]
        return -float(np.sum(t * log_expit(u) + (1.0 - t) * log_expit(-u))) \
            + (p[0] - 1.0) ** 2 + p[1] ** 2

    a, b = minimize(objective, np.array([1.0, 0.0]), method="Nelder-Mead",
                    options={"xatol": 1e-8, "fatol": 1e-10}).x

    def apply(v: np.ndarray) -> np.ndarray:
        return expit(a * _logit(v) + b)

    apply.slope = float(a)
    return apply


def _bayes_log_posterior(log_a: np.ndarray, z: np.ndarray, y: np.ndarray,
                         prior_sd: float) -> np.ndarray:
    """``log p(log a) + Σ_i log P(y_i | a z_i)`` (up to a constant) at each ``log a``: the
    normal prior about the identity and the Bernoulli log-likelihood of the 0/1 outcomes
    under ``σ(a z)``, summed in blocks of items."""
    from scipy.special import log_expit

    out = -0.5 * (log_a / prior_sd) ** 2
    a = np.exp(log_a)[:, None]
    for s in range(0, z.size, 4096):
        u = a * z[None, s:s + 4096]
        yy = y[s:s + 4096]
        out = out + (yy * log_expit(u) + (1.0 - yy) * log_expit(-u)).sum(axis=1)
    return out


def _bayes_temperature_map(x: np.ndarray, y: np.ndarray,
                           prior_sd: float = TEMPERATURE_PRIOR_SD):
    """``v ↦ E[σ(a · logit v) | verified]``: the temperature map averaged over the posterior
    of its slope, ``log a ~ N(0, prior_sd²)`` a priori and the verified outcomes (0/1,
    unsmoothed) Bernoulli with ``σ(a · logit x_i)``.

    The posterior of ``log a`` is integrated on a grid: 321 points over ``±8 prior_sd``
    locate its mass (every point within ``e^-40`` of the highest, one step either side),
    81 points over that interval integrate it (the trapezoid rule, exponentially accurate on
    a smooth density that vanishes at both ends); the map's ``slope`` is the
    posterior mean of ``a``.
    """
    from scipy.special import expit

    z, y = _logit(x), np.asarray(y, dtype=np.float64)
    coarse = np.linspace(-8.0 * prior_sd, 8.0 * prior_sd, 321)
    lp = _bayes_log_posterior(coarse, z, y, prior_sd)
    mass = np.flatnonzero(lp >= lp.max() - 40.0)
    step = coarse[1] - coarse[0]
    grid = np.linspace(coarse[mass[0]] - step, coarse[mass[-1]] + step, 81)
    lp = _bayes_log_posterior(grid, z, y, prior_sd)
    w = np.exp(lp - lp.max())
    w[[0, -1]] *= 0.5
    w /= w.sum()
    keep = np.flatnonzero(w > 1e-15)
    slopes, w = np.exp(grid[keep]), w[keep] / w[keep].sum()

    def apply(v: np.ndarray) -> np.ndarray:
        zz = _logit(v)
        out = np.zeros(zz.shape)
        for a, wa in zip(slopes, w, strict=True):
            out += wa * expit(a * zz)
        return out

    apply.slope = float(w @ slopes)
    return apply


def _identity_map(x: np.ndarray, y: np.ndarray):
    """The fit's own confidence, unchanged."""
    def apply(v: np.ndarray) -> np.ndarray:
        return np.asarray(v, dtype=np.float64)

    apply.slope = 1.0
    return apply


def _logit(v: np.ndarray) -> np.ndarray:
    v = np.clip(np.asarray(v, dtype=np.float64), _LOGIT_CLIP, 1 - _LOGIT_CLIP)
    return np.log(v) - np.log1p(-v)


#: The maps ``method="auto"`` chooses among, by leave-one-out log score.
_AUTO_MAPS = {"identity": _identity_map, "temperature": None, "platt": _platt_map}


def _loo_log_score(fit_map, x: np.ndarray, y: np.ndarray) -> float:
    """Σ_i log P(y_i) under the map fitted without item i."""
    score = 0.0
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        p = float(np.clip(fit_map(x[keep], y[keep])(x[i:i + 1])[0], _LOGIT_CLIP,
                          1 - _LOGIT_CLIP))
        score += np.log(p) if y[i] > 0 else np.log1p(-p)
    return score


def _auto_map(x: np.ndarray, y: np.ndarray):
    """The identity, the temperature map or Platt's map, whichever predicts the verified
    items best left out one at a time (leave-one-out log score); the identity on ties."""
    maps = dict(_AUTO_MAPS, temperature=_temperature_map)
    if len(x) < 2:
        chosen = "identity"
    else:
        scores = {name: _loo_log_score(fm, x, y) for name, fm in maps.items()}
        chosen = max(scores, key=lambda name: (scores[name], name == "identity"))
    g = maps[chosen](x, y)
    g.chosen = chosen
    return g


@validate_params(confidence_level=ConfidenceLevel(), rng=Rng(), n_folds=Integer(2),
                 method=Option(RECALIBRATION_METHODS))
def calibration(fit: LatentClassFit, verified: Any, *, confidence_level: float = 0.95,
                method: str = "bayes", n_folds: int = 5,
                rng: Any = None) -> CalibrationResult:
    """The fit's confidence against verified labels, and posteriors recalibrated on them.

    ``verified`` holds the true labels of some items: a random sample checked by
    an expert, or gold. The fit's confidence in its label, ``P(label right)``
    (``fit.label_posterior``), is compared with whether the label is right:
    expected calibration error over 10 bins, the reliability table, and the
    claimed accuracy (mean confidence) beside the verified accuracy with its exact
    Clopper–Pearson interval. The recalibration map is monotone in the confidence
    ``p``, fitted on the verified items to "label right" (0/1):

    - ``method="bayes"`` (default): the temperature map ``p ↦ σ(a · logit p)``
      averaged over the slope's posterior, ``E[σ(a · logit p) | verified]``. A
      priori ``log a ~ N(0, 0.66²)``: centred on the identity (the fit as it is),
      its spread that of the slopes which recalibrate the default fit on nine
      public crowd sets with gold (type-II maximum likelihood over the sets; the
      same for every data set). The verified outcomes enter as they are (0/1):
      a few verified items leave the slope's posterior nearly as wide as the
      prior, a few hundred pin it down. With few items the map is close to the
      prior's average over temperatures, a mild hedge (five right labels at 0.99
      map 0.99 to 0.976), and one confidently wrong label of five does not flatten
      every other confidence as the penalised slope of ``"temperature"`` does
      (bluebird below: +0.005 against +0.051). With the default
      fit and a random 5% of the gold items (at least 5; means of 50 draws,
      ``benchmarks/RESULTS.md``) the ECE on the other items stays within 0.01 of
      the gold-free fit's on all nine sets (at most +0.005: sentiment, bluebird)
      and is at most 0.065 on the seven sets with 20 or more verified items (face
      0.129 → 0.065, dog 0.098 → 0.048, web 0.077 → 0.048).
    - ``method="temperature"``: one slope ``a ≥ 0`` chosen by maximising the
      Bernoulli log-likelihood of "label right" minus ``(a − 1)²`` (a pull toward
      the identity worth about one verified item), the 0/1 outcomes entering as
      Platt's (1999) smoothed targets: ``(k + 1)/(k + 2)`` for a right label and
      ``1/(n − k + 2)`` for a wrong one when ``k`` of the ``n`` verified labels are
      right. ``a < 1`` flattens an overconfident fit (temperature ``1/a``). On a
      small or all-right sample the targets flatten every confidence toward
      ``(k + 1)/(k + 2)``: with the default fit and 5% of the gold items it left
      the ECE on the other items worse than the gold-free fit's by more than 0.01
      on three of nine public crowd sets (bluebird's 5 items +0.051, wsd's 9
      +0.069).
    - ``method="isotonic"``: isotonic regression (a non-decreasing step function,
      pool adjacent violators; linear between its knots), for large samples.
    - ``method="auto"``: the identity (the fit as it is), the temperature map or
      Platt's two-parameter map ``σ(a · logit p + b)`` (same targets, penalty
      ``(a − 1)² + b²``), whichever has the best leave-one-out log score on the
      verified items: a small or all-right sample keeps the fit's own confidence,
      a large one may move it. With the default fit and 5% of the gold items
      (means of 50 draws, ``benchmarks/RESULTS.md``) it keeps the ECE on the
      other items within 0.01 of the gold-free fit's on eight of nine public crowd
      sets (not on bluebird's 5 items: +0.024), but leaves face at 0.078.

    ``ece_recalibrated`` is the map's ECE out of fold (``n_folds``-fold
    cross-validation, seeded), so that it does not grade the map on the items it
    was fitted to. A verified sample is only representative of the items it was
    drawn from: draw it at random.

    Parameters
    ----------
    fit : LatentClassFit
    verified : pandas.Series or dict
        True labels by item id (ids of the fit's ratings; labels among its categories,
        ``2``, ``2.0`` and ``"2"`` being one label).
    confidence_level : float, default 0.95
        Level of the exact interval of the verified accuracy.
    method : {"bayes", "temperature", "isotonic", "auto"}, default "bayes"
        The recalibration map (above). The result's ``method`` names the map used
        (for ``"auto"``: ``"identity"``, ``"temperature"`` or ``"platt"``).
    n_folds : int, default 5
        Folds of the out-of-fold ECE (at most the number of verified items).
    rng : int or numpy.random.Generator, optional
        Seed of the folds.

    Returns
    -------
    CalibrationResult

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from noise_models import LatentClassModel, calibration
    >>> g = np.random.default_rng(2)
    >>> truth = pd.Series(g.integers(0, 2, 600))
    >>> x = np.where(g.random((600, 3)) < 0.7, truth.to_numpy()[:, None],
    ...              1 - truth.to_numpy()[:, None])
    >>> fit = LatentClassModel("one-coin", rng=0).fit(x)
    >>> res = calibration(fit, truth.sample(150, random_state=0), rng=0)
    >>> res.n_verified, bool(res.recalibrated.shape == (600, 2))
    (150, True)
    >>> res.method, round(res.slope, 2)   # posterior mean of the slope a
    ('bayes', 0.91)

    Five verified labels, all right, where the fit claimed 0.57 to 0.93: the map
    sharpens the confidence (a slope fitted by maximum likelihood alone would run off
    toward certainty; the prior keeps the posterior mean of ``a`` at 1.69):

    >>> small = calibration(fit, truth.iloc[:5], rng=0)
    >>> np.round(fit.label_posterior[:3], 3), np.round(small.recalibrated_label_posterior[:3], 3)
    (array([0.765, 0.574, 0.933]), array([0.832, 0.619, 0.946]))

    References
    ----------
    Platt, J. (1999). Probabilistic outputs for support vector machines and comparisons to
    regularized likelihood methods. *Advances in Large Margin Classifiers*, 61–74.

    Guo, C., Pleiss, G., Sun, Y., & Weinberger, K. Q. (2017). On calibration of modern
    neural networks. *ICML*, 1321–1330.

    Morris, C. N. (1983). Parametric empirical Bayes inference: theory and applications.
    *Journal of the American Statistical Association*, 78(381), 47–55.
    """
    check_params(calibration, locals())
    from scipy.stats import binomtest

    if not isinstance(fit, LatentClassFit):
        raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
    pos, right = _verified_items(fit, verified)
    conf_all = np.nan_to_num(np.asarray(fit.label_posterior, dtype=np.float64), nan=0.0)
    conf = conf_all[pos]
    n = len(pos)
    table, ece = reliability_table(conf, right)
    k = int(right.sum())
    ci = binomtest(k, n).proportion_ci(confidence_level, method="exact")
    ece_oof, g, new_conf, recal = _recalibrate(fit, conf_all, pos, right, method, n_folds, rng)
    return CalibrationResult(
        ece=ece, ece_recalibrated=ece_oof, claimed_accuracy=float(conf.mean()),
        verified_accuracy=k / n,
        verified_interval=ConfidenceInterval(float(ci.low), float(ci.high)),
        claimed_accuracy_all=float(conf_all.mean()),
        recalibrated_accuracy_all=float(new_conf.mean()), n_verified=n,
        confidence_level=float(confidence_level), reliability=table, recalibrated=recal,
        recalibrated_label_posterior=new_conf, method=getattr(g, "chosen", method),
        slope=float(getattr(g, "slope", np.nan)))


def _verified_items(fit: LatentClassFit, verified: Any) -> tuple[np.ndarray, np.ndarray]:
    """The verified items' positions in the ratings and whether the fit's label is right
    there (1.0 or 0.0), in the ratings' item order (the same result however the sample is
    ordered)."""
    r = fit.ratings
    pos, true = labels_by_item(verified, r.items, r.categories, "verified")
    order = np.argsort(pos, kind="stable")
    pos, true = pos[order], true[order]
    return pos, (np.asarray(fit.label_codes)[pos] == true).astype(np.float64)


def _recalibrate(fit: LatentClassFit, conf_all: np.ndarray, pos: np.ndarray,
                 right: np.ndarray, method: str, n_folds: int, rng: Any
                 ) -> tuple[float, Any, np.ndarray, np.ndarray]:
    """The map from claimed confidence to verified accuracy, learnt on the verified items
    (``pos``, ``right``): its out-of-fold ECE, the map, every item's recalibrated
    P(label right) and class posterior (the rest of the mass shared as the fit shares it)."""
    conf = conf_all[pos]
    n = len(pos)
    labels = np.asarray(fit.label_codes)
    # out-of-fold recalibrated confidence
    fit_map = {"bayes": _bayes_temperature_map, "temperature": _temperature_map,
               "isotonic": _isotonic_map, "auto": _auto_map}[method]
    folds = min(n_folds, n)
    assign = check_rng(rng).permutation(n) % folds
    oof = np.empty(n)
    for f in range(folds):
        test = assign == f
        train = ~test
        if not train.any():
            oof[test] = right.mean()
            continue
        oof[test] = fit_map(conf[train], right[train])(conf[test])
    _, ece_oof = reliability_table(oof, right)
    g = fit_map(conf, right)
    new_conf = np.clip(g(conf_all), 0.0, 1.0)
    post = np.nan_to_num(np.asarray(fit.class_posterior, dtype=np.float64), nan=0.0)
    m = post.shape[1]
    rows = np.arange(post.shape[0])
    others = post.copy()
    others[rows, labels] = 0.0
    tot = others.sum(axis=1, keepdims=True)
    share = np.where(tot > 0, others / np.where(tot > 0, tot, 1.0), 1.0 / max(m - 1, 1))
    share[rows, labels] = 0.0
    recal = share * (1.0 - new_conf)[:, None]
    recal[rows, labels] = new_conf
    recal.setflags(write=False)
    new_conf.setflags(write=False)
    return ece_oof, g, new_conf, recal
