"""Active human labels: which items humans should label, and the weighted estimate (SPEC §11).

Active statistical inference (Zrnic & Candès 2024): item ``i`` is sent to humans
with probability ``π_i`` (``ξ_i ~ Bernoulli(π_i)``), larger where the judge is
unsure, and the mean of the human values is estimated by

    θ̂ = (1/N) Σ_i [λ f_i + (Y_i − λ f_i) ξ_i / π_i]                          (1)

-- unbiased for any ``π > 0`` and any λ, since ``E[ξ_i/π_i] = 1``; its variance is
estimated from the ``N`` per-item terms (they are independent given the judge's
values). ``λ`` minimises that variance (the PPI++ idea: ``λ̂ = −Cov(A, B)/Var(B)``
with ``A = ξY/π``, ``B = f(1 − ξ/π)``, clipped to [0, 1]); ``λ = 0`` is the
Horvitz–Thompson estimate from the humans alone.

With the judge's probability ``p_i`` of the class (calibrated), ``E[(Y − f)²] ≈
p_i(1 − p_i)``, so the variance of (1) at λ = 1 is ``N⁻² Σ σ_i² (1/π_i − 1)``
(``σ_i² = p_i(1 − p_i)``), minimised under a budget ``Σ π_i = n`` by ``π_i ∝ σ_i``
(capped at 1). The robust version (Li, Zrnic & Candès 2025) mixes it with the
uniform design, ``π = τ·n/N + (1 − τ)·π_active``, and picks ``τ`` with the smaller
expected variance, so the design is never worse than uniform by that measure (τ = 1
is uniform); a floor of the uniform share keeps the weights ``1/π`` bounded.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import ShapeError
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Rng, check_params, validate_params

__all__ = ["ActiveSampleResult", "active_core", "active_sample", "judge_values"]

#: The smallest uniform share of the design (bounds the weights 1/π by 10·N/n).
MIN_UNIFORM = 0.1


def judge_values(scores: Any, *, category: Any = None, values: Any = None,
                 name: str = "judge_scores") -> tuple[np.ndarray, np.ndarray]:
    """The judge's value ``f`` and its expected squared error ``σ²`` per item from soft scores.

    ``scores``: (n,) probabilities of the class, or (n, m) probabilities per class
    (a DataFrame's columns are the classes); log-probabilities (every value ≤ 0) are
    exponentiated. With (n, m): ``category`` picks the class (``f = p_c``,
    ``σ² = p_c(1 − p_c)``), or ``values`` (one number per class) gives the mean
    rating (``f = p·v``, ``σ² = p·v² − f²``).
    """
    cols = None
    if isinstance(scores, pd.DataFrame):
        cols = list(scores.columns)
        arr = scores.to_numpy(dtype=np.float64)
    elif isinstance(scores, (str, bytes)) or scores is None:
        raise TypeError(f"`{name}` must be an array of probabilities; got {type(scores).__name__}.")
    else:
        try:
            arr = np.asarray(scores, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"`{name}` must hold numbers (probabilities or "
                            "log-probabilities).") from None
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ShapeError(f"`{name}` must be (n,) or (n, classes); got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        raise ValueError(f"`{name}` holds NaN or infinite values; give every item a score.")
    if (arr <= 0).all():  # log-probabilities
        arr = np.exp(arr)
    if (arr < 0).any() or (arr > 1 + 1e-9).any():
        raise ValueError(f"`{name}` must be probabilities in [0, 1] (or log-probabilities, "
                         f"all ≤ 0); got values in [{arr.min():.3g}, {arr.max():.3g}].")
    if arr.ndim == 1:
        return arr.copy(), arr * (1.0 - arr)
    sums = arr.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-3):
        raise ValueError(f"each row of `{name}` must sum to 1 (probabilities per class); "
                         f"row sums range over [{sums.min():.3g}, {sums.max():.3g}].")
    if values is not None:
        v = np.asarray(values, dtype=np.float64)
        if v.shape != (arr.shape[1],):
            raise ShapeError(f"`values` needs one number per class ({arr.shape[1]}); got "
                             f"shape {v.shape}.")
        f = arr @ v
        return f, np.maximum(arr @ v**2 - f**2, 0.0)
    if category is None:
        raise ValueError(f"`{name}` has a column per class: name the class with `category` "
                         "(or give `values` for the mean rating).")
    if cols is not None:
        if category not in cols:
            raise ValueError(f"`category` {category!r} is not a column of `{name}` {cols[:10]}.")
        c = cols.index(category)
    else:
        c = int(category)
    p = arr[:, c]
    return p.copy(), p * (1.0 - p)


def _capped(weight: np.ndarray, budget: float) -> np.ndarray:
    """``π ∝ weight`` with ``Σπ = budget`` and every ``π ≤ 1`` (water-filling)."""
    pi = np.zeros_like(weight)
    free = np.ones(weight.size, dtype=bool)
    left = budget
    for _ in range(weight.size):
        w = weight[free]
        if w.sum() <= 0:
            pi[free] = left / free.sum()
            break
        pi[free] = left * w / w.sum()
        over = free & (pi > 1.0)
        if not over.any():
            break
        pi[over] = 1.0
        free &= ~over
        left = budget - pi[~free].sum()
    return np.clip(pi, 0.0, 1.0)


def _proxy_variance(sigma2: np.ndarray, pi: np.ndarray) -> float:
    return float((sigma2 * (1.0 / pi - 1.0)).sum())


@dataclasses.dataclass(frozen=True)
class ActiveSampleResult(Result):
    """Inclusion probabilities from the judge's uncertainty, and one draw of them.

    Attributes
    ----------
    inclusion : ndarray, shape (n,)
        ``π_i``: the probability that item ``i`` is sent to humans (pass it to
        ``judge_estimate(..., inclusion=)``).
    labelled : ndarray of bool, shape (n,)
        One draw ``ξ_i ~ Bernoulli(π_i)``: the items to send.
    budget : float
        ``Σ π_i``: the expected number of items humans label.
    uniform_share : float
        ``τ``: the share of the uniform design in the mixture (1 = uniform).
    variance_ratio : float
        The design's expected variance over the uniform design's (below 1: better),
        by the judge's own uncertainty ``σ² = p(1 − p)`` (``float(result)``).
    uniform_equivalent : float
        The uniform design's budget with the same expected variance
        (``N·S/(V + S)``, ``S = Σσ²``, ``V = Σσ²(1/π − 1)``): the human labels the
        design is worth.
    n_items : int

    ``to_frame()``: one row per item (``inclusion``, ``labelled``, ``judge``, ``sigma2``).
    """

    _headline: ClassVar[str] = "variance_ratio"
    _columns: ClassVar[dict[str, str]] = {"inclusion": "inclusion", "labelled": "labelled",
                                          "judge": "judge", "sigma2": "sigma2"}
    _omit = ("inclusion", "labelled", "judge", "sigma2")
    _summary = (
        "Active sample: {budget:.1f} of {n_items} items expected to humans",
        "  uniform share of the design {uniform_share:.2f}; expected variance {variance_ratio:.3f}"
        " x the uniform design's (worth {uniform_equivalent:.1f} uniformly drawn items)",
    )

    inclusion: np.ndarray = dataclasses.field(repr=False)
    labelled: np.ndarray = dataclasses.field(repr=False)
    judge: np.ndarray = dataclasses.field(repr=False)
    sigma2: np.ndarray = dataclasses.field(repr=False)
    budget: float
    uniform_share: float
    variance_ratio: float
    uniform_equivalent: float
    n_items: int


@validate_params(rng=Rng())
def active_sample(judge_scores: Any, *, budget: float, category: Any = None,
                  values: Any = None, uniform_share: Any = "auto",
                  rng: Any = None) -> ActiveSampleResult:
    """Which items humans should label: inclusion probabilities from the judge's uncertainty.

    Parameters
    ----------
    judge_scores : array_like or pandas.DataFrame
        The judge's soft output per item: (n,) probabilities of the class, or
        (n, classes) probabilities per class (a DataFrame's columns name them);
        log-probabilities (all values ≤ 0) are accepted. Hard labels (0/1) are
        accepted too: every item is then equally uncertain, and the design is uniform.
    budget : float
        The expected number of items humans label, in (0, n].
    category : object, optional
        The class whose prevalence will be estimated (with per-class scores).
    values : array_like, optional
        One number per class, for a mean rating (with per-class scores).
    uniform_share : float or "auto", default "auto"
        ``τ`` of the mixture ``τ·uniform + (1 − τ)·π_active``, at least 0.1; "auto"
        picks the τ (on a grid of 0.1 steps) with the smallest expected variance.
    rng : None, int or Generator
        Draws ``labelled``.

    Returns
    -------
    ActiveSampleResult

    Raises
    ------
    ValueError
        A budget outside (0, n], scores that are not probabilities.

    Notes
    -----
    ``π_active ∝ sqrt(σ²)`` (Zrnic & Candès 2024, for a mean), capped at 1; see the
    module docstring. The expected variance is ``Σ σ_i² (1/π_i − 1)``, which trusts
    the judge's probabilities to be calibrated; the uniform floor keeps a badly
    calibrated judge from driving the weights.

    References
    ----------
    Zrnic & Candès (2024), Active statistical inference, ICML 2024, arXiv:2403.03208.
    Li, Zrnic & Candès (2025), Robust sampling for active statistical inference,
    arXiv:2511.08991.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import active_sample
    >>> p = np.r_[np.full(900, 0.02), np.full(100, 0.5)]   # sure on 900 items of 1000
    >>> res = active_sample(p, budget=100, rng=0)
    >>> res.inclusion[[0, -1]].round(3), round(res.variance_ratio, 2)
    (array([0.082, 0.266]), 0.7)
    """
    check_params(active_sample, locals())
    f, s2 = judge_values(judge_scores, category=category, values=values)
    n = f.size
    try:
        budget = float(budget)
    except (TypeError, ValueError):
        raise TypeError(f"`budget` must be a number of items; got {budget!r}.") from None
    if not 0 < budget <= n:
        raise ValueError(f"`budget` must be in (0, {n}] (the expected number of items humans "
                         f"label); got {budget:g}.")
    uni = np.full(n, budget / n)
    act = _capped(np.sqrt(s2), budget)
    if isinstance(uniform_share, str):
        if uniform_share != "auto":
            raise ValueError(f"`uniform_share` must be a number in [0.1, 1] or 'auto'; got "
                             f"{uniform_share!r}.")
        grid = np.round(np.arange(MIN_UNIFORM, 1.0 + 1e-9, 0.1), 2)
        var = [_proxy_variance(s2, t * uni + (1 - t) * act) for t in grid]
        tau = float(grid[int(np.argmin(var))])
    else:
        tau = float(uniform_share)
        if not MIN_UNIFORM <= tau <= 1.0:
            raise ValueError(f"`uniform_share` must be in [{MIN_UNIFORM}, 1]; got {tau:g}.")
    pi = tau * uni + (1 - tau) * act
    v_uni = _proxy_variance(s2, uni)
    ratio = _proxy_variance(s2, pi) / v_uni if v_uni > 0 else 1.0
    lab = np.random.default_rng(rng).random(n) < pi
    total = float(s2.sum())
    v_act = _proxy_variance(s2, pi)
    equiv = n * total / (v_act + total) if total > 0 else budget
    return ActiveSampleResult(inclusion=pi, labelled=lab, judge=f, sigma2=s2,
                              budget=float(pi.sum()), uniform_share=tau,
                              variance_ratio=float(ratio), uniform_equivalent=float(equiv),
                              n_items=n)


def _tuned(a: np.ndarray, b: np.ndarray) -> float:
    vb = float(np.var(b))
    if vb <= 0:
        return 0.0
    return float(np.clip(-np.mean((a - a.mean()) * (b - b.mean())) / vb, 0.0, 1.0))


def active_core(y: np.ndarray, f: np.ndarray, xi: np.ndarray, pi: np.ndarray, *,
                tuned: bool, confidence_level: float, notes: list[str],
                result_class: type, **extra: Any) -> Any:
    """Estimate (1) over the ``N`` judge-rated items (``y`` read where ``xi``), as a PPIResult."""
    from scipy import stats

    w = np.where(xi, 1.0 / pi, 0.0)
    a = np.where(xi, y, 0.0) * w
    b = f * (1.0 - w)
    lam = _tuned(a, b) if tuned else 1.0
    t = a + lam * b
    n_all = t.size
    est = float(t.mean())
    se = math.sqrt(float(t.var(ddof=1)) / n_all)
    c_est = float(a.mean())
    c_se = math.sqrt(float(a.var(ddof=1)) / n_all)
    z = float(stats.norm.isf((1.0 - confidence_level) / 2.0))
    gain = (c_se / se) ** 2 if se > 0 else 1.0
    yl, fl = y[xi], f[xi]
    corr = (float(np.corrcoef(yl, fl)[0, 1]) if yl.size > 1 and np.ptp(yl) > 0
            and np.ptp(fl) > 0 else math.nan)
    return result_class(
        estimate=est, low=est - z * se, high=est + z * se, standard_error=se,
        confidence_level=confidence_level,
        method="active inference, inverse-probability weighted", lam=lam, classical_estimate=c_est, classical_low=c_est - z * c_se,
        classical_high=c_est + z * c_se, classical_standard_error=c_se,
        sample_size_gain=gain, effective_n=float(xi.sum()) * gain, correlation=corr,
        n_labelled=int(xi.sum()), n_unlabelled=int((~xi).sum()), weak_judge=False,
        notes=tuple(notes), strata=None, **extra)


def inclusion_of(inclusion: Any, items: pd.Index) -> np.ndarray:
    """Per item of ``items``: its inclusion probability (a Series by item, or an array)."""
    if hasattr(inclusion, "inclusion") and not isinstance(inclusion, pd.Series):
        inclusion = inclusion.inclusion  # an ActiveSampleResult
    if isinstance(inclusion, pd.Series):
        missing = items.difference(inclusion.index)
        if len(missing):
            raise ValueError(f"`inclusion` has no probability for {len(missing)} item(s), e.g. "
                             f"{list(missing[:3])}.")
        pi = inclusion.reindex(items).to_numpy(dtype=np.float64)
    else:
        pi = np.asarray(inclusion, dtype=np.float64)
        if pi.shape != (len(items),):
            raise ShapeError(f"`inclusion` needs one probability per item ({len(items)}), in "
                             f"the ratings' order (or a Series by item); got shape {pi.shape}.")
    if not ((pi > 0) & (pi <= 1)).all():
        raise ValueError("`inclusion` probabilities must be in (0, 1]: an item that could never "
                         "be drawn makes the weighted estimate biased.")
    return pi


def soft_values(scores: Any, items: pd.Index, categories: list, category: Any,
                values: np.ndarray) -> np.ndarray:
    """The judge's value per item of ``items`` from its soft scores (a judge column of scores).

    A Series or DataFrame is aligned by item (its index); an array is in the items'
    order. Per-class columns: a DataFrame's columns are the classes; an array's
    columns follow ``categories``.
    """
    if isinstance(scores, (pd.Series, pd.DataFrame)):
        missing = items.difference(scores.index)
        if len(missing):
            raise ValueError(f"`scores` has no score for {len(missing)} item(s), e.g. "
                             f"{list(missing[:3])}; give the judge's score of every item.")
        scores = scores.reindex(items)
        if isinstance(scores, pd.DataFrame):
            extra = [c for c in scores.columns if c not in categories]
            if extra:
                raise ValueError(f"`scores` columns {extra[:3]} are not labels of the ratings "
                                 f"{categories[:10]}.")
            scores = scores.reindex(columns=categories, fill_value=0.0)
    arr = scores.to_numpy(dtype=np.float64) if hasattr(scores, "to_numpy") else scores
    arr = np.asarray(arr, dtype=np.float64)
    if arr.shape[0] != len(items):
        raise ShapeError(f"`scores` needs one row per item ({len(items)}); got shape "
                         f"{arr.shape}.")
    if arr.ndim == 1:
        f, _ = judge_values(arr, name="scores")
        return f
    if category is None:
        f, _ = judge_values(arr, values=values, name="scores")
    else:
        f, _ = judge_values(arr, category=categories.index(category), name="scores")
    return f
