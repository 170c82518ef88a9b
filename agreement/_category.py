"""Per-category κ: each category against all the others (Fleiss 1971)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import DegenerateDataWarning
from agreement._ratings import Ratings, as_ratings

__all__ = ["category_kappas"]


def _category_kappas_iv(ratings: Any) -> tuple[Ratings, np.ndarray, np.ndarray]:
    r = as_ratings(ratings)
    a = np.asarray(r.counts, dtype=np.float64)
    per_item = a.sum(axis=1)
    pairable = per_item >= 2
    if not pairable.any():
        raise ValueError(
            "`category_kappas`: no item has two or more ratings, so there is no observed "
            "agreement. Agreement needs at least two ratings of some item."
        )
    return r, a[pairable], per_item[pairable]


def category_kappas(ratings: Any) -> pd.DataFrame:
    """κ of each category against the rest, with its SE under H0 and z (Fleiss 1971).

    Parameters
    ----------
    ratings : Ratings or array_like, shape (n_items, n_raters)
        Wide data or a count table (:meth:`Ratings.from_counts`); annotator
        identity is not needed.

    Returns
    -------
    pandas.DataFrame
        One row per category: ``category``, ``kappa`` (κ_j), ``standard_error``
        (under H0: κ_j = 0), ``z`` and ``p_value`` (two-sided, normal).

    Warns
    -----
    DegenerateDataWarning
        When items carry unequal numbers of ratings (the variance under H0
        assumes the same number on every item): SE, z and p are NaN. Also
        for a category nobody or everybody used (κ_j NaN).

    Notes
    -----
    Over the ``N`` items with ``r_i ≥ 2`` ratings, ``a_ij`` of them in
    category ``j``, ``p_j = Σ_i a_ij / Σ_i r_i`` and ``q_j = 1 − p_j``
    (Fleiss 1971, eq. 14; Fleiss, Nee & Landis 1979):

        κ_j = 1 − Σ_i a_ij (r_i − a_ij) / (p_j q_j Σ_i r_i (r_i − 1)),

    which with ``n`` ratings on every item is Fleiss' ``1 − Σ_i a_ij (n − a_ij)
    / (N n (n − 1) p_j q_j)``, and ``var₀(κ_j) = 2 / (N n (n − 1))``.
    Fleiss' κ itself is the ``p_j q_j``-weighted mean of the κ_j.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin* 76(5), 378–382. https://doi.org/10.1037/h0031619

    Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance
    of kappa in the case of different sets of raters. *Psychological
    Bulletin* 86(5), 974–977. https://doi.org/10.1037/0033-2909.86.5.974

    Examples
    --------
    >>> from agreement import category_kappas
    >>> table = category_kappas([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2]])
    >>> table[["category", "kappa"]].round(4).to_numpy().tolist()
    [[1.0, 0.3333], [2.0, 0.3333]]
    """
    r, a, per_item = _category_kappas_iv(ratings)
    total = per_item.sum()
    p = a.sum(axis=0) / total
    pq = p * (1.0 - p)
    disagree = (a * (per_item[:, None] - a)).sum(axis=0)
    pairs = float((per_item * (per_item - 1.0)).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(pq > 0, 1.0 - disagree / (pq * pairs), np.nan)
    equal = per_item.min() == per_item.max()
    if equal:
        n_items, n = float(a.shape[0]), float(per_item[0])
        se = np.full(kappa.shape, math.sqrt(2.0 / (n_items * n * (n - 1.0))))
    else:
        se = np.full(kappa.shape, np.nan)
        warnings.warn(
            "the variance of κ_j under H0 (Fleiss, Nee & Landis 1979) assumes the same number "
            f"of ratings on every item; these items have {int(per_item.min())} to "
            f"{int(per_item.max())}. SE, z and p are NaN.", DegenerateDataWarning, stacklevel=2)
    if not np.all(pq > 0):
        unused = [c.item() if hasattr(c, "item") else c for c in r.categories[pq <= 0]]
        warnings.warn(
            f"κ_j is undefined (NaN) for categories no pairable rating or every pairable "
            f"rating used: {unused}.", DegenerateDataWarning, stacklevel=2)
    z = kappa / se
    from scipy import stats
    pval = 2.0 * stats.norm.sf(np.abs(z))
    return pd.DataFrame({
        "category": list(r.categories), "kappa": kappa, "standard_error": se, "z": z,
        "p_value": pval,
    })
