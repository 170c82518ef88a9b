"""The noise bound γ of the agreed subset and its inverse (SPEC §2.3).

``t0`` is the smallest t with ``P(H > t | d) < 1 − α``; with confidence α
the ``n − d`` agreed items hold at most ``t0 − d`` hard items, and
``γ = (t0 − d)/(n − d)`` (Beigman Klebanov & Beigman 2009, §2, after eq. (1)).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    Count,
    Probability,
    check_alpha,
    check_count,
    check_params,
    check_probability,
    validate_params,
)
from agreement import ChunkedRatings, Ratings, as_ratings
from noise_models.easy_hard._chance import ChanceAgreementResult, _from_ratings
from noise_models.easy_hard._partial import chance_over_chunks
from noise_models.easy_hard._posterior import (
    HardCountPosterior,
    _backend_for,
    _first_true,
    _Prior,
    check_prior,
    per_item_posterior,
)

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")

__all__ = ["NoiseBoundResult", "max_disagreements", "noise_bound"]

_UNIFORM = _Prior(0)
# Below 1 - _FREE of its untruncated mass the truncation at n - d starts to shape the bound.
_FREE = 1e-9


@dataclass(frozen=True, repr=False)
class NoiseBoundResult(Result):
    """The γ noise bound of the agreed subset.

    Attributes
    ----------
    gamma : float
        ``γ = (t0 − d)/(n − d)``: with confidence :attr:`alpha`, at most this
        share of the agreed items are hard (coin-flip) items.
    t0 : int
        Smallest t with ``P(H > t | d) < 1 − alpha``: the bound on all hard items.
    hidden_hard : int
        ``t0 − d``: the bound on hard items hidden among the agreed ones.
    n : int
        Items (with two or more ratings, when computed from ratings).
    d : int
        Disagreed items.
    p : float
        Chance agreement on a hard item (the mean ``p_i`` when items have their own).
    alpha : float
        The paper's confidence α of the bound (not a significance level).
    prior : str, tuple or ndarray
        Prior on the number of hard items.
    agreed : int
        ``n − d``, the size of the candidate gold standard.
    posterior : HardCountPosterior
        The full posterior of the number of hard items.
    method : str
        How the posterior was computed.
    chance : ChanceAgreementResult or None
        The chance-agreement estimate, when computed from ratings.
    notes : tuple of str
        Conventions applied.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    gamma: float
    t0: int
    hidden_hard: int
    n: int
    d: int
    p: float
    alpha: float
    prior: Any
    agreed: int
    posterior: HardCountPosterior
    method: str
    chance: ChanceAgreementResult | None = None
    notes: tuple[str, ...] = field(default=())

    _keys = ("gamma", "t0", "hidden_hard", "n", "d", "agreed", "p", "alpha",
             "prior=posterior._prior.describe", "method", "notes")
    _headline = "gamma"

    def __repr__(self) -> str:
        return (
            f"NoiseBoundResult(gamma={self.gamma:.4f}: at most {self.hidden_hard} of the "
            f"{self.agreed} agreed items are hard, with confidence alpha={self.alpha:g}; "
            f"n={self.n}, d={self.d}, p={self.p:.4g}, t0={self.t0}, "
            f"prior={self.posterior._prior.describe()})"
        )


def _gamma_from(posterior: HardCountPosterior, alpha: float) -> tuple[int, float]:
    t0 = posterior.upper_bound(alpha)
    n, d = posterior.n, posterior.d
    return t0, (t0 - d) / (n - d)


def _no_agreed(n: int) -> ValueError:
    return ValueError(
        f"`d` equals `n` = {n}: every item was disagreed on, so there is no agreed subset "
        "whose noise γ could be bounded."
    )


def _noise_bound_iv(n: Any, d: Any, p: Any, alpha: Any, prior: Any):
    if d is None or p is None:
        raise TypeError("noise_bound needs `n`, `d` and `p` (or a single Ratings); "
                        f"got d={d!r}, p={p!r}.")
    n = check_count(n, "n", minimum=1)
    d = check_count(d, "d")
    if d > n:
        raise ValueError(f"`d` (disagreements) cannot exceed `n` (items); got d={d} > n={n}.")
    if d == n:
        raise _no_agreed(n)
    p = check_probability(p, "p")
    alpha = check_alpha(alpha)
    return n, d, p, alpha, check_prior(prior, n)


@validate_params(d=Count(0, optional=True), p=Probability(optional=True), alpha=Alpha())
def noise_bound(n: Any, d: Any = None, p: Any = None, *, alpha: float = 0.95,
                prior: Any = "uniform") -> NoiseBoundResult:
    """Upper bound γ on the share of hard items among the agreed items (SPEC §2.3).

    Call as ``noise_bound(n, d, p)`` with counts, or ``noise_bound(ratings)``
    to take ``n``, ``d`` and the chance agreement from labels.

    Parameters
    ----------
    n : int or Ratings or array_like
        Number of items; or the labels themselves (anything
        :func:`agreement.as_ratings` accepts).
    d : int
        Items the annotators disagreed on (with counts only).
    p : float
        Chance agreement on a hard item, in [0, 1] (with counts only; see
        :func:`chance_agreement`).
    alpha : float, default 0.95
        The paper's confidence α in (0, 1): the bound holds with probability
        α under the posterior. (goldnoise reserves ``alpha`` for this; interval
        levels elsewhere are ``confidence_level``.)
    prior : {"uniform"} or tuple or array_like, default "uniform"
        Prior on the number of hard items; see :func:`hard_count_posterior`.

    Returns
    -------
    NoiseBoundResult
        ``gamma``, ``t0``, ``hidden_hard = t0 − d``, the counts, and the
        ``posterior``.

    Raises
    ------
    TypeError
        If a count is not a whole number type, or ``d``/``p`` are missing (or
        given along with ratings).
    ValueError
        If ``d > n``; ``d = n`` (no agreed items); ``p`` outside [0, 1];
        ``p = 1`` with ``d > 0`` (hard items would always agree, so no
        disagreement could happen); ``alpha`` outside (0, 1).

    Warns
    -----
    EstimationWarning
        From ratings without any disagreed item (``q`` then comes from all labels).

    Notes
    -----
    ``P(H > t | d) = Σ_{h>t} C(h, d) p^(h−d) π(h) / Σ_{h≥d} C(h, d) p^(h−d) π(h)``
    (the paper's eq. (1)). With the uniform prior ``H − d`` is
    negative-binomial (``d + 1`` successes of probability ``1 − p``)
    truncated at ``n − d``, so ``t0 − d`` is the smallest j with
    ``F(j) > α·F(n − d)``, F the negative-binomial CDF: O(1), exact, at any n
    (near α = 1 the equivalent upper-tail form is used). Other priors take one
    log-space Numba pass over h = d..n. ``p = 0`` gives γ = 0.

    From ratings, ``n`` counts the items with two or more ratings. When every
    such item has the same annotators, ``p`` is one number and the bound is
    the closed form above. With missing ratings each item has its own
    ``p_i``; the bound is then the exact generalisation: with the hard set
    exchangeable given its size, ``P(H = d + j | data) ∝ e_j(p_A) π(d + j) /
    C(n, d + j)``, ``e_j`` the elementary symmetric polynomial of the agreed
    items' ``p_i`` (a Poisson-binomial recurrence, O((n − d)·j_max)). It
    reduces to the closed form when the ``p_i`` are equal. It is *not* the
    bound at the mean ``p``: items rated by more annotators, with small
    ``p_i``, are less likely to hide a hard item.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503, §2–3.
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    The paper's §3.1: 1000 items, 900 agreed, p = 0.5.

    >>> from noise_models import noise_bound
    >>> res = noise_bound(1000, 100, 0.5)
    >>> res.hidden_hard, res.agreed, round(res.gamma, 4)
    (125, 900, 0.1389)

    Poesio & Vieira (1998), as the paper reads it: γ ≈ 15%.

    >>> round(noise_bound(992, 121, 0.47).gamma, 3)
    0.152
    """
    check_params(noise_bound, locals())
    if n is None:
        raise TypeError("`n` must be a number of items or the ratings themselves; got None.")
    if isinstance(n, Ratings) or not isinstance(n, (numbers.Number, np.generic, str, bytes)):
        if d is not None or p is not None:
            raise TypeError("with ratings, `d` and `p` come from the data; to use your own, "
                            "call noise_bound(n, d, p) with counts.")
        alpha = check_alpha(alpha)
        if isinstance(n, ChunkedRatings) and not isinstance(n, Ratings):
            # two passes over the chunks (noise_models.easy_hard._partial)
            return _bound_from_chance(chance_over_chunks(n), alpha, prior)
        return _noise_bound_ratings(as_ratings(n), alpha, prior)
    return _noise_bound_counts(n, d, p, alpha, prior)


def _noise_bound_counts(n: Any, d: Any, p: Any, alpha: Any, prior: Any) -> NoiseBoundResult:
    """The bound from the counts ``n``, ``d`` and ``p`` (checked here)."""
    n, d, p, alpha, prior_ = _noise_bound_iv(n, d, p, alpha, prior)
    backend = _backend_for(n, d, p, prior_, use_kernel=False)
    post = HardCountPosterior(backend, n=n, d=d, p=p, prior=prior_)
    t0, gamma = _gamma_from(post, alpha)
    return NoiseBoundResult(gamma=gamma, t0=t0, hidden_hard=t0 - d, n=n, d=d, p=p, alpha=alpha,
                            prior=prior_.spec, agreed=n - d, posterior=post,
                            method=post.method)


def _noise_bound_ratings(ratings: Ratings, alpha: float, prior: Any) -> NoiseBoundResult:
    chance = _from_ratings(ratings, None, stacklevel=4)
    return _bound_from_chance(chance, alpha, prior)


def _bound_from_chance(chance: ChanceAgreementResult, alpha: float,
                       prior: Any) -> NoiseBoundResult:
    """γ from the chance agreement of ratings (in memory or over chunks)."""
    n, d = chance.n_items, chance.n_disagreed
    if d == n:
        raise _no_agreed(n)
    prior_ = check_prior(prior, n)
    notes = list(chance.notes)
    if chance.heterogeneous:
        p_items = chance.p_items
        agreed = chance.eligible & ~chance.disagreed
        post = per_item_posterior(n, d, p_items[agreed], p_items[chance.disagreed], prior_)
        notes.append("items have their own p_i (missing ratings): exact per-item posterior")
    else:
        p = float(chance.p)
        backend = _backend_for(n, d, p, prior_, use_kernel=False)
        post = HardCountPosterior(backend, n=n, d=d, p=p, prior=prior_)
    t0, gamma = _gamma_from(post, alpha)
    return NoiseBoundResult(gamma=gamma, t0=t0, hidden_hard=t0 - d, n=n, d=d, p=float(post.p),
                            alpha=alpha, prior=prior_.spec, agreed=n - d, posterior=post,
                            method=post.method, chance=chance, notes=tuple(notes))


def gamma_of(n: int, d: int, p: float, alpha: float) -> float:
    """γ for validated counts under the uniform prior (no result object)."""
    backend = _backend_for(n, d, p, _UNIFORM, use_kernel=False)
    t0 = backend.first_cdf_above(alpha, strict=True)
    return (t0 - d) / (n - d)


@validate_params(n=Count(2), p=Probability(), gamma=Probability(), alpha=Alpha())
def max_disagreements(n: Any, p: Any, *, gamma: Any, alpha: float = 0.95) -> int:
    """Most disagreements that keep the noise bound at or below ``gamma`` (SPEC §2.3).

    The inverse of :func:`noise_bound` (uniform prior): the largest ``d``
    with ``noise_bound(n, d, p, alpha=alpha).gamma <= gamma``.

    Parameters
    ----------
    n : int
        Number of items (>= 2).
    p : float
        Chance agreement on a hard item, in [0, 1].
    gamma : float
        Target noise bound of the agreed subset, in [0, 1].
    alpha : float, default 0.95
        The paper's confidence α in (0, 1).

    Returns
    -------
    int
        ``d*`` with ``γ(d) <= gamma`` for every ``d <= d*`` and
        ``gamma < γ(d* + 1)`` (or ``n − 1`` when every ``d < n`` meets the
        target).

    Raises
    ------
    TypeError
        If ``gamma`` is missing or a value has the wrong type.
    ValueError
        If even ``d = 0`` gives a bound above ``gamma`` (more items are
        needed), or a value is out of range.

    Notes
    -----
    γ grows with ``d`` at fixed ``n`` (more disagreements mean more hard items
    and a smaller agreed subset) as long as the truncation of the posterior at
    ``n − d`` does not bind, i.e. while ``F(n − d) > 1 − 1e-9`` for the
    negative-binomial CDF F of §2.3; that holds for every ``d`` up to a point
    found by bisection, and a bisection over that stretch with the O(1) closed
    form finds ``d*`` in O(log n) bounds. Beyond it the bound already covers
    nearly all agreed items (γ close to 1), and γ can dip by a fraction of an
    item when ``n − d`` shrinks (e.g. n = 8, α = 0.25, p = 0.5: γ = 2/3 at
    d = 5, 1/2 at d = 6); a target that high is met by walking on item by
    item to the first ``d`` whose successor exceeds it.

    Examples
    --------
    The paper's §3.1: 1000 items, two annotators, p = 0.5, 95% noise-free
    with 95% confidence tolerates only 33 disagreements (κ ≈ 0.93).

    >>> from noise_models import max_disagreements
    >>> max_disagreements(1000, 0.5, gamma=0.05)
    33
    """
    check_params(max_disagreements, locals())
    n = check_count(n, "n", minimum=2)
    p = check_probability(p, "p")
    target = check_probability(gamma, "gamma")
    alpha = check_alpha(alpha)
    if p == 0.0:
        return n - 1
    g0 = gamma_of(n, 0, p, alpha)
    if g0 > target:
        raise ValueError(
            f"even with no disagreements the bound is γ = {g0:.4g} > `gamma` = {target:g} for "
            f"n = {n}, p = {p:g}, alpha = {alpha:g}: more items (or lower chance agreement, "
            "i.e. more annotators) are needed."
        )
    if p == 1.0:
        return 0
    if target >= 1.0:
        return n - 1
    # γ(d) is non-decreasing while the truncation at n - d does not bind, i.e. for
    # d <= d_free, the last d with G(d) = F_{NB(d+1, 1-p)}(n - d) > 1 - 1e-9 (G falls with d).
    def binds(d: int) -> bool:
        return float(special.betainc(d + 1.0, n - d + 1.0, 1.0 - p)) <= 1.0 - _FREE

    d_free = _first_true(binds, 0, n - 1, 0) - 1 if binds(n - 1) else n - 1
    d_free = max(d_free, 0)
    if gamma_of(n, d_free, p, alpha) > target:
        lo, hi = 0, d_free  # γ(lo) <= target < γ(hi), γ monotone in between
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if gamma_of(n, mid, p, alpha) <= target:
                lo = mid
            else:
                hi = mid
        return lo
    # Beyond d_free the bound covers nearly every agreed item and γ can dip by a fraction of
    # an item as n - d shrinks; walk on to the first d whose successor exceeds the target.
    d = d_free
    while d + 1 < n and gamma_of(n, d + 1, p, alpha) <= target:
        d += 1
    return d

