"""Agreement weights for the weighted coefficients (Gwet 2014, ch. 3).

A weight ``w[c, l]`` in ``[0, 1]`` is the credit two ratings ``c`` and ``l``
earn as agreement: 1 on the diagonal, less the further apart the categories
are. ``weights=None`` is the nominal (identity) case.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from agreement._errors import ShapeError
from agreement._ratings import Ratings

__all__ = ["WEIGHT_NAMES", "Weights", "weight_matrix"]

WEIGHT_NAMES = ("linear", "quadratic")
_ALLOWED = "None, 'linear', 'quadratic' or an m × m matrix"


class Weights(NamedTuple):
    """A validated weight matrix and how to report it."""

    matrix: np.ndarray  # (m, m) float64, C order, read-only
    name: str | None  # None (identity), "linear", "quadratic" or "custom"
    weighted: bool  # False when the matrix is the identity (fast nominal path)
    notes: tuple[str, ...]


def _named(name: str, values: np.ndarray) -> np.ndarray:
    # Gwet (2014), Table 3.5: linear 1 − |c − l|/(max − min),
    # quadratic 1 − (c − l)²/(max − min)², over the categories' values.
    diff = np.abs(values[:, None] - values[None, :])
    span = float(values.max() - values.min()) if values.size else 0.0
    if span == 0.0:
        return np.ones((values.size, values.size))
    if name == "linear":
        return 1.0 - diff / span
    return 1.0 - (diff / span) ** 2


def weight_matrix(weights: Any, ratings: Ratings) -> Weights:
    """Validate ``weights`` for ``ratings`` and return the weight matrix.

    Parameters
    ----------
    weights : None, {"linear", "quadratic"} or array_like, shape (m, m)
        ``None`` gives the identity (nominal agreement). The named weights use
        ``ratings.category_values`` (the labels' numeric values, or their
        declared order ``1..m``) and span the declared categories. A matrix
        must be symmetric, hold values in ``[0, 1]`` and have ones on its
        diagonal; its rows and columns follow ``ratings.categories``.
    ratings : Ratings

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
    if weights is None:
        w = np.eye(m)
        name = None
    elif isinstance(weights, str):
        if weights not in WEIGHT_NAMES:
            raise ValueError(f"`weights` must be {_ALLOWED}; got {weights!r}.")
        w = _named(weights, np.asarray(ratings.category_values, dtype=np.float64))
        name = weights
        if not ratings.ordered:
            notes = (f"{weights} weights on unordered labels use their sorted order 1..{m}; "
                     "pass `categories=` to Ratings to declare the order",)
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
        if not np.allclose(w, w.T, rtol=0, atol=1e-12):
            raise ValueError(
                "`weights` must be symmetric: the credit of two ratings does not depend on "
                "which annotator gave which."
            )
        w = (w + w.T) / 2.0
        name = "custom"
    w = np.ascontiguousarray(w, dtype=np.float64)
    w.setflags(write=False)
    weighted = not np.array_equal(w, np.eye(m))
    return Weights(w, name, weighted, notes)
