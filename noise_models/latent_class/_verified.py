"""What a verified random sample of the agreed items proves, exactly (SPEC §2.4).

:func:`verified_sample_bound` and :func:`sample_size_needed`: the exact
hypergeometric upper bound on the wrong labels of the agreed subset, and the
sample a target needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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

__all__ = ["VerifiedSampleBoundResult", "sample_size_needed", "verified_sample_bound"]


# ---------------------------------------------------------- verified sample
@dataclass(frozen=True, repr=False)
class VerifiedSampleBoundResult(Result):
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

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    n_agreed: int
    sample_size: int
    errors: int
    alpha: float
    max_errors: int
    max_share: float
    observed_share: float



    _headline = "max_share"

    def __repr__(self) -> str:
        return (f"VerifiedSampleBoundResult({self.errors} wrong of {self.sample_size} verified: "
                f"at most {self.max_errors} of the {self.n_agreed} agreed labels "
                f"({self.max_share:.2%}) are wrong, with confidence {self.alpha:g})")


def _hyper_cdf(e: int, n_pop: int, bad: int, s: int) -> float:
    from scipy import stats  # lazily: scipy.stats takes a while to import

    # P(X <= e), X ~ Hypergeom(population n_pop, bad wrong labels, s draws).
    return float(stats.hypergeom.cdf(e, n_pop, bad, s))


@validate_params(n_agreed=Count(1), sample_size=Count(1), errors=Count(0),
                 alpha=Alpha())
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
    check_params(verified_sample_bound, locals())
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


@validate_params(n_agreed=Count(1), target_share=Probability(), alpha=Alpha())
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
    check_params(sample_size_needed, locals())
    n_pop = check_count(n_agreed, "n_agreed", minimum=1)
    target = check_probability(target_share, "target_share")
    alpha = check_alpha(alpha)
    if target >= 1.0:
        raise ValueError("`target_share` must be below 1 (a share of wrong labels to rule out).")
    k_star = math.floor(target * n_pop) + 1
    level = 1.0 - alpha

    from scipy import stats  # lazily: scipy.stats takes a while to import

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
