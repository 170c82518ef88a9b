"""κ read through the easy/hard model: auditing a κ claim (SPEC §2.5).

If hard and easy items share one category distribution, κ estimates the easy
fraction ``e/(e + h)`` (Beigman Klebanov & Beigman 2009, §3.3). So a reported
κ implies about ``κ·n`` easy items, ``e + p·h`` agreed ones, a point estimate
of the noise in the agreed subset, and the γ bound; and with many annotators
the same agreement can carry very different κ (:func:`kappa_range`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    ConfidenceLevel,
    Count,
    check_alpha,
    check_confidence_level,
    check_count,
    check_params,
    check_probability,
    check_shares,
    validate_params,
)
from agreement import AgreementResult, ConfidenceInterval, Ratings, as_ratings, fleiss_kappa
from noise_models.easy_hard._bound import NoiseBoundResult, noise_bound
from noise_models.easy_hard._chance import _from_ratings

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")

__all__ = ["KappaAuditResult", "KappaRangeResult", "audit_kappa", "kappa_range"]

# Largest number of count vectors (compositions of k into m parts) enumerated.
_MAX_PATTERNS = 2_000_000


# --------------------------------------------------------------------------- kappa_range
def _mode_allocation(total: int, probs: np.ndarray) -> np.ndarray:
    """The mode of Multinomial(total, probs), ties to the lower index.

    The log pmf is separable and concave in each count, so adding one item at
    a time where ``log(p_i/(x_i + 1))`` is largest is optimal; every mode has
    ``x_i > total·p_i − 1``, so the greedy may start from ``floor(total·p_i)``.
    """
    probs = np.asarray(probs, dtype=np.float64)
    x = np.floor(total * probs).astype(np.int64)
    x = np.minimum(x, total)
    rest = int(total - x.sum())
    if rest <= 0:
        return x
    heap = [(-(probs[i] / (x[i] + 1)), i) for i in np.flatnonzero(probs > 0)]
    heapq.heapify(heap)
    for _ in range(rest):
        _, i = heapq.heappop(heap)
        x[i] += 1
        heapq.heappush(heap, (-(probs[i] / (x[i] + 1)), i))
    return x


def _compositions(k: int, m: int) -> np.ndarray:
    """Every vector of m non-negative integers summing to k (stars and bars)."""
    count = math.comb(k + m - 1, m - 1)
    if count > _MAX_PATTERNS:
        raise ValueError(
            f"{k} annotators over {m} categories give {count:,} possible vote patterns, more "
            f"than the {_MAX_PATTERNS:,} this function enumerates; merge rare categories."
        )
    out = np.empty((count, m), dtype=np.int64)
    for t, bars in enumerate(itertools.combinations(range(k + m - 1), m - 1)):
        prev = -1
        for c, b in enumerate(bars):
            out[t, c] = b - prev - 1
            prev = b
        out[t, m - 1] = k + m - 2 - prev
    return out


def _log_multinomial(vectors: np.ndarray, q: np.ndarray) -> np.ndarray:
    k = int(vectors[0].sum())
    with np.errstate(divide="ignore"):
        logq = np.log(q)
    coef = special.gammaln(k + 1.0) - special.gammaln(vectors + 1.0).sum(axis=1)
    terms = np.where(vectors > 0, vectors * logq[None, :], 0.0)
    return coef + terms.sum(axis=1)


def _pattern_table(n: int, agreed: int, k: int, q: np.ndarray, which: str) -> np.ndarray:
    """The items × categories count table of one of the three patterns."""
    m = q.size
    unanimous = k * np.eye(m, dtype=np.int64)
    rows = [np.repeat(unanimous, _mode_allocation(agreed, q), axis=0)]
    d = n - agreed
    if d > 0:
        vecs = _compositions(k, m)
        vecs = vecs[vecs.max(axis=1) < k]  # disagreements only
        logp = _log_multinomial(vecs, q)
        possible = np.isfinite(logp)
        vecs, logp = vecs[possible], logp[possible]
        if which != "most_likely":
            shape = np.zeros(m, dtype=np.int64)
            parts = _shape(k, int(np.count_nonzero(q > 0)), which)
            shape[: parts.size] = parts
            keep = np.all(np.sort(vecs, axis=1)[:, ::-1] == shape, axis=1)
            vecs, logp = vecs[keep], logp[keep]
        # Conditional on disagreement (and on the split's shape): the most likely assignment
        # of the d disagreed items to vote patterns is the multinomial mode.
        probs = np.exp(logp - special.logsumexp(logp))
        rows.append(np.repeat(vecs, _mode_allocation(d, probs), axis=0))
    return np.concatenate(rows, axis=0)


def _shape(k: int, m_pos: int, which: str) -> np.ndarray:
    """Sorted vote counts (descending, padded to m) of the least or most even split."""
    if which == "highest":  # least even: (k - 1)-to-1
        parts = [k - 1, 1]
    else:  # most even: as equal as possible over min(k, m) categories
        s = min(k, m_pos)
        base, extra = divmod(k, s)
        parts = [base + 1] * extra + [base] * (s - extra)
    return np.array(parts)


@dataclass(frozen=True, repr=False)
class KappaRangeResult(Result):
    """Fleiss κ that n items with a given number of unanimous ones can have.

    Attributes
    ----------
    lowest : float
        κ with every disagreement at the most even split (3-to-2 for five
        annotators and two categories).
    most_likely : float
        κ at the likeliest mix of splits when hard items are coin flips.
    highest : float
        κ with every disagreement at the least even split (4-to-1).
    n, agreed, n_raters : int
        Items, unanimous items, annotators per item.
    category_shares : ndarray
        Category distribution used for hard and easy items.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    lowest: float
    most_likely: float
    highest: float
    n: int
    agreed: int
    n_raters: int
    category_shares: np.ndarray

    _headline = "most_likely"
    _keys = ("lowest", "most_likely", "highest", "n", "agreed", "n_raters")

    def count_table(self, which: str = "most_likely") -> pd.DataFrame:
        """The constructed items × categories count table behind one of the three values.

        Parameters
        ----------
        which : {"lowest", "most_likely", "highest"}
        """
        if which not in ("lowest", "most_likely", "highest"):
            raise ValueError(f"`which` must be 'lowest', 'most_likely' or 'highest'; got "
                             f"{which!r}.")
        table = _pattern_table(self.n, self.agreed, self.n_raters, self.category_shares, which)
        return pd.DataFrame(table, columns=pd.RangeIndex(table.shape[1], name="category"))


    def __repr__(self) -> str:
        return (f"KappaRangeResult(lowest={self.lowest:.4f}, most_likely={self.most_likely:.4f}, "
                f"highest={self.highest:.4f}; n={self.n}, agreed={self.agreed}, "
                f"n_raters={self.n_raters})")


@validate_params(n=Count(1), agreed=Count(0), n_raters=Count(2))
def kappa_range(n: Any, agreed: Any, n_raters: Any, *,
                category_shares: Any = None) -> KappaRangeResult:
    """Range of Fleiss κ for n items of which ``agreed`` are unanimous (SPEC §2.5).

    Parameters
    ----------
    n : int
        Items.
    agreed : int
        Items on which all annotators agree, ``0 <= agreed <= n``.
    n_raters : int
        Annotators per item (>= 2).
    category_shares : array_like, optional
        Category distribution, shared by easy and hard items (the model's
        assumption for reading κ). Default: two equiprobable categories.

    Returns
    -------
    KappaRangeResult
        ``lowest`` (disagreements all at the most even split),
        ``most_likely`` (the likeliest mix of splits under coin flipping) and
        ``highest`` (all at the least even split).

    Raises
    ------
    ValueError
        If ``agreed > n``, or disagreements are impossible (one category has
        all the share), or there are too many vote patterns to enumerate.

    Notes
    -----
    Each value is Fleiss' κ (:func:`agreement.fleiss_kappa`) of a constructed
    count table. Unanimous items are spread over the categories as the mode
    of Multinomial(agreed, shares). The ``n − agreed`` disagreed items take
    vote patterns (vectors of k counts over the categories, not all in one):
    for ``most_likely`` the mode of a multinomial over all such patterns with
    probabilities proportional to ``Multinomial(k, shares)`` (the paper's
    footnote 6: twice as many 3-to-2 as 4-to-1 splits with five annotators);
    for ``lowest``/``highest`` the same over the patterns of the most/least
    even shape only. Ties go to the first pattern in enumeration order.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503, §3.2.
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    The paper's §3.2: five annotators, 660 of 1000 items unanimous.

    >>> from noise_models import kappa_range
    >>> kappa_range(1000, 660, 5)
    KappaRangeResult(lowest=0.5920, most_likely=0.6368, highest=0.7280; n=1000,
    agreed=660, n_raters=5)
    """
    check_params(kappa_range, locals())
    n = check_count(n, "n", minimum=1)
    agreed = check_count(agreed, "agreed")
    if agreed > n:
        raise ValueError(f"`agreed` cannot exceed `n`; got agreed={agreed} > n={n}.")
    k = check_count(n_raters, "n_raters", minimum=2)
    q = np.array([0.5, 0.5]) if category_shares is None else check_shares(
        category_shares, "category_shares")
    if agreed < n and np.count_nonzero(q > 0) < 2:
        raise ValueError("`category_shares` puts all weight on one category, so no item can be "
                         "disagreed on; give at least two categories with positive share.")
    values = {}
    for which in ("lowest", "most_likely", "highest"):
        table = _pattern_table(n, agreed, k, q, which)
        values[which] = float(fleiss_kappa(Ratings.from_counts(table)).value)
    q_ro = q.copy()
    q_ro.setflags(write=False)
    return KappaRangeResult(lowest=values["lowest"], most_likely=values["most_likely"],
                            highest=values["highest"], n=n, agreed=agreed, n_raters=k,
                            category_shares=q_ro)


# --------------------------------------------------------------------------- audit_kappa
@dataclass(frozen=True, repr=False)
class KappaAuditResult(Result):
    """What a κ value implies under the easy/hard model.

    Attributes
    ----------
    kappa : float
        The κ audited (computed with :func:`agreement.fleiss_kappa` when
        ratings were given).
    n : int
        Items.
    n_raters : int
        Annotators per item.
    p : float
        Chance agreement on a hard item.
    easy_items : float
        Implied easy items ``max(κ, 0)·n``.
    expected_agreed : float
        ``e + p·h``, the agreed items the model expects.
    agreed : int
        The agreed count audited: the observed unanimous items (ratings), or
        the expected count rounded to a whole number (a κ value).
    point_noise : float
        Point estimate of the noise in the agreed subset, ``(agreed − e)/agreed``
        (0 when κ·n exceeds the agreed count, with a note).
    gamma : float
        The γ bound of the agreed subset at confidence :attr:`alpha`.
    bound : NoiseBoundResult
        The full bound behind :attr:`gamma`.
    alpha : float
        The paper's confidence α of :attr:`gamma`.
    kappa_interval : ConfidenceInterval or None
        κ's confidence interval at :attr:`confidence_level` (ratings only).
    confidence_level : float
        Level of :attr:`kappa_interval`.
    threshold : float or None
        The claimed threshold (e.g. 0.67 or 0.8).
    threshold_in_interval : bool or None
        Whether ``threshold`` lies inside :attr:`kappa_interval` (None without
        an interval or a threshold).
    kappa_result : AgreementResult or None
        Fleiss' κ result (ratings only).
    notes : tuple of str

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    kappa: float
    n: int
    n_raters: int
    p: float
    easy_items: float
    expected_agreed: float
    agreed: int
    point_noise: float
    gamma: float
    bound: NoiseBoundResult
    alpha: float
    kappa_interval: ConfidenceInterval | None = None
    confidence_level: float = 0.95
    threshold: float | None = None
    threshold_in_interval: bool | None = None
    kappa_result: AgreementResult | None = None
    notes: tuple[str, ...] = field(default=())

    _headline = "gamma"
    _keys = ("kappa", "kappa_low=kappa_interval.low", "kappa_high=kappa_interval.high", "n",
             "n_raters", "p", "easy_items", "expected_agreed", "agreed", "point_noise", "gamma",
             "alpha", "confidence_level", "threshold", "threshold_in_interval", "notes")

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """κ's Wald interval at ``confidence_level`` (default: :attr:`confidence_level`).

        The interval of :attr:`kappa_result` (from ratings); ``(nan, nan)`` when
        the audit started from a κ value, which carries no standard error.
        """
        check_params(KappaAuditResult.confidence_interval, locals())
        level = (self.confidence_level if confidence_level is None
                 else check_confidence_level(confidence_level))
        if self.kappa_result is None:
            return ConfidenceInterval(math.nan, math.nan)
        return self.kappa_result.confidence_interval(level)


    def __repr__(self) -> str:
        ci = ""
        if self.kappa_interval is not None:
            ci = (f" [{self.kappa_interval.low:.4f}, {self.kappa_interval.high:.4f}] at "
                  f"{self.confidence_level:g}")
        thr = ""
        if self.threshold is not None and self.threshold_in_interval is not None:
            thr = (f"; threshold {self.threshold:g} "
                   f"{'inside' if self.threshold_in_interval else 'outside'} the interval")
        return (f"KappaAuditResult(kappa={self.kappa:.4f}{ci}: about {self.easy_items:.6g} easy "
                f"of {self.n} items, {self.agreed} agreed, point noise {self.point_noise:.4f}, "
                f"gamma {self.gamma:.4f} at alpha={self.alpha:g}{thr})")


def _check_kappa(kappa: Any, name: str = "kappa") -> float:
    if isinstance(kappa, (bool, np.bool_)) or not isinstance(kappa, numbers.Real):
        raise TypeError(f"`{name}` must be a number in [-1, 1]; got {kappa!r}.")
    kv = float(kappa)
    if not (math.isfinite(kv) and -1.0 <= kv <= 1.0):
        raise ValueError(f"`{name}` must be in [-1, 1]; got {kappa!r}.")
    return kv


def _chance_p(p: Any, category_shares: Any, k: int) -> float | None:
    if p is not None and category_shares is not None:
        raise TypeError("give `p` or `category_shares`, not both.")
    if p is not None:
        return check_probability(p, "p")
    if category_shares is not None:
        q = check_shares(category_shares, "category_shares")
        return float(min(np.sum(q ** k), 1.0))
    return None


@validate_params(n=Count(1, optional=True), n_raters=Count(2, optional=True), alpha=Alpha(),
                 confidence_level=ConfidenceLevel())
def audit_kappa(kappa: Any, *, n: Any = None, n_raters: Any = None, p: Any = None,
                category_shares: Any = None, alpha: float = 0.95,
                threshold: Any = None, confidence_level: float = 0.95) -> KappaAuditResult:
    """What a κ claim means for the gold standard, read through the easy/hard model (SPEC §2.5).

    Parameters
    ----------
    kappa : float or Ratings or array_like
        A reported κ in [-1, 1] (then ``n`` and ``n_raters`` are required),
        or the labels themselves: κ is then Fleiss' κ of the data and ``n``,
        ``n_raters``, the agreed count and γ come from them.
    n : int, optional
        Items (with a number κ).
    n_raters : int, optional
        Annotators per item (with a number κ; >= 2).
    p : float, optional
        Chance agreement on a hard item.
    category_shares : array_like, optional
        Category distribution shared by all annotators: ``p = Σ_c q_c^k``.
        Default for ``p``: estimated from the disagreed items
        (:func:`chance_agreement`) with ratings; two equiprobable categories
        (``p = 0.5^(k−1)``) with a number κ.
    alpha : float, default 0.95
        The paper's confidence α of γ.
    threshold : float, optional
        A claimed threshold (e.g. 0.67 or 0.8) to locate against κ's interval.
    confidence_level : float, default 0.95
        Level of κ's confidence interval (ratings only). Kept apart from
        ``alpha``, which is the confidence of the noise bound.

    Returns
    -------
    KappaAuditResult
        ``easy_items``, ``expected_agreed``, ``point_noise``, ``gamma`` and,
        from ratings, ``kappa_interval`` and ``threshold_in_interval``.

    Raises
    ------
    TypeError
        If ``n``/``n_raters`` are missing with a number κ or given with
        ratings, or both ``p`` and ``category_shares`` are given.
    ValueError
        If a value is out of range, or no item would be agreed on.

    Notes
    -----
    If hard and easy items share one category distribution, κ estimates the
    easy fraction (Beigman Klebanov & Beigman 2009, §3.3), so ``e = κ·n``
    (0 for negative κ), ``h = n − e``, the expected agreed count is
    ``e + p·h``; the audited agreed count is that rounded to a whole number
    (from ratings: the observed one), the point noise is
    ``(agreed − e)/agreed``, and γ is :func:`noise_bound` of ``n`` items with
    ``n − agreed`` disagreements (from ratings: of the data themselves). κ's interval is
    Fleiss' κ's own (Gwet's standard error) at ``confidence_level``.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503, §3.
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    The paper's §3.1/§3.3: κ = 0.8 on 1000 items, two annotators, p = 0.5.

    >>> from noise_models import audit_kappa
    >>> a = audit_kappa(0.8, n=1000, n_raters=2, p=0.5)
    >>> a.easy_items, a.expected_agreed, round(a.point_noise, 3), round(a.gamma, 3)
    (800.0, 900.0, 0.111, 0.139)
    """
    check_params(audit_kappa, locals())
    alpha = check_alpha(alpha)
    level = check_confidence_level(confidence_level)
    thr = None if threshold is None else _check_kappa(threshold, "threshold")
    if isinstance(kappa, Ratings) or not isinstance(kappa, (numbers.Number, np.generic, str)):
        if n is not None or n_raters is not None:
            raise TypeError("with ratings, `n` and `n_raters` come from the data; do not pass "
                            "them.")
        return _audit_ratings(as_ratings(kappa), p, category_shares, alpha, thr, level)
    kv = _check_kappa(kappa)
    if n is None or n_raters is None:
        raise TypeError("a κ value needs `n` (items) and `n_raters` (annotators per item).")
    return _audit_value(kv, n, n_raters, p, category_shares, alpha, thr)


def _audit_value(kv: float, n: Any, n_raters: Any, p: Any, category_shares: Any, alpha: float,
                 thr: float | None) -> KappaAuditResult:
    """The audit of a κ value ``kv`` of ``n`` items with ``n_raters`` annotators each."""
    n = check_count(n, "n", minimum=1)
    k = check_count(n_raters, "n_raters", minimum=2)
    pv = _chance_p(p, category_shares, k)
    notes = []
    if pv is None:
        pv = 0.5 ** (k - 1)
        notes.append("p from two equiprobable categories (no `p` or `category_shares` given)")
    easy = max(kv, 0.0) * n
    if kv < 0:
        notes.append("negative κ read as no easy items")
    expected = easy + pv * (n - easy)
    agreed_int = math.floor(expected + 0.5)
    if agreed_int < 1:
        raise ValueError(f"with κ = {kv:g} and p = {pv:.4g} no item is expected to be agreed "
                         "on, so there is no gold standard to audit.")
    bound = noise_bound(n, n - agreed_int, pv, alpha=alpha)
    point = max(agreed_int - easy, 0.0) / agreed_int
    return KappaAuditResult(kappa=kv, n=n, n_raters=k, p=pv, easy_items=easy,
                            expected_agreed=expected, agreed=agreed_int, point_noise=point,
                            gamma=bound.gamma, bound=bound, alpha=alpha, threshold=thr,
                            notes=tuple(notes))


def _audit_ratings(ratings: Ratings, p: Any, category_shares: Any, alpha: float,
                   thr: float | None, level: float) -> KappaAuditResult:
    kres = fleiss_kappa(ratings)
    kv = float(kres.value)
    if not math.isfinite(kv):
        raise ValueError("Fleiss' κ of these ratings is undefined (see the warning), so there is "
                         "no κ to audit.")
    k = int(ratings.ratings_per_item.max())
    chance = _from_ratings(ratings, None, stacklevel=5)
    n, d = chance.n_items, chance.n_disagreed
    agreed = n - d
    pv = _chance_p(p, category_shares, k)
    notes = list(chance.notes)
    # Only the ratings per item matter here, not how many annotators there are in all
    # (Snow et al.'s RTE: 164 workers, every item rated by exactly 10).
    if np.any(ratings.ratings_per_item[chance.eligible] != k):
        notes.append(f"ratings per item vary; n_raters reports the largest, {k}")
    if pv is None:
        bound = noise_bound(ratings, alpha=alpha)
        pv = bound.p
        notes.append("p estimated from the disagreed items")
    else:
        bound = noise_bound(n, d, pv, alpha=alpha)
    easy = max(kv, 0.0) * n
    expected = easy + pv * (n - easy)
    point = (agreed - easy) / agreed
    if point < 0:
        notes.append(f"κ·n = {easy:.6g} easy items exceed the {agreed} agreed ones: the model's "
                     "reading of κ does not fit these data; point noise set to 0")
        point = 0.0
    ci = kres.confidence_interval(level)
    inside = None
    if thr is not None and math.isfinite(ci.low):
        inside = bool(ci.low <= thr <= ci.high)
    return KappaAuditResult(kappa=kv, n=n, n_raters=k, p=float(pv), easy_items=easy,
                            expected_agreed=expected, agreed=agreed, point_noise=point,
                            gamma=bound.gamma, bound=bound, alpha=alpha, kappa_interval=ci,
                            confidence_level=level,
                            threshold=thr, threshold_in_interval=inside, kappa_result=kres,
                            notes=tuple(notes))
