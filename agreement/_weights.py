"""Agreement weights for the weighted coefficients (Gwet 2014, ch. 3).

A weight ``w[c, l]`` in ``[0, 1]`` is the credit two ratings ``c`` and ``l``
earn as agreement: 1 on the diagonal, less the further apart the categories
are. ``weights=None`` is the nominal (identity) case. The named weights are
those of Gwet's irrCAC (its ``*.weights`` functions), computed from the
categories' numeric values (``Ratings.category_values``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from _goldnoise_lib.errors import ShapeError
from agreement._ratings import Ratings

__all__ = ["WEIGHT_NAMES", "Weights", "named_weights", "weight_matrix"]

WEIGHT_NAMES = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular",
                "bipolar")
_ALLOWED = ("None, one of 'identity', 'linear', 'quadratic', 'ordinal', 'radical', 'ratio', "
            "'circular', 'bipolar', or an m × m matrix")


class Weights(NamedTuple):
    """A validated weight matrix and how to report it."""

    matrix: np.ndarray  # (m, m) float64, C order, read-only
    name: str | None  # None (identity), a name of WEIGHT_NAMES, or "custom"
    weighted: bool  # False when the matrix is the identity (fast nominal path)
    notes: tuple[str, ...]
    symmetric: bool = True  # False only for a user matrix that is not symmetric


def named_weights(name: str, values: npt.ArrayLike) -> np.ndarray:
    """Gwet's (2014, ch. 3) named agreement weights over category values.

    Parameters
    ----------
    name : str
        One of ``WEIGHT_NAMES``.
    values : array_like, shape (m,)
        The categories' numeric values (their order 1..m for non-numeric
        labels), in category order.

    Returns
    -------
    ndarray, shape (m, m)
        ``w[c, l]``, 1 on the diagonal, in ``[0, 1]``: the formulas of irrCAC's
        ``*.weights`` functions, with ``x_min`` and ``x_max`` the smallest and
        largest category value:

        * identity: ``[c = l]``;
        * linear: ``1 − |x_c − x_l| / (x_max − x_min)``;
        * quadratic: ``1 − (x_c − x_l)² / (x_max − x_min)²``;
        * ordinal: ``1 − M_cl / max M`` with ``M_cl = n_cl (n_cl − 1) / 2`` and
          ``n_cl = |rank_c − rank_l| + 1`` (ranks of the values: only the order
          counts). These are Gwet's ordinal weights, not Krippendorff's ordinal
          metric, which depends on the observed marginals;
        * radical: ``1 − √|x_c − x_l| / √(x_max − x_min)``;
        * ratio: ``1 − ((x_c − x_l)/(x_c + x_l))² / ((x_max − x_min)/(x_max + x_min))²``
          (values must be ≥ 0; ``0/0`` counts as 0);
        * circular: ``1 − d_cl / max d`` with ``d_cl = sin²(π (x_c − x_l) / U)``,
          ``U = x_max − x_min + 1``;
        * bipolar: ``1 − d_cl / max d`` with ``d_cl = (x_c − x_l)² / ((x_c + x_l −
          2 x_min)(2 x_max − x_c − x_l))`` off the diagonal and 0 on it.

        With one category, or all values equal, every weight is 1.

    Raises
    ------
    ValueError
        For ``"ratio"`` with a negative category value.

    Examples
    --------
    >>> named_weights("ordinal", [1, 2, 3]).round(4).tolist()
    [[1.0, 0.6667, 0.0], [0.6667, 1.0, 0.6667], [0.0, 0.6667, 1.0]]
    >>> named_weights("circular", [1, 2, 3, 4]).round(4).tolist()[0]
    [1.0, 0.5, 0.0, 0.5]
    """
    x = np.asarray(values, dtype=np.float64)
    m = x.size
    if name == "identity":
        return np.eye(m)
    lo, hi = (float(x.min()), float(x.max())) if m else (0.0, 0.0)
    span = hi - lo
    if span == 0.0:
        return np.ones((m, m))
    diff = x[:, None] - x[None, :]
    if name == "linear":
        return 1.0 - np.abs(diff) / span
    if name == "quadratic":
        return 1.0 - (diff / span) ** 2
    if name == "radical":
        return 1.0 - np.sqrt(np.abs(diff)) / np.sqrt(span)
    if name == "ratio":
        if lo < 0:
            raise ValueError(
                "`weights='ratio'` needs non-negative category values (a ratio scale has an "
                f"absolute zero); the smallest value is {lo:g}. Use 'quadratic' or 'linear', "
                "or shift the labels."
            )
        tot = x[:, None] + x[None, :]
        d = np.divide(diff, tot, out=np.zeros_like(tot), where=tot != 0) ** 2
        return 1.0 - d / ((span / (hi + lo)) ** 2)
    if name == "ordinal":
        rank = np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(np.float64)
        nkl = np.abs(rank[:, None] - rank[None, :]) + 1.0
        d = nkl * (nkl - 1.0) / 2.0
    elif name == "circular":
        d = np.sin(np.pi * diff / (span + 1.0)) ** 2
    else:  # bipolar
        tot = x[:, None] + x[None, :]
        den = (tot - 2.0 * lo) * (2.0 * hi - tot)
        off = ~np.eye(m, dtype=bool)
        d = np.zeros((m, m))
        np.divide(diff ** 2, den, out=d, where=off & (den != 0))
    np.fill_diagonal(d, 0.0)
    top = d.max()
    return 1.0 - d / top if top > 0 else np.ones((m, m))


def weight_matrix(weights: Any, ratings: Ratings, *, allow_asymmetric: bool = False) -> Weights:
    """Validate ``weights`` for ``ratings`` and return the weight matrix.

    Parameters
    ----------
    weights : None, str or array_like, shape (m, m)
        ``None`` gives the identity (nominal agreement). A name of
        ``WEIGHT_NAMES`` gives :func:`named_weights` over
        ``ratings.category_values`` (the labels' numeric values, or their
        declared order ``1..m``), spanning the declared categories. A matrix
        must hold values in ``[0, 1]``, have ones on its diagonal and be
        symmetric (unless ``allow_asymmetric``); its rows and columns follow
        ``ratings.categories``.
    ratings : Ratings
    allow_asymmetric : bool, default False
        Accept a non-symmetric matrix (Cohen's κ only: rows are the first
        annotator's categories, columns the second's).

    Returns
    -------
    Weights

    Raises
    ------
    TypeError
        If ``weights`` is neither None, a string nor a numeric matrix.
    ValueError
        If the string is unknown or the matrix is not a valid weight matrix
        (:class:`~agreement.ShapeError` for a wrong shape).

    Examples
    --------
    >>> from agreement import Ratings
    >>> r = Ratings.from_wide([[1, 2], [3, 3]])
    >>> weight_matrix("linear", r).matrix
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0.5],
           [0. , 0.5, 1. ]])
    """
    m = ratings.n_categories
    notes: tuple[str, ...] = ()
    symmetric = True
    if weights is None:
        w = np.eye(m)
        name = None
    elif isinstance(weights, str):
        if weights not in WEIGHT_NAMES:
            raise ValueError(f"`weights` must be {_ALLOWED}; got {weights!r}.")
        values = np.asarray(ratings.category_values, dtype=np.float64)
        w = named_weights(weights, values)
        name = None if weights == "identity" else weights
        if weights != "identity":
            shown = ", ".join(f"{c}={v:g}" for c, v in zip(ratings.categories[:8], values[:8],
                                                          strict=False))
            more = ", ..." if m > 8 else ""
            notes = (f"{weights} weights over the category values {shown}{more}",)
            if not ratings.ordered:
                notes += (f"{weights} weights on unordered labels use their sorted order "
                          f"1..{m}; pass `categories=` to Ratings to declare the order",)
    elif isinstance(weights, (bytes, bool, int, float, dict, set)) or weights is ...:
        raise TypeError(f"`weights` must be {_ALLOWED}; got {type(weights).__name__}.")
    else:
        raw = weights.to_numpy() if isinstance(weights, pd.DataFrame) else np.asarray(weights)
        if raw.dtype.kind not in "iufb":
            raise TypeError(
                f"`weights` must be {_ALLOWED}; got an array of dtype {raw.dtype}."
            )
        if raw.shape != (m, m):
            raise ShapeError(
                f"`weights` must be a {m} × {m} matrix (one row and column per category, "
                f"in the order of `ratings.categories`); got shape {raw.shape}."
            )
        w = raw.astype(np.float64)
        if not np.all(np.isfinite(w)):
            raise ValueError("`weights` must be finite (no NaN or inf).")
        if np.any(w < 0) or np.any(w > 1):
            raise ValueError(
                "`weights` must hold agreement credits in [0, 1]; for disagreement weights "
                "v, pass 1 - v / v.max()."
            )
        if not np.all(np.diag(w) == 1.0):
            raise ValueError("`weights` must have ones on its diagonal (identical ratings agree).")
        symmetric = bool(np.allclose(w, w.T, rtol=0, atol=1e-12))
        if not symmetric and not allow_asymmetric:
            raise ValueError(
                "`weights` must be symmetric for this coefficient: the credit of two ratings "
                "cannot depend on which annotator gave which when annotators are "
                "exchangeable. Only `cohen_kappa` (two named annotators) accepts a "
                "non-symmetric matrix."
            )
        if symmetric:
            w = (w + w.T) / 2.0
        name = "custom"
    w = np.ascontiguousarray(w, dtype=np.float64)
    w.setflags(write=False)
    weighted = not np.array_equal(w, np.eye(m))
    return Weights(w, name, weighted, notes, symmetric)
