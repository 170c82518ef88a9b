"""γ of a fitted latent-class model: the bound on hard items among the agreed ones
(:meth:`LatentClassFit.noise_bound`, SPEC §2.4), a mixture over π's posterior of sums of
independent Bernoullis."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import check_alpha
from noise_models.easy_hard import noise_bound

optimize = lazy_module("scipy.optimize")
special = lazy_module("scipy.special")
K = lazy_module("noise_models.latent_class._kernels")
checks = lazy_module("noise_models.latent_class._kernels_checks")

__all__ = ["FitNoiseBoundResult", "fit_noise_bound"]

# Gauss–Legendre nodes over the region where π's posterior is above e^-_CUT
# of its maximum (e^-40 ≈ 4e-18 of the mass is left out).
_NODES = 128
_CUT = 40.0
# π's posterior is evaluated no closer to 0 than this (log π is -inf at 0).
_TINY = 1e-300
# Exact Poisson-binomial DP while nodes × agreed items × support stays below this.
_DP_BUDGET = 4e8


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


def _agreement_chances(fit: Any, easy: np.ndarray | None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per item: its ratings, whether they are unanimous, and the probabilities that its
    annotators all agree if it is hard and if it is easy (``easy``: the annotators' easy
    emission, None for the perfect one)."""
    codes = fit.ratings.codes
    phi = np.asarray(fit.phi if fit.class_weights is None else fit.class_weights)
    r, agreed, p, e = checks.item_agreement(codes, np.asarray(fit.q), phi, easy)
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
            p += w * checks.item_agreement(codes, np.asarray(fit.q), phi, level)[3]
    return r, agreed, p, e


def _easy_emission(fit: Any) -> np.ndarray | None:
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


def fit_noise_bound(fit: Any, *, alpha: float = 0.95) -> FitNoiseBoundResult:
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
    # a LatentClassFit (its module calls this one: no import back)
    if not (hasattr(fit, "ratings") and callable(getattr(fit, "annotator_frame", None))):
        raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
    if fit.q is None:
        raise ValueError(
            f"the noise bound needs a model with a hard component; {fit.model.name} has "
            "none (hard=None). Fit EasyHardModel() or a LatentClassModel with hard= set."
        )
    easy = _easy_emission(fit)
    r, agreed, p, e = _agreement_chances(fit, easy)
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
        table = checks.pb_cdf(np.ascontiguousarray(rho), counts.astype(np.int64), support + 1)
        mix = weights @ table
        if mix[support] <= alpha and support < n_agreed:  # never seen: widen to all
            support = n_agreed
            mix = weights @ checks.pb_cdf(np.ascontiguousarray(rho), counts.astype(np.int64),
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
