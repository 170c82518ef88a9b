"""How wrong are the agreed labels? The γ of a fit, the bracket, a verified sample.

Three answers to one question (SPEC §2.4, "the noise bracket"):

* :func:`fit_noise_bound` (as :meth:`LatentClassFit.noise_bound`): the γ
  bound generalised to a fitted model with a hard component and to items with
  their own annotators;
* :func:`agreed_error_bracket`: a labels-only model's expected error on the
  unanimous items (optimistic) beside γ (pessimistic);
* :func:`verified_sample_bound` and :func:`sample_size_needed`: what a
  verified random sample of the agreed items proves, exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numba import njit
from scipy import optimize, special, stats

from agreement import as_ratings
from noise_models import _kernels_em as K
from noise_models._bound import noise_bound
from noise_models._counts_iv import check_alpha, check_count, check_probability
from noise_models._latent import EasyHardModel, LatentClassFit, LatentClassModel

__all__ = [
    "ErrorBracketResult",
    "FitNoiseBoundResult",
    "VerifiedSampleBoundResult",
    "agreed_error_bracket",
    "fit_noise_bound",
    "sample_size_needed",
    "verified_sample_bound",
]

# Gauss–Legendre nodes over the region where π's posterior is above e^-_CUT
# of its maximum (e^-40 ≈ 4e-18 of the mass is left out).
_NODES = 128
_CUT = 40.0
# π's posterior is evaluated no closer to 0 than this (log π is -inf at 0).
_TINY = 1e-300
# Exact Poisson-binomial DP while nodes × agreed items × support stays below this.
_DP_BUDGET = 4e8


# ------------------------------------------------------------ γ of a fit
@dataclass(frozen=True, repr=False)
class FitNoiseBoundResult:
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

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        return {"gamma": self.gamma, "hidden_hard": self.hidden_hard, "agreed": self.agreed,
                "n": self.n, "d": self.d, "p": self.p, "alpha": self.alpha,
                "method": self.method, "model": self.model, "notes": "; ".join(self.notes)}

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __float__(self) -> float:
        return float(self.gamma)

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
    r, agreed, p, e = K.item_agreement(codes, np.asarray(fit.q), np.asarray(fit.phi), easy)
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


@njit(cache=True, error_model="numpy")
def _pb_cdf(rho, counts, support):
    # Poisson-binomial CDF at 0..support-1 for each node: DP over the
    # agreed items (grouped: counts[g] items with probability rho[node, g]).
    # Mass beyond support-1 is dropped, so entries are exact below it.
    n_nodes, n_groups = rho.shape
    out = np.empty((n_nodes, support))
    pmf = np.empty(support)
    for t in range(n_nodes):
        pmf[:] = 0.0
        pmf[0] = 1.0
        top = 0
        for g in range(n_groups):
            r = rho[t, g]
            for _ in range(counts[g]):
                if top < support - 1:
                    top += 1
                for h in range(top, 0, -1):
                    pmf[h] = pmf[h] * (1.0 - r) + pmf[h - 1] * r
                pmf[0] *= 1.0 - r
        acc = 0.0
        for h in range(support):
            acc += pmf[h]
            out[t, h] = acc
    return out


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
        table = _pb_cdf(np.ascontiguousarray(rho), counts.astype(np.int64), support + 1)
        mix = weights @ table
        if mix[support] <= alpha and support < n_agreed:  # never seen: widen to all
            support = n_agreed
            mix = weights @ _pb_cdf(np.ascontiguousarray(rho), counts.astype(np.int64),
                                    support + 1)

        def cdf(j: np.ndarray) -> np.ndarray:
            return mix[np.minimum(j, support)]
        method = "exact (Poisson-binomial DP)"
    else:
        sd = np.sqrt(var)
        skew = ((rho * (1.0 - rho) * (1.0 - 2.0 * rho)) @ counts) / np.maximum(sd, 1e-300) ** 3

        def cdf(j: np.ndarray) -> np.ndarray:
            z = (j[:, None] + 0.5 - mean[None, :]) / np.maximum(sd, 1e-300)[None, :]
            g = stats.norm.cdf(z) + skew[None, :] * (1.0 - z * z) * stats.norm.pdf(z) / 6.0
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


# -------------------------------------------------------------- the bracket
@dataclass(frozen=True, repr=False)
class ErrorBracketResult:
    """How wrong the unanimously agreed labels may be: optimistic and pessimistic.

    Attributes
    ----------
    n_items : int
        Items in the data.
    n_agreed : int
        Unanimous items with two or more ratings (the candidate gold standard).
    optimistic : float
        Share of the agreed labels a labels-only model expects to be wrong.
    optimistic_errors : float
        The expected number of wrong agreed labels under that model.
    pessimistic : float
        γ: with confidence :attr:`alpha`, at most this share of the agreed
        items are hard (coin flips whose label means nothing).
    pessimistic_errors : int
        The γ bound as a count.
    alpha : float
        The paper's confidence α of γ.
    optimistic_model, pessimistic_model : str
        The models behind the two ends.
    explanation : str
        What each end assumes, in plain words.
    """

    n_items: int
    n_agreed: int
    optimistic: float
    optimistic_errors: float
    pessimistic: float
    pessimistic_errors: int
    alpha: float
    optimistic_model: str
    pessimistic_model: str
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        return (f"ErrorBracketResult({self.n_agreed} agreed of {self.n_items} items: "
                f"{self.optimistic:.2%} ({self.optimistic_model}) to {self.pessimistic:.2%} "
                f"(γ at alpha={self.alpha:g}) of the agreed labels may be wrong)")


def agreed_error_bracket(ratings: Any, *, alpha: float = 0.95,
                         model: LatentClassModel | None = None) -> ErrorBracketResult:
    """Bracket the share of wrong labels among the unanimously agreed items.

    Parameters
    ----------
    ratings : Ratings or array_like or pandas.DataFrame
        Items × annotators labels (annotator identity needed).
    alpha : float, default 0.95
        The paper's confidence α of the pessimistic end (γ).
    model : LatentClassModel, optional
        The labels-only model of the optimistic end. Default: the spam model
        (MACE's annotators, ``LatentClassModel("spam", rng=0)``). A model
        with a hard component counts an agreed item's chance of being hard
        as a chance that its label is wrong.

    Returns
    -------
    ErrorBracketResult

    Raises
    ------
    ValueError
        If no item is unanimous with two or more ratings, or the data cannot
        be fitted (see :meth:`LatentClassModel.fit`).

    Notes
    -----
    *Optimistic*: the model's expected number of wrong agreed labels,
    ``Σ_agreed (1 − P(easy and class = agreed label | labels))``. It assumes
    that annotators err independently given the true class, so it cannot see
    errors they share (a misleading item fools everyone alike): on Snow et
    al.'s RTE data with five workers per item, 1.9% of the unanimous labels
    are wrong against the gold standard while such models expect 0.6–0.8%.

    *Pessimistic*: γ of the paper's easy/hard model (:class:`EasyHardModel`,
    :meth:`LatentClassFit.noise_bound`): every unanimous item could be a hard
    item whose coin flips happened to agree, and with confidence α at most
    this share are. It assumes nothing about annotator quality, and so
    usually overstates the error.

    The default optimistic model is the spam model rather than Dawid–Skene:
    with ``m`` parameters per annotator instead of ``m(m − 1)`` it stays
    stable when crowd workers label few items each, and where annotators are
    near-random it is far better (MACE's example: 0.80 accuracy against
    Dawid–Skene's 0.42), while matching Dawid–Skene on RTE and temp.

    A verified random sample of the agreed items settles where in the bracket
    the truth lies: see :func:`verified_sample_bound`.

    Examples
    --------
    >>> from simulation import simulate_annotations
    >>> from noise_models import agreed_error_bracket
    >>> sim = simulate_annotations(2000, 5, model="M2", error_rates=0.1, hard_share=0.2,
    ...                            rng=1)
    >>> b = agreed_error_bracket(sim.ratings)
    >>> b.optimistic < b.pessimistic
    True
    """
    alpha = check_alpha(alpha)
    if model is None:
        model = LatentClassModel("spam", rng=0)
    elif not isinstance(model, LatentClassModel):
        raise TypeError(f"`model` must be a LatentClassModel or None; got {type(model).__name__}.")
    r = as_ratings(ratings)
    r.require_raters("`agreed_error_bracket`")
    counts = r.counts
    n_rated = counts.sum(axis=1)
    agreed = (n_rated >= 2) & (counts.max(axis=1) == n_rated)
    n_agreed = int(agreed.sum())
    if n_agreed == 0:
        raise ValueError(
            "no item is unanimous with two or more ratings: there are no agreed labels "
            "to bracket."
        )
    opt_fit = model.fit(r)
    label = np.argmax(counts[agreed], axis=1)
    right = opt_fit.class_posterior[np.flatnonzero(agreed), label]
    expected = float(np.sum(1.0 - right))
    hard_fit = EasyHardModel(rng=0).fit(r)
    bound = hard_fit.noise_bound(alpha=alpha)
    text = (
        f"Of {r.n_items} items, {n_agreed} were labelled unanimously (by two or more "
        f"annotators). Optimistic: {model.name} expects {expected:.1f} of their labels "
        f"({expected / n_agreed:.2%}) to be wrong; it assumes annotators err independently "
        "given the true class, so errors they share (items that mislead everyone) are "
        f"invisible to it. Pessimistic: with confidence {alpha:g}, at most "
        f"{bound.hidden_hard} ({bound.gamma:.2%}) of them are hard items whose coin flips "
        "happened to agree (the easy/hard model's γ); it assumes nothing about annotator "
        "quality and usually overstates the error. A verified random sample of the "
        "agreed items settles it (verified_sample_bound)."
    )
    return ErrorBracketResult(
        n_items=r.n_items, n_agreed=n_agreed, optimistic=expected / n_agreed,
        optimistic_errors=expected, pessimistic=bound.gamma,
        pessimistic_errors=bound.hidden_hard, alpha=alpha, optimistic_model=model.name,
        pessimistic_model=f"{hard_fit.model.name}, {bound.method}", explanation=text,
    )


# ---------------------------------------------------------- verified sample
@dataclass(frozen=True, repr=False)
class VerifiedSampleBoundResult:
    """What a verified random sample proves about the agreed subset.

    Attributes
    ----------
    n_agreed : int
        Size of the agreed subset (the population sampled).
    sample_size : int
        Items verified (drawn at random without replacement).
    errors : int
        Wrong labels found in the sample.
    alpha : float
        Confidence of the bound.
    max_errors : int
        The largest number of wrong labels in the agreed subset that the
        sample does not reject at level α (exact, hypergeometric).
    max_share : float
        ``max_errors / n_agreed``.
    observed_share : float
        ``errors / sample_size``.
    """

    n_agreed: int
    sample_size: int
    errors: int
    alpha: float
    max_errors: int
    max_share: float
    observed_share: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        return (f"VerifiedSampleBoundResult({self.errors} wrong of {self.sample_size} verified: "
                f"at most {self.max_errors} of the {self.n_agreed} agreed labels "
                f"({self.max_share:.2%}) are wrong, with confidence {self.alpha:g})")


def _hyper_cdf(e: int, n_pop: int, bad: int, s: int) -> float:
    # P(X <= e), X ~ Hypergeom(population n_pop, bad wrong labels, s draws).
    return float(stats.hypergeom.cdf(e, n_pop, bad, s))


def verified_sample_bound(n_agreed: int, sample_size: int, errors: int, *,
                          alpha: float = 0.95) -> VerifiedSampleBoundResult:
    """Exact upper bound on the wrong labels of the agreed subset from a verified sample.

    Parameters
    ----------
    n_agreed : int
        Items in the agreed subset (≥ 1).
    sample_size : int
        Items drawn from it uniformly at random without replacement and
        checked (1 … ``n_agreed``).
    errors : int
        Wrong labels found among them (0 … ``sample_size``).
    alpha : float, default 0.95
        Confidence in (0, 1).

    Returns
    -------
    VerifiedSampleBoundResult
        ``max_errors`` and ``max_share``.

    Raises
    ------
    TypeError
        If a count is not a whole number.
    ValueError
        If a count is out of range or ``alpha`` is outside (0, 1).

    Notes
    -----
    With ``K`` wrong labels among the ``N`` agreed items, the errors of a
    sample of ``s`` are hypergeometric. ``K`` is rejected at level α when the
    sample shows so few errors that ``P_K(X ≤ errors) ≤ 1 − α``; as that
    probability falls with ``K``, the ``K`` not rejected form an interval
    from ``errors`` up to ``max_errors``, found by bisection. Exact for the
    finite population (no binomial or normal approximation); when the whole
    subset is verified, ``max_errors = errors``.

    Examples
    --------
    500 of 10,000 agreed labels checked, 4 wrong:

    >>> from noise_models import verified_sample_bound
    >>> res = verified_sample_bound(10_000, 500, 4)
    >>> res.max_errors, round(res.max_share, 4)
    (179, 0.0179)
    """
    n_pop = check_count(n_agreed, "n_agreed", minimum=1)
    s = check_count(sample_size, "sample_size", minimum=1)
    e = check_count(errors, "errors")
    alpha = check_alpha(alpha)
    if s > n_pop:
        raise ValueError(f"`sample_size` ({s}) cannot exceed `n_agreed` ({n_pop}).")
    if e > s:
        raise ValueError(f"`errors` ({e}) cannot exceed `sample_size` ({s}).")
    level = 1.0 - alpha
    # Feasible K: at least e wrong, and at least s - e right ones.
    lo, hi = e, n_pop - (s - e)
    if _hyper_cdf(e, n_pop, hi, s) > level:
        lo = hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _hyper_cdf(e, n_pop, mid, s) > level:
            lo = mid
        else:
            hi = mid
    return VerifiedSampleBoundResult(n_agreed=n_pop, sample_size=s, errors=e, alpha=alpha,
                                     max_errors=lo, max_share=lo / n_pop, observed_share=e / s)


def sample_size_needed(n_agreed: int, *, target_share: float, alpha: float = 0.95) -> int:
    """Smallest verified sample that can show the agreed subset is at most ``target_share`` wrong.

    Parameters
    ----------
    n_agreed : int
        Items in the agreed subset (≥ 1).
    target_share : float
        The claim to support: at most this share of the agreed labels are
        wrong, in [0, 1).
    alpha : float, default 0.95
        Confidence in (0, 1).

    Returns
    -------
    int
        The smallest ``s`` such that a random sample of ``s`` agreed items
        with no wrong label gives ``verified_sample_bound(n_agreed, s, 0,
        alpha=alpha).max_share <= target_share``.

    Raises
    ------
    TypeError, ValueError
        For a count that is not a whole number ≥ 1, or a share or α out of range.

    Notes
    -----
    With no error found, ``K`` wrong labels are rejected when
    ``P_K(X = 0) = C(N − K, s) / C(N, s) ≤ 1 − α``. The claim needs the
    first ``K`` above it, ``K* = ⌊target · N⌋ + 1``, rejected; that
    probability falls with ``s``, so bisection finds the smallest ``s``. If
    errors turn up, the sample must be larger: recompute with
    :func:`verified_sample_bound`.

    Examples
    --------
    >>> from noise_models import sample_size_needed
    >>> sample_size_needed(10_000, target_share=0.02)
    147
    """
    n_pop = check_count(n_agreed, "n_agreed", minimum=1)
    target = check_probability(target_share, "target_share")
    alpha = check_alpha(alpha)
    if target >= 1.0:
        raise ValueError("`target_share` must be below 1 (a share of wrong labels to rule out).")
    k_star = math.floor(target * n_pop) + 1
    level = 1.0 - alpha

    def p_zero(s: int) -> float:
        return float(stats.hypergeom.pmf(0, n_pop, k_star, s))

    lo, hi = 0, n_pop  # p_zero(n_pop) = 0 <= level
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if p_zero(mid) <= level:
            hi = mid
        else:
            lo = mid
    return hi
