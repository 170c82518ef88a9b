"""``judge_estimate``: a prevalence or mean rating from a judge on every item and humans on some.

Each human-labelled item gives one value however many humans rated it -- the share
of its humans who chose the class (``truth="mean"``), the majority's label
(``"majority"``, ties shared) or the latent-class posterior (``"posterior"``) -- so
the variance is over items (clustered by item), and the prediction-powered
estimate of :mod:`._ppi` runs on those values against the judge's label on the same
items and on the items no human rated.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import ShapeError
from _goldnoise_lib.results import ConfidenceInterval
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Rng,
    check_candidate_columns,
    check_params,
    check_probability,
    validate_params,
)
from agreement import Ratings, as_ratings
from noise_models.judge._ppi import PPIResult, _check_flag, ppi_core

__all__ = ["TRUTHS", "JudgeEstimateResult", "judge_estimate"]

TRUTHS = ("mean", "majority", "posterior")


@dataclasses.dataclass(frozen=True, repr=False)
class JudgeEstimateResult(PPIResult):
    """A class's prevalence (or the mean rating) over all items, from a judge and humans.

    Every field of :class:`PPIResult`, and:

    Attributes
    ----------
    candidate : str
        The judge (a rater of the ratings).
    humans : tuple of str
        The raters counted as humans.
    category : object or None
        The class whose prevalence is estimated; None for the mean rating.
    truth : {"mean", "majority", "posterior"}
        How an item's human value is made from its humans' labels.
    estimand : str
        What the estimate is of, in words.
    n_items : int
        Items used (labelled + unlabelled).
    humans_per_item : float
        Mean number of humans per labelled item.
    n_left_out : int
        Items left out because the judge did not rate them.
    """

    candidate: Any
    humans: tuple[Any, ...]
    category: Any
    truth: str
    estimand: str
    n_items: int
    humans_per_item: float
    n_left_out: int
    bounds: tuple[float, float] | None = None
    draws: np.ndarray | None = dataclasses.field(default=None, repr=False, compare=False)

    _summary = ("{estimand} (judge {candidate!s}, human truth: {truth}; {humans_per_item:.2g} "
                "humans per labelled item)", *PPIResult._summary[1:])

    def __post_init__(self) -> None:
        # A prevalence's estimate (PPI can give a negative one) and its normal interval can
        # leave [0, 1] with few labelled items: clip them to the estimand's range, say so.
        if self.bounds is None:
            return
        lo, hi = self.bounds
        clipped = [name for name, value in (("estimate", self.estimate), ("low", self.low),
                                            ("high", self.high),
                                            ("classical_low", self.classical_low),
                                            ("classical_high", self.classical_high))
                   if not lo <= value <= hi]
        if not clipped:
            return
        for name in clipped:
            object.__setattr__(self, name, float(np.clip(getattr(self, name), lo, hi)))
        object.__setattr__(self, "notes", (*self.notes, (
            f"the estimate or its normal interval reached outside [{lo:g}, {hi:g}], the range "
            f"of a prevalence, and is clipped there ({', '.join(clipped)}): with so few "
            "labelled items the interval's coverage is approximate; label more items")))

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The prediction-powered interval (default: the level it was computed at), clipped
        to the range of a prevalence when ``category`` was given."""
        check_params(JudgeEstimateResult.confidence_interval, locals())
        if self.draws is not None:  # truth="posterior": the bootstrap's percentiles
            alpha = 1.0 - (self.confidence_level if confidence_level is None
                           else float(confidence_level))
            ci = ConfidenceInterval(*np.quantile(self.draws, [alpha / 2, 1 - alpha / 2])
                                    .tolist())
        else:
            ci = PPIResult.confidence_interval(self, confidence_level)
        if self.bounds is None:
            return ci
        return ConfidenceInterval(*np.clip([ci.low, ci.high], *self.bounds).tolist())

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def classical_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The human-only interval (default: the level it was computed at), clipped like
        :meth:`confidence_interval`."""
        check_params(JudgeEstimateResult.classical_interval, locals())
        ci = PPIResult.classical_interval(self, confidence_level)
        if self.bounds is None:
            return ci
        return ConfidenceInterval(*np.clip([ci.low, ci.high], *self.bounds).tolist())


@validate_params(rng=Rng())
def labelled_sample(ratings: Any, share: float, *, candidates: Any, humans: Any = None,
                    rng: Any = None) -> list:
    """A random share of the human-rated items, to count as human-labelled.

    For ``judge_estimate(..., labelled=)`` when the humans rated every item the judge
    rated (a validation set): ``round(share × n)`` of the ``n`` items with a rating by
    a human (any rater not in ``candidates``, or one of ``humans``), drawn without
    replacement.

    Parameters
    ----------
    ratings : Ratings or array_like
    share : float
        In (0, 1].
    candidates : str or sequence
        The judges (their ratings do not make an item human-rated).
    humans : sequence, optional
        The humans; default every rater not in ``candidates``.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    list
        The drawn item ids, in the ratings' order.

    Raises
    ------
    ValueError
        ``share`` outside (0, 1], or fewer than 2 items drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import labelled_sample
    >>> x = np.array([[0, 1, 0], [1, 1, 1], [0, 0, 1], [1, 0, 0]])
    >>> labelled_sample(x, 0.5, candidates=[2], rng=0)
    [2, 3]
    """
    check_params(labelled_sample, locals())
    r = as_ratings(ratings)
    share = check_probability(share, "share")
    if share == 0:
        raise ValueError("`share` must be in (0, 1]; got 0.")
    cands = {str(c) for c in ([candidates] if isinstance(candidates, (str, bytes))
                              else candidates)}
    wanted = None if humans is None else {str(h) for h in humans}
    cols = [k for k, x in enumerate(r.raters) if str(x) not in cands
            and (wanted is None or str(x) in wanted)]
    rated = np.flatnonzero((r.require_raters("`labelled_sample`")[:, cols] >= 0).any(axis=1))
    k = round(share * len(rated))
    if k < 2:
        raise ValueError(f"`share` {share:g} of the {len(rated)} human-rated items is {k}; "
                         "the estimate needs 2 or more.")
    pick = np.sort(np.random.default_rng(rng).choice(rated, size=k, replace=False))
    return list(r.items[pick])


def _item_mask(labelled: Any, items: pd.Index) -> np.ndarray:
    if labelled is None:
        return np.ones(len(items), dtype=bool)
    if isinstance(labelled, (str, bytes)):
        raise TypeError("`labelled` must be a list of item ids or a boolean mask over the "
                        f"items; got the string {labelled!r}.")
    arr = np.asarray(list(labelled) if not isinstance(labelled, np.ndarray) else labelled)
    if arr.dtype == bool:
        if arr.shape != (len(items),):
            raise ShapeError(f"`labelled` as a boolean mask needs one entry per item "
                             f"({len(items)}); got shape {arr.shape}.")
        return arr.copy()
    pos = items.get_indexer(pd.Index(arr.tolist() if arr.ndim else [arr.item()]))
    if (pos < 0).any():
        missing = [v for v, p in zip(arr.tolist(), pos, strict=True) if p < 0][:5]
        raise ValueError(f"`labelled` names items that are not in the ratings: {missing}.")
    mask = np.zeros(len(items), dtype=bool)
    mask[pos] = True
    return mask


def _strata_of(strata: Any, items: pd.Index) -> np.ndarray | None:
    if strata is None:
        return None
    if isinstance(strata, pd.Series):
        missing = items.difference(strata.index)
        if len(missing):
            raise ValueError(f"`strata` has no stratum for {len(missing)} item(s), e.g. "
                             f"{list(missing[:3])}; give every item one.")
        return strata.reindex(items).to_numpy(dtype=object)
    arr = np.asarray(strata, dtype=object)
    if arr.shape != (len(items),):
        raise ShapeError(f"`strata` needs one stratum per item ({len(items)}), in the order of "
                         f"the ratings' items (or a Series indexed by item); got shape "
                         f"{arr.shape}.")
    return arr


def _prevalence_influence(post: np.ndarray) -> np.ndarray:
    """Per item, ``φ̂ + IF_i``: the class prevalences' influence-function values.

    The latent-class prevalence φ̂ solves ``Σ_i (post_i − φ) = 0`` (the EM fixed point,
    so ``mean(post) = φ̂``). Its influence function with the annotator parameters held
    fixed is ``IF_i = M⁻¹ (post_i − φ̂)`` with ``M_cd = mean(post_c post_d) / φ̂_d``
    (the derivative of the estimating equation; solved on the simplex's tangent space,
    ``Σ_c IF_ic = 0``). The mean of the rows is φ̂, and their variance over items is
    the sandwich variance of φ̂ -- the raw posteriors lean on φ̂ through the prior and
    understate it (1/0.7 of their variance in the simulation of the tests, where the
    raw posteriors covered 70% of the time).
    """
    phi = post.mean(axis=0)
    used = phi > 1e-12
    out = np.zeros_like(post)
    out[:, ~used] = post[:, ~used]
    p = post[:, used]
    ph = phi[used]
    big_m = (p.T @ p) / len(p) / ph[None, :]
    k = int(used.sum())
    lhs = np.vstack([big_m, np.ones((1, k))])
    rhs = np.vstack([(p - ph).T, np.zeros((1, len(p)))])
    infl = np.linalg.lstsq(lhs, rhs, rcond=None)[0].T
    out[:, used] = ph + infl
    return out


#: Item resamples of the labelled items for the annotator parameters' share of the variance.
PARAMETER_RESAMPLES = 200


def _parameter_refits(model: Any, sub: Any, rng: Any, start: Any = None
                      ) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """The class weights of the model refitted on :data:`PARAMETER_RESAMPLES` item
    resamples of the labelled items ``sub`` (annotators re-estimated every time), the
    resamples' item counts and a generator for the unlabelled items' resamples:
    ``(phis (B, m), counts (B, n), generator)``; None for a model
    without refits or fewer than 2 items. Each refit starts from ``start`` (the fit to
    ``sub``), as the annotators' bootstrap intervals do: the resample's own optimum
    near the fit, not another start's (cold-started refits spread alike: bootstrap sd
    of the prevalence 0.068 against 0.067 warm, over 20 studies of the benchmark's
    two-class design).
    """
    import copy
    import warnings

    n = sub.n_items
    if n < 2 or not hasattr(model, "refit_resamples"):
        return None
    gen = np.random.default_rng(rng if rng is not None else 0)
    counts = gen.multinomial(n, np.full(n, 1.0 / n), size=PARAMETER_RESAMPLES)
    seeds = gen.integers(0, 2**31, size=PARAMETER_RESAMPLES)
    rest = np.random.default_rng(gen.integers(0, 2**31))
    quiet = copy.copy(model)
    quiet.n_starts = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        phis = np.array([p["phi"] for p in quiet.refit_resamples(sub, counts, seeds,
                                                                 start=start)])
    return phis, counts, rest


def _with_parameter_uncertainty(y: np.ndarray, f: np.ndarray, boot_y: np.ndarray,
                                boot_f: np.ndarray) -> np.ndarray:
    """The labelled items' values ``y = φ̂ + IF_i`` (at fixed annotator parameters)
    re-spread so that their variance and their covariance with the judge's values
    ``f`` are the refits' (the prevalence's whole sampling moments).

    ``boot_y`` and ``boot_f`` are, per item resample, the refitted prevalence (its
    value: ``φ* @ values``) and the judge's mean over the resampled items. Writing
    ``y − φ̂ = β (f − f̄) + r`` (``r`` uncorrelated with ``f``), the values become
    ``φ̂ + κ (f − f̄) + s r`` with ``κ = Cov*(φ*, f̄*)/Var*(f̄*)``, the refits' slope on
    the judge, and ``s`` such that their variance over items, over ``n``, is
    ``Var*(φ*)``: PPI then sees the refits' variance of φ̂ and their covariance with
    the judge's mean. Scaling the whole ``IF_i`` (as before) carried the judge's
    covariance up with the variance although the annotator parameters' share of φ̂'s
    variance is hardly correlated with the judge (correlation 0.25 over the refits
    against 0.52 for ``IF_i``, in the benchmark's two-class design): PPI++ then took
    off too much variance and covered 0.907. Applied only where the refits' variance
    is the larger (the annotator parameters add to it); the mean stays φ̂.
    """
    n = len(y)
    if n < 2 or len(boot_y) < 2:
        return y
    var_boot = float(np.var(boot_y, ddof=1))
    dev, g = y - y.mean(), f - f.mean()
    if not np.isfinite(var_boot) or var_boot <= float(np.var(y)) / n:
        return y
    var_g = float(np.var(g))
    var_bf = float(np.var(boot_f, ddof=1))
    if var_g > 0 and var_bf > 0:
        kappa = float(np.cov(boot_y, boot_f)[0, 1]) / var_bf
        beta = float(np.mean(dev * g)) / var_g
    else:  # the judge constant on the labelled items: nothing to correlate with
        kappa = beta = 0.0
    rest = dev - beta * g
    room = var_boot - kappa**2 * var_g / n
    var_r = float(np.var(rest))
    if room <= 0 or var_r <= 0:  # nothing uncorrelated with the judge to spread
        return y.mean() + np.sqrt(var_boot * n / float(np.var(y))) * dev
    return y.mean() + kappa * g + np.sqrt(room * n / var_r) * rest


def _resampled_means(f: np.ndarray, gen: Any) -> np.ndarray:
    """The means of ``f`` over :data:`PARAMETER_RESAMPLES` item resamples of it, drawn
    from their normal limit ``N(f̄, var(f)/n)`` (the judge-only items are many: drawing
    the resamples themselves cost 27 ms a call for 2,700 items, and grows with them)."""
    return f.mean() + f.std() / np.sqrt(len(f)) * gen.standard_normal(PARAMETER_RESAMPLES)


def _modal_share(counts: np.ndarray) -> np.ndarray:
    """Per item, each category's share of the majority: 1/m for the m tied modes."""
    top = counts.max(axis=1, keepdims=True)
    modes = ((counts == top) & (top > 0)).astype(np.float64)
    return modes / np.maximum(modes.sum(axis=1, keepdims=True), 1.0)  # unrated rows: 0

def _estimand(r: Ratings, category: Any) -> tuple[np.ndarray, str]:
    """The value of each category (its number for a mean rating; 1 for ``category`` and
    0 for the others for a prevalence) and the estimand's name."""
    cats = list(r.categories)
    if category is None:
        if r.categories.dtype.kind not in "iuf":
            raise ValueError(f"`category` is needed: the labels are not numbers, so there is "
                             f"no mean rating; name the class whose prevalence to estimate "
                             f"(one of {cats[:10]}).")
        values = np.asarray(r.category_values, dtype=np.float64)
        estimand = "mean rating"
    else:
        if category not in cats:
            raise ValueError(f"`category` {category!r} is not a label of the ratings; the "
                             f"labels are {cats[:10]}.")
        values = np.zeros(len(cats))
        values[cats.index(category)] = 1.0
        estimand = f"prevalence of {category!r}"
    return values, estimand


def _labelled_items(r: Ratings, labelled: Any, judge: np.ndarray, n_humans: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The items with human labels (``labelled``, else every item a human rated), the
    items the judge rated, and a note on those it did not; checked: two or more items of
    both, one or more judge-only."""
    is_lab = _item_mask(labelled, r.items)
    if labelled is not None and (is_lab & (n_humans == 0)).any():
        bad = list(r.items[is_lab & (n_humans == 0)][:5])
        raise ValueError(f"`labelled` names items no human rated, e.g. {bad}; leave them out "
                         "(they are judge-only items).")
    is_lab &= n_humans > 0
    rated = judge >= 0
    n_left_out = int((~rated).sum())
    notes = []
    if n_left_out:
        notes.append(f"{n_left_out} item(s) the judge did not rate are left out (PPI needs "
                     "the judge's label on every item).")
    lab, unl = is_lab & rated, ~is_lab & rated
    if lab.sum() < 2:
        raise ValueError(f"{int(lab.sum())} item(s) carry both human labels and the judge's; "
                         "at least 2 are needed.")
    if unl.sum() < 1:
        raise ValueError("every item the judge rated has human labels: there are no "
                         "judge-only items for the judge to add. Pass `labelled` to use the "
                         "human labels of a subset, or add the judge's labels of the unlabelled "
                         "items.")
    return is_lab, rated, notes


def _human_shares(truth: str, r: Ratings, hc: np.ndarray, h_cols: Any, is_lab: np.ndarray,
                  model: Any, rng: Any, notes: list[str]) -> tuple[np.ndarray, Any, Any]:
    """Each item's human value as category shares ``(n_items, m)``: the latent-class
    posterior of the labelled items as the prevalence's influence values, the humans'
    mean, or their modal label; and for the posterior the refits of
    :func:`_parameter_refits` and the model fitted (None otherwise).

    The default model's item-difficulty part is read from how the vote splits spread
    across items beyond what the annotators' errors predict; with two labels and at
    most 3 ratings per item the spam model alone has as many parameters as there are
    rating patterns, so nothing is left to identify it: the spam model is fitted
    instead (and ``notes`` says so). Kept, the difficulty part took a hard share of
    about 0.18 where there was none and biased the prevalence (0.328 for 0.30, with
    class-dependent human errors)."""
    m = r.n_categories
    if truth == "posterior":
        from noise_models.latent_class import LatentClassModel

        fit_model = model
        if model is None:
            most = int((hc[is_lab] >= 0).sum(axis=1).max())
            if m <= 2 and most <= 3:
                fit_model = LatentClassModel("spam", rng=rng)
                notes.append(f"the default model's item-difficulty part cannot be identified "
                             f"from at most {most} ratings of two labels per item (the spam "
                             "model alone has as many parameters as rating patterns): the "
                             "spam model is fitted without it.")
            else:
                fit_model = LatentClassModel("spam", "difficulty", rng=rng)
        if not hasattr(fit_model, "fit"):
            raise TypeError(f"`model` must be a LatentClassModel (or EasyHardModel); got "
                            f"{type(fit_model).__name__}.")
        sub = Ratings(hc[is_lab], r.categories, items=r.items[is_lab],
                      raters=r.raters[h_cols], ordered=r.ordered,
                      category_values=r.category_values)
        fit = fit_model.fit(sub)
        post = np.asarray(fit.class_posterior, dtype=np.float64)
        shares = np.zeros((r.n_items, m))
        shares[is_lab] = _prevalence_influence(post)
        return shares, _parameter_refits(fit_model, sub, rng, start=fit), fit_model
    else:
        counts = np.zeros((r.n_items, m))
        for col in hc.T:  # one rating per item and column: plain fancy-index adds
            rows = np.flatnonzero(col >= 0)
            counts[rows, col[rows]] += 1.0
        if truth == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
        else:
            shares = _modal_share(counts)
    return shares, None, None


@validate_params(truth=Option(TRUTHS), confidence_level=ConfidenceLevel(), rng=Rng())
def judge_estimate(ratings: Any, candidate: Any, *, category: Any = None,
                   truth: str = "mean", labelled: Any = None, humans: Any = None,
                   model: Any = None, tuned: bool = True, strata: Any = None,
                   confidence_level: float = 0.95, rng: Any = None, inclusion: Any = None,
                   scores: Any = None) -> JudgeEstimateResult:
    """A class's prevalence (or the mean rating) over all items, from a judge and humans.

    The judge (``candidate``) rates every item; humans rate some. Each item with
    human labels gives one value whatever the number of humans who rated it, and the
    prediction-powered estimate (:func:`ppi_mean`) combines those values with the
    judge's labels on the same items and on the items no human rated. The variance
    is over items (clustered by item), so several humans per item are one
    observation, not several.

    Parameters
    ----------
    ratings : Ratings or array_like or pandas.DataFrame
        Items × raters, the judge among the raters. Items only the judge rated are
        the unlabelled items.
    candidate : hashable
        The judge: a rater of ``ratings``.
    category : object, optional
        The class whose prevalence (share of items) is estimated. None estimates the
        mean rating, which needs numeric labels.
    truth : {"mean", "majority", "posterior"}, default "mean"
        An item's human value: the share of its humans who chose ``category`` (their
        mean rating); the majority's label (tied modes share the item); or the
        latent-class prevalence of ``model`` fitted to the humans' labels of the
        labelled items (the judge is left out of the fit, so the truth does not
        depend on it): each item contributes its posterior turned into the
        prevalence's influence-function value (Notes), so that the interval carries
        the fit's uncertainty about the prevalence.
    labelled : sequence of item ids or boolean mask, optional
        The items whose human labels are used; default every item a human rated.
        Human labels of other items are ignored (those items count as judge-only).
    humans : sequence of rater ids, optional
        The raters who count as humans; default every rater but ``candidate``
        (pass it when the ratings hold other judges).
    model : LatentClassModel, optional
        The fit for ``truth="posterior"``; default ``LatentClassModel("spam",
        "difficulty", rng=rng)``, the package's default crowd model, whose spam
        emission lets humans err class-dependently (one-coin's single error rate
        cannot: with 1→0 errors of 35% and 0→1 of 5% it estimated a prevalence of
        0.167 for 0.30); with two labels and at most 3 human ratings per item, where
        the item-difficulty part cannot be identified, ``LatentClassModel("spam",
        rng=rng)`` (with a note). Its prevalence is less precise than one-coin's
        (more parameters per annotator), so the interval carries the annotator
        parameters' uncertainty too (Notes).
    tuned : bool, default True
        PPI++ (power-tuned λ) or PPI (λ = 1).
    strata : array_like or pandas.Series, optional
        A stratum per item (in the ratings' item order, or a Series indexed by item):
        stratified PPI.
    confidence_level : float, default 0.95
    rng : None, int, SeedSequence or Generator
        Seeds the default model's starts (``truth="posterior"`` only).
    inclusion : array_like, pandas.Series or ActiveSampleResult, optional
        Each item's probability of having been sent to humans (:func:`active_sample`):
        the labelled items were drawn with these probabilities, and the estimate is
        active inference's inverse-probability-weighted one (Zrnic & Candès 2024),
        with its human-only (Horvitz–Thompson) interval as the classical one.
    scores : array_like, pandas.Series or pandas.DataFrame, optional
        The judge's soft output per item -- the probability of ``category`` (n,), or
        probabilities (or log-probabilities) per class (n, classes) -- used as the
        judge's value instead of its label's (never replaced by its top class). The
        judge's column still says which items it rated.

    Returns
    -------
    JudgeEstimateResult
        A :class:`PPIResult` (estimate, ``confidence_interval()``, the human-only
        interval, the effective sample-size gain) with the candidate, the humans and
        what was estimated.

    Raises
    ------
    ValueError
        A candidate or human that is not a rater, a category that is not a label,
        ``category=None`` with labels that are not numbers, fewer than 2 labelled or
        no unlabelled items the judge rated.

    Warns
    -----
    EstimationWarning
        The judge is too weakly correlated with the humans to help (gain below 1.1).

    Notes
    -----
    The estimand is the population mean of the item values: with ``truth="mean"``
    the probability that a random human gives a random item ``category``; with
    ``"majority"`` the share of items whose human majority is ``category``; with
    ``"posterior"`` the model's prevalence of the latent class. The interval covers
    it when the labelled items are a random sample of the items (use ``strata`` when
    they were sampled by stratum).

    With ``truth="posterior"`` the raw posteriors are not independent item values:
    their mean is the fitted prevalence φ̂, and they lean on φ̂ through the prior, so
    their variance over items understates φ̂'s (their interval covered about 70% of
    the time in simulation). Each item's value is therefore ``φ̂ + IF_i``, with the
    influence function of φ̂ at fixed annotator parameters, ``IF_i = M⁻¹(post_i −
    φ̂)``, ``M_cd = mean(post_c·post_d)/φ̂_d``; for two classes ``IF_i = (post_i − φ̂)
    φ̂(1 − φ̂)/mean((post − φ̂)²)``. Where refitting the model on 200 item resamples
    of the labelled items (each refit started from the fit) gives φ̂ a larger variance
    (the annotator parameters' own uncertainty), the values are re-spread to the refits'
    moments: their variance to the refits' variance of φ̂, and their covariance with the
    judge's values to the refits' covariance of φ̂ with the judge's mean over the same
    resampled items (``φ̂ + κ(f_i − f̄) + s·r_i``, ``r_i`` the part of ``IF_i``
    uncorrelated with the judge). The parameters' share of the variance is hardly
    correlated with the judge (0.25 over the refits against 0.52 for ``IF_i`` in the
    simulation below), so the judge helps less than ``IF_i`` alone suggests; scaling
    every ``IF_i`` up instead carried the covariance up too, and the interval covered
    0.907.

    For a model without hard items (the spam model the default falls back to with two
    labels and at most 3 ratings per item: there the difficulty part has no rating
    pattern left to be identified from, and kept it biased the prevalence, 0.328 for
    0.30) and without ``strata`` or ``inclusion``, the interval is the percentile
    interval of the prediction-powered bootstrap: per item resample, the refitted
    prevalence less λ times the judge's mean over the resampled labelled items minus
    its mean over a resample of the unlabelled items (drawn from its normal limit).
    The prevalence of so noisy a fit is skewed (its standard error falls with it), and
    the normal interval covered 0.882 of 400 with class-dependent human errors (1→0
    35%, 0→1 5%), the percentile one 0.915; ``standard_error`` and
    ``sample_size_gain`` stay the normal approximation's. Coverage in simulation (``benchmarks/RESULTS.md``, 400 studies
    each): 0.958 on two classes with symmetric human errors, 0.973 to 0.993 with three
    classes (the difficulty model, normal interval), 0.915 with the class-dependent
    errors above (estimate 0.295 for 0.30), above 0.90 but below the 0.95 aimed at.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import judge_estimate
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.random(3000) < 0.25
    >>> def rate(err):
    ...     return np.where(rng.random(3000) < err, ~truth, truth).astype(float)
    >>> table = np.column_stack([rate(0.1), rate(0.1), rate(0.1), rate(0.15)])
    >>> table[300:, :3] = np.nan            # humans rated the first 300 items only
    >>> res = judge_estimate(table, 3, category=1.0)
    >>> round(res.estimate, 3), res.n_labelled, res.n_unlabelled
    (0.3, 300, 2700)
    >>> [round(x, 3) for x in res.confidence_interval()]
    [0.261, 0.338]
    >>> [round(x, 3) for x in res.classical_interval()]   # the 300 items' humans alone
    [0.271, 0.36]
    >>> round(res.sample_size_gain, 2)
    1.3
    """
    check_params(judge_estimate, locals())
    r = as_ratings(ratings)
    codes = r.require_raters("`judge_estimate`")
    raters = list(r.raters)
    j, h_cols = check_candidate_columns(raters, candidate, humans)
    tuned = _check_flag(tuned, "tuned")
    cats = list(r.categories)
    values, estimand = _estimand(r, category)
    judge = codes[:, j]
    hc = codes[:, h_cols]
    n_humans = (hc >= 0).sum(axis=1)
    is_lab, rated, notes = _labelled_items(r, labelled, judge, n_humans)
    lab, unl = is_lab & rated, ~is_lab & rated
    n_left_out = int((~rated).sum())
    shares, refits, fitted = _human_shares(truth, r, hc, h_cols, is_lab, model, rng, notes)
    y_all = shares @ values
    f_all = values[np.maximum(judge, 0)]
    # a prevalence lies in [0, 1]; the normal interval is clipped there (and says so)
    bounds = (0.0, 1.0) if category is not None else None
    if scores is not None:
        from noise_models.judge import _active

        f_all = _active.soft_values(scores, r.items, cats, category, values)
    if refits is not None:  # the annotator parameters' uncertainty, against the judge's
        phis, counts, rest = refits
        judged = rated[is_lab]  # the fitted (labelled) items the judge rated
        w = counts[:, judged]
        boot_f = (w @ f_all[lab]) / np.maximum(w.sum(axis=1), 1)
        y_all[lab] = _with_parameter_uncertainty(y_all[lab], f_all[lab], phis @ values, boot_f)
    if inclusion is not None:
        from noise_models.judge import _active

        if strata is not None:
            raise ValueError("`inclusion` and `strata` cannot be combined: the inclusion "
                             "probabilities already say how the items were drawn.")
        pi = _active.inclusion_of(inclusion, r.items)[rated]
        return _active.active_core(
            y_all[rated], f_all[rated], lab[rated], pi, tuned=tuned,
            confidence_level=float(confidence_level), notes=notes,
            result_class=JudgeEstimateResult, candidate=candidate,
            humans=tuple(r.raters[h_cols]), category=category, truth=truth,
            estimand=estimand, n_items=int(rated.sum()),
            humans_per_item=float(n_humans[lab].mean()), n_left_out=n_left_out,
            bounds=bounds)
    st = _strata_of(strata, r.items)
    split = None if st is None else (st[lab], st[unl])
    res = ppi_core(
        y_all[lab], f_all[lab], f_all[unl], tuned=tuned, strata=split,
        confidence_level=float(confidence_level), notes=notes,
        result_class=JudgeEstimateResult, candidate=candidate,
        humans=tuple(r.raters[h_cols]), category=category, truth=truth,
        estimand=estimand, n_items=int(lab.sum() + unl.sum()),
        humans_per_item=float(n_humans[lab].mean()), n_left_out=n_left_out, bounds=bounds)
    if refits is None or split is not None or getattr(fitted, "hard", None) is not None:
        return res
    # the refits' own prevalence (a model without hard items: its class weights are the
    # posteriors' mean), each less λ times its resample's judge difference
    draws = phis @ values - res.lam * (boot_f - _resampled_means(f_all[unl], rest))
    alpha = 1.0 - float(confidence_level)
    low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2]).tolist()
    return dataclasses.replace(res, low=low, high=high, draws=draws)
