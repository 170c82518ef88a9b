"""A fitted latent-class model and the γ bound of the fit (SPEC §2.4).

:class:`LatentClassFit` holds the parameters and per-item posteriors of a fit;
:func:`fit_noise_bound` (as :meth:`LatentClassFit.noise_bound`) generalises the
γ bound to a fitted model with a hard component and to items with their own
annotators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    ConfidenceLevel,
    check_alpha,
    check_params,
    validate_params,
)
from agreement import Ratings
from noise_models.easy_hard import noise_bound

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
optimize = lazy_module("scipy.optimize")
special = lazy_module("scipy.special")
K = lazy_module("noise_models.latent_class._kernels")

__all__ = ["UNSTABLE_SHARE", "UNSTABLE_WITHIN", "FitNoiseBoundResult", "LatentClassFit",
           "fit_noise_bound"]

#: Starts within this many log-likelihood units of the best objective that label more than
#: this share of the items differently make the optimum unstable (SPEC §5, Starts): the fit
#: warns (UnstableStartsWarning) and LatentClassFit.unstable_starts lists them.
UNSTABLE_WITHIN = 1.0
UNSTABLE_SHARE = 0.01

# Gauss–Legendre nodes over the region where π's posterior is above e^-_CUT
# of its maximum (e^-40 ≈ 4e-18 of the mass is left out).
_NODES = 128
_CUT = 40.0
# π's posterior is evaluated no closer to 0 than this (log π is -inf at 0).
_TINY = 1e-300
# Exact Poisson-binomial DP while nodes × agreed items × support stays below this.
_DP_BUDGET = 4e8

# ------------------------------------------------------------------ the fit
def _readonly(a: np.ndarray | None) -> np.ndarray | None:
    if a is not None:
        a.setflags(write=False)
    return a


@dataclass(frozen=True, repr=False, eq=False)
class LatentClassFit(Result):
    """A fitted latent-class model: parameters, per-item posteriors, diagnostics.

    ``temperature`` is 1 for a plain fit; with ``calibrate="held-out"`` the
    posteriors are ``P(s | x)^(1/T)`` renormalised, ``T`` chosen by held-out
    ratings predicted by parameters refitted without them
    (``noise_models.posterior_check``). ``n_gold`` counts the items fitted with a
    known class (``fit(ratings, gold=...)``), and ``gold_codes`` holds that class.

    Attributes
    ----------
    model : LatentClassModel
        The model that was fitted.
    ratings : Ratings
        The data.
    phi : ndarray, shape (m,)
        Class shares among easy items. For ``hard="difficulty"`` the shares the
        posteriors give: the mean of ``class_posterior`` over the rated items (the
        labels are the stage-1 spam model's, the posteriors the whole model's; the
        model's own class weights are ``class_weights``).
    pi : float or None
        Hard share; ``None`` without a hard component. A model-dependent
        diagnostic, not a finding (see :class:`LatentClassModel`).
    q : ndarray, shape (k, m), or None
        Hard distributions ``q[j, c]`` (rater columns × categories); ``None`` without
        a hard component.
    error_rate : ndarray, shape (k,), or None
        One-coin error rates ``ε_j``.
    confusion : ndarray, shape (k, m, m), or None
        Confusion matrices ``confusion[j, c, x] = P(j says x | class c)``.
    competence : ndarray, shape (k,), or None
        Spam model: probability ``θ_j`` that annotator ``j`` labels truly.
    spam_distribution : ndarray, shape (k, m), or None
        Spam model: annotator ``j``'s spam label distribution ``ξ_j``.
    class_posterior : ndarray, shape (n, m)
        ``P(item easy and of class c | its labels)``. For ``hard="difficulty"``
        (every item has a class): ``P(class c | its labels) = P(easy | x)
        P(c | x, easy) + P(hard | x) v_c``, ``v`` the posterior mean of the
        hard item's own label distribution (its votes counted by the annotators'
        competences, Perks's Dirichlet(1/m) prior; see :class:`LatentClassModel`).
    posterior_hard : ndarray, shape (n,), or None
        ``P(item hard | its labels)``; ``None`` without a hard component.
    label_codes : ndarray of int, shape (n,)
        Codes of :attr:`labels`.
    label_posterior : ndarray, shape (n,)
        ``P(item easy and its class is the label | its labels)``: the
        probability that the reported label is right (0 for an item that is
        surely hard: a hard item has no true label). For ``hard="difficulty"``:
        ``class_posterior`` at the label.
    loglik : ndarray
        The EM objective — log-likelihood plus log prior density (pseudo-counts
        ``prior_strength``; the log-likelihood itself when it is 0) — at the
        start and after each iteration of the kept start. Never decreasing.
    log_likelihood : float
        Log-likelihood of the data at the final parameters.
    n_iter : int
        EM iterations of the kept start.
    converged : bool
        Whether the kept start met ``tol`` within ``max_iter``.
    start_objectives : ndarray, shape (n_starts,)
        Final objective of every start (the first is the majority-vote start, which is
        always among the starts).
    start_labels : ndarray of int, shape (n_starts, n)
        Every start's label codes of the items (classes matched to the kept start's for
        Dawid–Skene; gold items carry their gold class in every start). Empty (no rows)
        for ratings fitted in chunks, where items are not kept per start.
    start_disagreement : ndarray, shape (n_starts,)
        Share of items each start labels differently from the kept one (0 for the kept
        one; classes matched for Dawid–Skene). :meth:`unstable_starts` lists the starts
        within 1 log-likelihood unit of the best that disagree on more than 1% of labels,
        and the fit warns (:class:`~agreement.UnstableStartsWarning`) when there is one.
    temperature : float
        ``T`` of the posteriors (1: the plain fit).
    n_gold : int
        Items fitted with a known class (``fit(ratings, gold=...)``).
    gold_codes : ndarray of int, shape (n,), or None
        The code of each such item's known class, -1 for the others; ``None`` for a
        fit without gold. :func:`~noise_models.posterior_check` keeps these items
        known when it refits.
    level_weights : ndarray, shape (3,), or None
        ``hard="difficulty"``: the shares ``ω`` of hard items whose own accuracy is
        0.2, 0.4 and 0.6 (``None`` for the other models).
    class_weights : ndarray, shape (m,), or None
        ``hard="difficulty"``: the class weights of the model's states (stage 2's EM
        estimate, every state of class c, easy or hard), which its tables use; they
        can differ from ``phi`` where the hard items are many (``None`` for the other
        models, whose ``phi`` is the weight).

    Examples
    --------
    >>> import pandas as pd
    >>> from noise_models import LatentClassModel
    >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
    ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
    ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
    >>> fit = LatentClassModel("spam", rng=0).fit(x)
    >>> fit.to_frame().head(3).round(3)
         label  label_posterior  n_ratings
    item
    0      pos            1.000          3
    1      neg            0.998          3
    2      pos            0.998          3

    ``to_frame()``: one row per item: ``label``, ``label_posterior``, ``posterior_hard``, ``n_ratings``.
    """
    #: ``to_dict()``: a scalar summary of the fit.
    _keys = ("model=model.name", "n_items=ratings.n_items", "n_raters=ratings.n_raters",
             "n_categories=ratings.n_categories", "pi", "phi", "log_likelihood",
             "objective=_objective", "n_iter", "converged", "temperature", "n_gold")
    _columns: ClassVar[dict[str, str]] = {
        "label": "labels", "label_posterior": "label_posterior", "posterior_hard": "posterior_hard",
        "n_ratings": "n_ratings"}
    _index = "ratings.items"

    model: Any  # the LatentClassModel that made the fit (its module imports this one)
    ratings: Ratings
    phi: np.ndarray
    pi: float | None
    q: np.ndarray | None
    error_rate: np.ndarray | None
    confusion: np.ndarray | None
    competence: np.ndarray | None
    spam_distribution: np.ndarray | None
    class_posterior: np.ndarray
    posterior_hard: np.ndarray | None
    label_codes: np.ndarray
    label_posterior: np.ndarray
    loglik: np.ndarray
    log_likelihood: float
    n_iter: int
    converged: bool
    start_objectives: np.ndarray = field(default_factory=lambda: np.empty(0))
    start_disagreement: np.ndarray = field(default_factory=lambda: np.empty(0))
    start_labels: np.ndarray = field(default_factory=lambda: np.empty((0, 0), dtype=np.int16))
    temperature: float = 1.0
    gold_codes: np.ndarray | None = None
    level_weights: np.ndarray | None = None
    class_weights: np.ndarray | None = None

    @property
    def n_gold(self) -> int:
        """Items fitted with a known class (``fit(ratings, gold=...)``)."""
        return 0 if self.gold_codes is None else int(np.count_nonzero(self.gold_codes >= 0))

    def unstable_starts(self, within: float = UNSTABLE_WITHIN,
                        share: float = UNSTABLE_SHARE) -> pd.DataFrame:
        """Starts that end near the best objective yet label items differently.

        A start within ``within`` log-likelihood units of the best whose labels differ
        from the kept ones on more than ``share`` of the items says the optimum is not
        well determined: raise ``n_starts`` and compare.

        Returns
        -------
        pandas.DataFrame
            ``start``, ``objective``, ``gap`` (to the best) and ``disagreement``.

        Examples
        --------
        >>> from goldnoise import Ratings, datasets
        >>> from noise_models import LatentClassModel
        >>> frame = datasets.load_dawid_skene1979()
        >>> r = Ratings.from_long(frame, item="patient", rater="observer", label="rating",
        ...                       replicates="separate")
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     fit = LatentClassModel("confusion", rng=0).fit(r)
        >>> [w.category.__name__ for w in caught]
        ['UnstableStartsWarning']
        >>> fit.unstable_starts().round(3).head(2)
           start  objective    gap  disagreement
        0      1   -218.571  0.486         0.044
        1      5   -218.571  0.486         0.044
        >>> kept = fit.start_objectives.argmax()
        >>> int((fit.start_labels[1] != fit.start_labels[kept]).sum())  # of 45 patients
        2
        """
        obj = np.asarray(self.start_objectives, dtype=np.float64)
        dis = np.asarray(self.start_disagreement, dtype=np.float64)
        if obj.size == 0 or dis.size != obj.size:
            return pd.DataFrame(columns=["start", "objective", "gap", "disagreement"])
        gap = obj.max() - obj
        keep = np.flatnonzero((gap <= within) & (dis > share))
        return pd.DataFrame({"start": keep, "objective": obj[keep], "gap": gap[keep],
                             "disagreement": dis[keep]})

    @property
    def labels(self) -> pd.Series:
        """The fitted label of each item, in the original category names."""
        return pd.Series(self.ratings.categories[self.label_codes], index=self.ratings.items,
                         name="label")

    @property
    def n_ratings(self) -> np.ndarray:
        """Ratings per item."""
        return self.ratings.ratings_per_item

    @property
    def _objective(self) -> float:
        return float(self.loglik[-1])

    def annotator_frame(self, gold: Any = None, *,
                        confidence_level: float = 0.95) -> pd.DataFrame:
        """One row per annotator with the fitted annotator parameters.

        Parameters
        ----------
        gold : pandas.Series or dict, optional
            True labels by item id (all items or some). Adds each annotator's
            accuracy on the gold items they rated, with its exact
            (Clopper–Pearson) interval.
        confidence_level : float, default 0.95
            Level of those intervals.

        Returns
        -------
        pandas.DataFrame
            Indexed by annotator (rating column). Columns: ``n_ratings``;
            ``error_rate`` (one-coin); ``competence`` and ``spam_<c>`` (spam);
            ``accuracy_<c>`` = ``confusion[j, c, c]`` (confusion); ``q_<c>``
            (hard component); with ``gold``: ``n_gold`` (gold items the
            annotator rated), ``gold_accuracy``, ``gold_accuracy_low`` and
            ``gold_accuracy_high`` (NaN without gold items).

        Examples
        --------
        >>> from goldnoise import LatentClassModel, simulate_annotations
        >>> sim = simulate_annotations(400, 4, model="M2", n_categories=2, hard_share=0.0,
        ...                            error_rates=[0.1, 0.2, 0.3, 0.4], rng=1)
        >>> fit = LatentClassModel("one-coin", rng=0).fit(sim.ratings)
        >>> table = fit.annotator_frame(gold=sim.true_labels)
        >>> table[["n_gold", "gold_accuracy", "gold_accuracy_low", "gold_accuracy_high"]].round(2)
               n_gold  gold_accuracy  gold_accuracy_low  gold_accuracy_high
        rater
        0         400           0.88               0.85                0.91
        1         400           0.77               0.72                0.81
        2         400           0.71               0.66                0.75
        3         400           0.64               0.59                0.68
        """
        check_params(LatentClassFit.annotator_frame, locals())
        codes = self.ratings.codes
        cols: dict[str, Any] = {"n_ratings": (codes >= 0).sum(axis=0)}
        cats = [str(c) for c in self.ratings.categories]
        if self.error_rate is not None:
            cols["error_rate"] = self.error_rate
        if self.competence is not None:
            cols["competence"] = self.competence
            for i, c in enumerate(cats):
                cols[f"spam_{c}"] = self.spam_distribution[:, i]
        if self.confusion is not None:
            for i, c in enumerate(cats):
                cols[f"accuracy_{c}"] = self.confusion[:, i, i]
        if self.q is not None:
            for i, c in enumerate(cats):
                cols[f"q_{c}"] = self.q[:, i]
        if gold is not None:
            cols.update(_gold_accuracy(self.ratings, gold, float(confidence_level)))
        return pd.DataFrame(cols, index=self.ratings.raters)

    annotator_frame = validate_params(confidence_level=ConfidenceLevel())(annotator_frame)

    @validate_params(alpha=Alpha())
    def noise_bound(self, alpha: float = 0.95):
        """The γ bound of the agreed items under this fit (SPEC §2.4).

        Parameters
        ----------
        alpha : float, default 0.95
            The paper's confidence α in (0, 1).

        Returns
        -------
        FitNoiseBoundResult
            ``gamma``, ``hidden_hard`` (the bound on hard items among the
            agreed ones), the counts and the method used.

        Raises
        ------
        ValueError
            If the model has no hard component or no item is unanimous.

        Notes
        -----
        Category-blind, as the paper's bound: item ``i`` agrees with
        probability ``p_i = Σ_c Π_j q[j, c]`` (its own annotators, the fit's
        ``q``) if hard, and ``e_i`` if easy (1 for perfect annotators). With π
        uniform on (0, 1) the number of hard agreed items is a mixture over
        π's posterior of sums of independent Bernoullis; γ is its α-quantile
        over the number agreed. For M1 with every item rated by the same
        annotators this is exactly :func:`noise_bound` ``(n, d, p)`` with
        ``p = Σ_c Π_j q[j, c]``. Details in
        :func:`fit_noise_bound`.

        Examples
        --------
        >>> import numpy as np
        >>> from noise_models import EasyHardModel, noise_bound
        >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 50)
        >>> fit = EasyHardModel(rng=0).fit(x)
        >>> res = fit.noise_bound()
        >>> p = float(np.sum(np.prod(fit.q, axis=0)))
        >>> res.hidden_hard == noise_bound(300, 100, p).hidden_hard
        True
        """
        check_params(LatentClassFit.noise_bound, locals())
        return fit_noise_bound(self, alpha=alpha)

    def __repr__(self) -> str:
        phi = ", ".join(f"{c}: {v:.3f}" for c, v in zip(self.ratings.categories, self.phi, strict=True))
        pi = "" if self.pi is None else f", pi={self.pi:.4f}"
        state = "converged" if self.converged else "NOT converged"
        return (f"LatentClassFit({self.model.name}: {self.ratings.n_items} items, "
                f"{self.ratings.n_raters} raters; phi={{{phi}}}{pi}; log-likelihood "
                f"{self.log_likelihood:.3f}; {self.n_iter} iterations, {state})")




def _normal_pdf(z: np.ndarray) -> np.ndarray:
    # The standard normal density, without importing scipy.stats at import time.
    return np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


# ------------------------------------------------------------ γ of a fit
@dataclass(frozen=True, repr=False)
class FitNoiseBoundResult(Result):
    """The γ bound of the agreed items under a fitted latent-class model.

    Attributes
    ----------
    gamma : float
        With confidence :attr:`alpha`, at most this share of the agreed items
        are hard: ``hidden_hard / agreed``.
    hidden_hard : int
        The bound on hard items among the agreed ones (``t0 − d`` of SPEC §2.3).
    agreed : int
        Unanimous items with two or more ratings.
    n : int
        Items with two or more ratings.
    d : int
        Items with two or more ratings that are not unanimous.
    p : float
        Chance agreement of a hard item: the common ``p`` when every item has
        the same value, else the mean ``p_i`` over the agreed items.
    alpha : float
        The paper's confidence α of the bound.
    method : str
        ``"closed form"`` (SPEC §2.3, the fit's p) or ``"mixture over π"``
        with the Poisson-binomial computation used (``exact`` or
        ``refined normal``).
    model : str
        Name of the fitted model.
    notes : tuple of str

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    gamma: float
    hidden_hard: int
    agreed: int
    n: int
    d: int
    p: float
    alpha: float
    method: str
    model: str
    notes: tuple[str, ...] = field(default=())

    _headline = "gamma"
    _keys = ("gamma", "hidden_hard", "agreed", "n", "d", "p", "alpha", "method", "model",
             "notes")

    def __repr__(self) -> str:
        return (f"FitNoiseBoundResult(gamma={self.gamma:.4f}: at most {self.hidden_hard} of the "
                f"{self.agreed} agreed items are hard, with confidence alpha={self.alpha:g}; "
                f"{self.model}, {self.method})")


def _easy_emission(fit: LatentClassFit) -> np.ndarray | None:
    """``easy[j, c, x] = P_j(x | class c)`` of the fit, or None for perfect annotators."""
    k, m = fit.ratings.n_raters, fit.ratings.n_categories
    eye = np.eye(m)
    if fit.model.annotators == "perfect":
        return None
    if fit.model.annotators == "one-coin":
        e = fit.error_rate[:, None, None]
        return (1.0 - e) * eye + e / (m - 1) * (1.0 - eye)
    if fit.model.annotators == "confusion":
        return np.asarray(fit.confusion)
    th = fit.competence[:, None, None]
    return th * eye + (1.0 - th) * fit.spam_distribution[:, None, :] * np.ones((k, m, m))


def fit_noise_bound(fit: LatentClassFit, *, alpha: float = 0.95) -> FitNoiseBoundResult:
    """γ of the agreed items under a fitted model with a hard component (SPEC §2.4).

    Parameters
    ----------
    fit : LatentClassFit
        A fit of a model with a hard component (``hard`` not None).
    alpha : float, default 0.95
        The paper's confidence α in (0, 1).

    Returns
    -------
    FitNoiseBoundResult

    Raises
    ------
    ValueError
        If the model has no hard component, or no item is unanimous.

    Notes
    -----
    The bound is category-blind, as the paper's: what counts is whether an
    item's annotators agreed. Item ``i`` (with ``r_i ≥ 2`` ratings) agrees
    with probability ``p_i = Σ_c Π_j q[j, c]`` if hard (its own annotators
    ``j``, the fit's ``q``) and ``e_i`` if easy (1 for perfect annotators;
    ``Σ_c φ_c Σ_x Π_j P_j(x | c)`` otherwise). With π uniform on (0, 1), π's
    posterior is ``f(π) ∝ Π_agreed (π p_i + (1−π) e_i) Π_disagreed
    (π (1−p_i) + (1−π)(1−e_i))`` (log-concave), and given π each agreed
    item is hard independently with ``ρ_i = π p_i / (π p_i + (1−π) e_i)``.
    The number of hard agreed items is therefore a mixture over ``f`` of
    Poisson-binomial laws; ``hidden_hard`` is the smallest ``j`` with
    ``P(H_agreed ≤ j) > α`` and ``γ = hidden_hard / agreed``.

    Computation: ``f`` is integrated by 128-point Gauss–Legendre over the
    interval where ``log f`` is within 40 of its maximum (found by bisection,
    ``f`` being log-concave). The Poisson-binomial CDF is exact — a binomial
    when all ``ρ_i`` are equal, else a dynamic programme over the agreed
    items, O(nodes · agreed · support) — and, beyond a budget of 4e8 steps,
    the refined normal approximation (skewness-corrected; Volkova 1996), whose
    CDF error is O(1/agreed).

    Perfect annotators with every ``p_i`` equal (complete data, the same
    annotators on every item) is the paper's model exactly: the mixture over
    π ~ U(0, 1) of independent hard indicators is the uniform prior on the
    number of hard items of SPEC §2.3, conditioned on ``d``. That case is
    dispatched to :func:`noise_bound` ``(n, d, p)`` and so equals it exactly.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503.

    Volkova, A. Yu. (1996). A refinement of the central limit theorem for
    sums of independent random indicators. *Theory Probab. Appl.* 40(4),
    791–794. doi:10.1137/1140093
    """
    alpha = check_alpha(alpha)
    if not isinstance(fit, LatentClassFit):
        raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
    if fit.q is None:
        raise ValueError(
            f"the noise bound needs a model with a hard component; {fit.model.name} has "
            "none (hard=None). Fit EasyHardModel() or a LatentClassModel with hard= set."
        )
    codes = fit.ratings.codes
    easy = _easy_emission(fit)
    phi = np.asarray(fit.phi if fit.class_weights is None else fit.class_weights)
    r, agreed, p, e = K.item_agreement(codes, np.asarray(fit.q), phi, easy)
    if fit.level_weights is not None:
        # hard="difficulty": a hard item agrees with the probability that its annotators,
        # knowing the class with θ_j·a, all report the same label, averaged over the
        # levels a (their weights ω) and the classes (φ)
        m = fit.ratings.n_categories
        eye = np.eye(m)
        p = np.zeros(len(r))
        for a_lev, w in zip(K.LEVELS, fit.level_weights, strict=True):
            ta = np.asarray(fit.competence)[:, None, None] * a_lev
            level = ta * eye + (1.0 - ta) * np.asarray(fit.spam_distribution)[:, None, :]
            p += w * K.item_agreement(codes, np.asarray(fit.q), phi, level)[3]
    eligible = r >= 2
    n = int(eligible.sum())
    n_agreed = int(agreed.sum())
    d = n - n_agreed
    if n_agreed == 0:
        raise ValueError(
            "no item is unanimous (with two or more ratings): there is no agreed subset "
            "whose noise could be bounded."
        )
    notes = []
    if n < len(r):
        notes.append(f"{len(r) - n} item(s) with fewer than two ratings left out")
    p_a, e_a = p[agreed], e[agreed]
    dis = eligible & ~agreed
    p_d, e_d = p[dis], e[dis]
    if easy is None and np.all(p[eligible] == p_a[0]):
        res = noise_bound(n, d, float(p_a[0]), alpha=alpha)
        return FitNoiseBoundResult(
            gamma=res.gamma, hidden_hard=res.hidden_hard, agreed=n_agreed, n=n, d=d,
            p=float(p_a[0]), alpha=alpha, method="closed form", model=fit.model.name,
            notes=(*notes, "every item has the same p: SPEC §2.3 with the fit's p"),
        )
    hidden, method = _mixture_bound(p_a, e_a, p_d, e_d, alpha)
    return FitNoiseBoundResult(
        gamma=hidden / n_agreed, hidden_hard=hidden, agreed=n_agreed, n=n, d=d,
        p=float(p_a.mean()), alpha=alpha, method=f"mixture over π, {method}",
        model=fit.model.name, notes=tuple(notes),
    )


def _grouped(*cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if cols[0].size == 0:
        return np.empty((0, len(cols))), np.empty(0, dtype=np.int64)
    stacked = np.column_stack(cols)
    values, counts = np.unique(stacked, axis=0, return_counts=True)
    return values, counts


def _posterior_nodes(p_a, e_a, p_d, e_d) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and normalised weights for π's posterior."""
    ga, ca = _grouped(p_a, e_a)
    gd, cd = _grouped(p_d, e_d)

    def logf(x: float) -> float:
        x = min(max(x, _TINY), 1.0)
        with np.errstate(divide="ignore"):
            s = np.dot(ca, np.log(x * ga[:, 0] + (1.0 - x) * ga[:, 1]))
            if cd.size:
                s += np.dot(cd, np.log(x * (1.0 - gd[:, 0]) + (1.0 - x) * (1.0 - gd[:, 1])))
        return float(s)

    opt = optimize.minimize_scalar(lambda x: -logf(x), bounds=(0.0, 1.0), method="bounded",
                                   options={"xatol": 1e-12})
    mode = float(opt.x)
    # Bounded search may stop a hair off an end where the maximum sits on it.
    for end in (0.0, 1.0):
        if logf(end) >= logf(mode):
            mode = end
    top = logf(mode)

    def edge(a: float, b: float) -> float:
        # f is log-concave: log f - (top - CUT) changes sign once between
        # the mode and an end.
        if logf(b) >= top - _CUT:
            return b
        return optimize.brentq(lambda x: logf(x) - (top - _CUT), a, max(b, _TINY),
                               xtol=1e-15)

    lo = edge(mode, 0.0) if mode > 0.0 else 0.0
    hi = edge(mode, 1.0) if mode < 1.0 else 1.0
    x, w = np.polynomial.legendre.leggauss(_NODES)
    nodes = lo + (hi - lo) * (x + 1.0) / 2.0
    logw = np.log(w) + np.array([logf(t) for t in nodes])
    weights = np.exp(logw - logw.max())
    return nodes, weights / weights.sum()


def _mixture_bound(p_a, e_a, p_d, e_d, alpha: float) -> tuple[int, str]:
    nodes, weights = _posterior_nodes(p_a, e_a, p_d, e_d)
    groups, counts = _grouped(p_a, e_a)
    n_agreed = int(counts.sum())
    pi = nodes[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = pi * groups[:, 0] / (pi * groups[:, 0] + (1.0 - pi) * groups[:, 1])
    rho = np.nan_to_num(rho, nan=0.0)
    mean = rho @ counts
    var = (rho * (1.0 - rho)) @ counts
    support = int(min(n_agreed, math.ceil(mean.max() + 12.0 * math.sqrt(var.max()) + 10)))

    if len(counts) == 1:
        def cdf(j: np.ndarray) -> np.ndarray:
            return special.bdtr(j[:, None].astype(np.float64), n_agreed,
                                rho[:, 0][None, :]) @ weights
        method = "exact (binomial)"
    elif _NODES * n_agreed * (support + 1) <= _DP_BUDGET:
        table = K.pb_cdf(np.ascontiguousarray(rho), counts.astype(np.int64), support + 1)
        mix = weights @ table
        if mix[support] <= alpha and support < n_agreed:  # never seen: widen to all
            support = n_agreed
            mix = weights @ K.pb_cdf(np.ascontiguousarray(rho), counts.astype(np.int64),
                                    support + 1)

        def cdf(j: np.ndarray) -> np.ndarray:
            return mix[np.minimum(j, support)]
        method = "exact (Poisson-binomial DP)"
    else:
        sd = np.sqrt(var)
        skew = ((rho * (1.0 - rho) * (1.0 - 2.0 * rho)) @ counts) / np.maximum(sd, 1e-300) ** 3

        def cdf(j: np.ndarray) -> np.ndarray:
            z = (j[:, None] + 0.5 - mean[None, :]) / np.maximum(sd, 1e-300)[None, :]
            g = special.ndtr(z) + skew[None, :] * (1.0 - z * z) * _normal_pdf(z) / 6.0
            return np.clip(g, 0.0, 1.0) @ weights
        method = "refined normal approximation"
    # Smallest j in 0..n_agreed with P(H_agreed <= j) > alpha (P(<= n_agreed) = 1).
    lo, hi = -1, n_agreed
    if support < n_agreed and cdf(np.array([support]))[0] > alpha:
        hi = support
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cdf(np.array([mid]))[0] > alpha:
            hi = mid
        else:
            lo = mid
    return hi, method




def _gold_accuracy(r: Ratings, gold: Any, level: float) -> dict[str, np.ndarray]:
    """Each annotator's accuracy on the gold items they rated, with its exact interval.

    The Clopper–Pearson interval as its beta quantiles, all annotators at once (what
    ``scipy.stats.binomtest(...).proportion_ci(method="exact")`` finds by root-finding,
    one annotator at a time).
    """
    from _goldnoise_lib.binomial import binomial_interval
    from _goldnoise_lib.labels import labels_by_item

    pos, true = labels_by_item(gold, r.items, r.categories, "gold")
    codes = r.codes[pos]
    rated = codes >= 0
    n = rated.sum(axis=0)
    right = (codes == true[:, None]).sum(axis=0)
    acc = np.full(len(n), np.nan)
    low = np.full(len(n), np.nan)
    high = np.full(len(n), np.nan)
    some = n > 0
    k, m = right[some].astype(float), n[some].astype(float)
    acc[some] = k / m
    low[some], high[some] = binomial_interval(k, m, level, method="exact")
    return {"n_gold": n, "gold_accuracy": acc, "gold_accuracy_low": low,
            "gold_accuracy_high": high}
