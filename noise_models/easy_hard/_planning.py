"""Planning: how many annotators to hire for a target noise bound (SPEC §2.6).

With ``e`` easy and ``h = n − e`` hard items, ``k`` annotators agree on every
easy item and on a hard item with probability ``p(k)``, so about
``e + h·p(k)`` items are agreed on and ``h·(1 − p(k))`` disagreed on; the
bound γ of that outcome falls as ``p(k)`` falls with every annotator added
(Beigman Klebanov & Beigman 2009, §5.3).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    Count,
    Probability,
    check_alpha,
    check_count,
    check_params,
    check_probability,
    check_shares,
    validate_params,
)
from agreement import DegenerateDataWarning
from noise_models.easy_hard._bound import gamma_of

__all__ = ["AnnotatorsNeededResult", "annotators_needed"]


@dataclass(frozen=True, repr=False)
class AnnotatorsNeededResult(Result):
    """How many annotators a target noise bound needs.

    Attributes
    ----------
    n_raters : int or None
        The smallest k (>= 2) whose expected outcome has ``γ <= gamma``;
        None when no k up to ``max_raters`` meets the target.
    table : pandas.DataFrame
        One row per k = 2..max_raters: ``k``, ``p`` (chance agreement
        p(k)), ``expected_agreed`` (e + h·p(k)), ``expected_disagreed``
        (its complement, rounded to a whole number of items), ``gamma`` (the
        bound at that outcome; NaN, with a warning, when no item is expected
        to be agreed on), ``meets_target`` and ``annotations`` (n·k).
    n : int
        Items.
    easy_items : float
        Expected easy items ``e``.
    gamma : float
        The target.
    alpha : float
        The paper's confidence α.
    notes : tuple of str
        Where the table stops early (``trim=True``) and why.

    ``to_frame()``: one row per k = 2..max_raters (the :attr:`table`).
    """
    _omit = _table = "table"

    n_raters: int | None
    table: pd.DataFrame
    n: int
    easy_items: float
    gamma: float
    alpha: float
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        if self.n_raters is None:
            head = f"no k <= {int(self.table['k'].max())} meets gamma <= {self.gamma:g}"
        else:
            row = self.table.loc[self.table["k"] == self.n_raters].iloc[0]
            head = (f"n_raters={self.n_raters} (expected gamma {row['gamma']:.4f} <= "
                    f"{self.gamma:g}, {int(row['annotations'])} annotations)")
        return (f"AnnotatorsNeededResult({head}; n={self.n}, easy items {self.easy_items:g}, "
                f"alpha={self.alpha:g})")


def _p_of_k(category_shares: Any, rater_shares: Any, max_raters: int) -> tuple[np.ndarray, int]:
    """p(k) for k = 2..K, and K (max_raters, or fewer annotators in ``rater_shares``)."""
    if category_shares is not None and rater_shares is not None:
        raise TypeError("give `category_shares` (one coin for everyone) or `rater_shares` "
                        "(one row per annotator), not both.")
    if rater_shares is not None:
        arr = np.asarray(rater_shares.to_numpy() if isinstance(rater_shares, pd.DataFrame)
                         else rater_shares)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"`rater_shares` must hold numbers; got dtype {arr.dtype}.")
        arr = arr.astype(np.float64)
        if arr.ndim != 2 or arr.shape[0] < 2:
            raise ValueError("`rater_shares` must be 2-D (annotators in hiring order × "
                             f"categories) with at least two rows; got shape {arr.shape}.")
        rows = np.stack([check_shares(row, f"rater_shares[{j}]") for j, row in enumerate(arr)])
        k_max = min(max_raters, rows.shape[0])
        # p(k) = Σ_c Π_{j<=k} q[j, c] with the first k annotators hired.
        prods = np.cumprod(rows[:k_max], axis=0)
        return np.minimum(prods.sum(axis=1)[1:], 1.0), k_max
    shares = np.array([0.5, 0.5]) if category_shares is None else check_shares(
        category_shares, "category_shares")
    ks = np.arange(2, max_raters + 1)
    return np.minimum((shares[None, :] ** ks[:, None]).sum(axis=1), 1.0), max_raters


@validate_params(n=Count(1), easy_fraction=Probability(optional=True), gamma=Probability(), alpha=Alpha(),
                 max_raters=Count(2))
def annotators_needed(n: Any, *, easy_fraction: Any = None, kappa: Any = None,
                      category_shares: Any = None, rater_shares: Any = None, gamma: Any,
                      alpha: float = 0.95, max_raters: int = 20,
                      trim: bool = False) -> AnnotatorsNeededResult:
    """Smallest number of annotators whose agreed subset meets a target noise bound (SPEC §2.6).

    Parameters
    ----------
    n : int
        Items to annotate.
    easy_fraction : float, optional
        Expected share of easy items, in [0, 1].
    kappa : float, optional
        A pilot κ, read as the easy fraction (SPEC §2.5; negative κ counts as 0).
        Give ``easy_fraction`` or ``kappa``.
    category_shares : array_like, optional
        Hard-item label distribution shared by all annotators: ``p(k) = Σ_c q_c^k``.
        Default (with no ``rater_shares``): two equiprobable categories.
    rater_shares : array_like, shape (n_annotators, n_categories), optional
        One hard-item label distribution per annotator, in hiring order:
        ``p(k) = Σ_c Π_{j<=k} q[j, c]``; k stops at the number of rows.
    gamma : float
        Target noise bound of the agreed subset, in [0, 1].
    alpha : float, default 0.95
        The paper's confidence α of the bound.
    max_raters : int, default 20
        Largest k to consider (>= 2).
    trim : bool, default False
        Stop the table at the first k at which fewer than half a hard item is
        expected to agree by chance (``h·p(k) < 1/2``): from there on more
        annotators change the expected outcome by less than an item, and only the
        cost grows. ``notes`` says where and why when it stops before
        ``max_raters``.

    Returns
    -------
    AnnotatorsNeededResult
        ``n_raters`` (None if unmet) and the per-k ``table``.

    Raises
    ------
    TypeError
        If not exactly one of ``easy_fraction``/``kappa`` is given, or both
        share arguments.
    ValueError
        If a value is out of range.

    Notes
    -----
    For each k the outcome evaluated is the expected one: ``e + h·p(k)``
    agreed items, rounded to the nearest whole number (the paper's "most
    likely" count: the mode of the Binomial(h, p(k)) number of agreed hard
    items is within one of its mean), and γ is :func:`noise_bound` of that
    outcome with the uniform prior. The annotation cost is ``n·k``.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503, §5.3.
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    The paper's §5.3: 800 easy items of 1000; a third annotator (p = 0.25)
    gives about 850 agreed items.

    >>> from noise_models import annotators_needed
    >>> plan = annotators_needed(1000, easy_fraction=0.8, gamma=0.05, max_raters=5)
    >>> plan.n_raters
    4
    >>> plan.table[["k", "p", "expected_agreed", "gamma"]].round(4)
       k       p  expected_agreed   gamma
    0  2  0.5000            900.0  0.1389
    1  3  0.2500            850.0  0.0753
    2  4  0.1250            825.0  0.0412
    3  5  0.0625            812.5  0.0234
    """
    check_params(annotators_needed, locals())
    n = check_count(n, "n", minimum=1)
    e_frac = _easy_fraction(easy_fraction, kappa)
    target = check_probability(gamma, "gamma")
    alpha = check_alpha(alpha)
    max_raters = check_count(max_raters, "max_raters", minimum=2)
    if not isinstance(trim, (bool, np.bool_)):
        raise TypeError(f"`trim` must be True or False; got {trim!r}.")
    p_k, k_max = _p_of_k(category_shares, rater_shares, max_raters)
    easy = e_frac * n
    notes: tuple[str, ...] = ()
    if trim:
        p_k, k_max, notes = _trimmed(p_k, k_max, n - easy)
    table = _table(n, easy, p_k, k_max, alpha, target)
    hits = table.loc[table["meets_target"], "k"]
    n_raters = int(hits.iloc[0]) if len(hits) else None
    return AnnotatorsNeededResult(n_raters=n_raters, table=table, n=n, easy_items=easy,
                                  gamma=target, alpha=alpha, notes=notes)


def _easy_fraction(easy_fraction: Any, kappa: Any) -> float:
    """The share of easy items: ``easy_fraction``, or κ read as it (negative κ: none)."""
    if (easy_fraction is None) == (kappa is None):
        raise TypeError("give exactly one of `easy_fraction` or `kappa`.")
    if easy_fraction is not None:
        return check_probability(easy_fraction, "easy_fraction")
    if isinstance(kappa, bool) or not isinstance(kappa, (int, float, np.number)):
        raise TypeError(f"`kappa` must be a number; got {kappa!r}.")
    kv = float(kappa)
    if not (math.isfinite(kv) and -1.0 <= kv <= 1.0):
        raise ValueError(f"`kappa` must be in [-1, 1]; got {kappa!r}.")
    return max(kv, 0.0)


def _trimmed(p_k: np.ndarray, k_max: int, hard: float
             ) -> tuple[np.ndarray, int, tuple[str, ...]]:
    """The table cut where fewer than half of the ``hard`` items are expected to agree by
    chance (more annotators change nothing there), with its note; else unchanged."""
    useless = np.flatnonzero(hard * p_k < 0.5)
    if useless.size and useless[0] + 2 < k_max:
        k_max = int(useless[0]) + 2
        return p_k[:k_max - 1], k_max, (
            f"the table stops at k = {k_max}: from there on fewer than half a hard item is "
            "expected to agree by chance, so more annotators change nothing but the cost",)
    return p_k, k_max, ()


def _table(n: int, easy: float, p_k: np.ndarray, k_max: int, alpha: float,
           target: float) -> pd.DataFrame:
    """One row per number of annotators ``k = 2, ..., k_max`` (``p_k[k - 2]`` the chance
    that a hard item is agreed on): the expected agreed items and the bound γ they give."""
    hard = n - easy
    rows = []
    for k, p in zip(range(2, k_max + 1), p_k, strict=True):
        agreed = easy + hard * p
        d = n - math.floor(agreed + 0.5)
        if d >= n:
            g = math.nan
            warnings.warn(
                f"with k = {k} no item is expected to be agreed on, so there is no gold "
                "standard to bound; its γ is NaN.", DegenerateDataWarning, stacklevel=3)
        else:
            g = gamma_of(n, max(d, 0), float(p), alpha)
        rows.append({"k": k, "p": float(p), "expected_agreed": agreed, "expected_disagreed": d,
                     "gamma": g, "meets_target": g <= target, "annotations": n * k})
    return pd.DataFrame(rows)
