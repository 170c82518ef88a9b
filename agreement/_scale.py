"""Ratings on a numeric scale as an items × annotators matrix of numbers.

The coefficients of rating scales (the intraclass correlations, Lin's concordance
correlation, Kendall's W) read numbers, not categories. A numeric array or a
DataFrame of numbers is taken as it is (continuous measurements need no coding);
anything else goes through :func:`agreement.as_ratings` and must have numeric
labels. Missing ratings are handled by listwise deletion, the convention of R's
``psych::ICC`` (without ``lmer``), ``irr::icc`` and pingouin's ``nan_policy="omit"``:
annotators with no rating at all are dropped first, then every item that misses
a rating of a remaining annotator, and the result's notes count both.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from agreement._ratings import Ratings, as_ratings

__all__ = ["ScaleMatrix", "is_numeric_scale", "listwise", "ratings_values", "scale_matrix",
           "scale_numbers", "slot_matrix"]


class ScaleMatrix(NamedTuple):
    """The complete items × annotators numbers, and what listwise deletion dropped."""

    values: np.ndarray  # float64 (n, k), no NaN
    raters: list[str]
    n_dropped_items: int
    notes: tuple[str, ...]


def is_numeric_scale(r: Ratings) -> bool:
    """Whether the labels are numbers (not categories given the order 1..m)."""
    cats = r.categories
    if cats.dtype.kind in "iuf":
        return True
    if any(isinstance(v, (str, bool, np.bool_)) for v in cats):
        return False
    return not pd.to_numeric(pd.Series(cats, dtype=object), errors="coerce").isna().any()


def ratings_values(r: Ratings, what: str) -> np.ndarray:
    """The numbers of the ratings (n, k), NaN where missing; a clear error for labels."""
    codes = r.require_raters(what)
    if not is_numeric_scale(r):
        raise ValueError(
            f"{what} needs numeric ratings; these labels are {list(r.categories)[:5]}"
            f"{' ...' if r.n_categories > 5 else ''}. Recode them as numbers (e.g. 1..5) "
            "or use krippendorff_alpha(level='ordinal').")
    vals = np.asarray(r.category_values, dtype=np.float64)
    return np.where(codes >= 0, vals[np.maximum(codes, 0)], np.nan)


def scale_numbers(ratings: Any, what: str) -> tuple[np.ndarray, list[str]]:
    """The ratings as an items × annotators matrix of numbers (NaN: missing) and the
    annotators' names; a clear error for labels that are not numbers."""
    if isinstance(ratings, pd.DataFrame) and len(ratings.columns) and all(
            ratings[c].dtype.kind in "iuf" for c in ratings.columns):
        return (ratings.to_numpy(dtype=np.float64, na_value=np.nan),
                [str(c) for c in ratings.columns])
    if isinstance(ratings, np.ndarray) and ratings.dtype.kind in "iuf":
        if ratings.ndim != 2:
            raise ValueError(f"{what} needs an items × annotators array; got "
                             f"{ratings.ndim} dimension(s).")
        return ratings.astype(np.float64), [str(j) for j in range(ratings.shape[1])]
    r = as_ratings(ratings)
    return ratings_values(r, what), [str(x) for x in r.raters]


def scale_matrix(ratings: Any, what: str, *, min_raters: int = 2) -> ScaleMatrix:
    """The complete numbers of ``ratings`` after listwise deletion (module docstring).

    Raises a one-line ValueError for non-numeric labels, infinite values, fewer than
    ``min_raters`` annotators with ratings, or fewer than two complete items.
    """
    return listwise(*scale_numbers(ratings, what), what, min_raters=min_raters)


def listwise(x: np.ndarray, raters: list[str], what: str, *,
             min_raters: int = 2) -> ScaleMatrix:
    """:func:`scale_matrix` of numbers already read (:func:`scale_numbers`)."""
    if np.isinf(x).any():
        raise ValueError(f"{what} needs finite ratings; these contain ±inf.")
    notes = []
    seen = ~np.isnan(x).all(axis=0)
    if not seen.all():
        gone = [raters[j] for j in np.flatnonzero(~seen)]
        notes.append(f"{len(gone)} annotator(s) without a rating left out: {gone[:5]}")
        x, raters = x[:, seen], [raters[j] for j in np.flatnonzero(seen)]
    if x.shape[1] < min_raters:
        raise ValueError(f"{what} needs at least {min_raters} annotators with ratings; got "
                         f"{x.shape[1]}. Add the other annotators' columns.")
    rated = ~np.isnan(x).all(axis=1)
    complete = ~np.isnan(x).any(axis=1)
    dropped = int(np.count_nonzero(rated & ~complete))
    if dropped:
        notes.append(f"{dropped} item(s) with a missing rating left out (listwise deletion); "
                     f"{int(complete.sum())} complete items used")
    rated_twice = int(np.count_nonzero((~np.isnan(x)).sum(axis=1) >= 2))
    x = x[complete]
    if x.shape[0] < 2:
        crowd = (f" ({rated_twice} items have two or more ratings: when each item has "
                 "annotators of its own, as on crowd platforms, use Krippendorff's alpha at "
                 "the interval level, which takes any design, or with the same number of "
                 "ratings on every item the one-way ICC, icc(form='ICC1'))"
                 ) if rated_twice >= 2 else ""
        raise ValueError(f"{what} needs at least 2 items rated by every annotator; got "
                         f"{x.shape[0]}. Listwise deletion keeps only complete items: leave "
                         f"out the annotators who rated few items{crowd}.")
    return ScaleMatrix(np.ascontiguousarray(x), raters, dropped, tuple(notes))


def slot_matrix(x: np.ndarray) -> ScaleMatrix | None:
    """A crowd design's ratings as items × *slots* (an item's first, second, ... rating),
    for the forms that do not read who rated (the one-way ICCs): when every item with a
    rating has the same number k ≥ 2 of them, from annotators of its own (at most one item
    rated by every annotator). Every item keeps its row (an unrated one: NaN). None for any
    other design. ``x``: the numbers (:func:`scale_numbers`)."""
    if np.isinf(x).any():
        return None
    per_item = (~np.isnan(x)).sum(axis=1)
    rated = per_item > 0
    k = int(per_item.max(initial=0))
    complete = int(np.count_nonzero(per_item == x.shape[1]))
    if k < 2 or complete >= 2 or np.any(per_item[rated] != k) or np.count_nonzero(rated) < 2:
        return None
    slots = np.full((x.shape[0], k), np.nan)  # an unrated item: a row of NaN
    rows = x[rated]
    slots[rated] = rows[~np.isnan(rows)].reshape(len(rows), k)  # each row's k values, in order
    note = (f"each item has {k} ratings from annotators of its own ({x.shape[1]} in all): "
            f"the one-way forms (ICC1, ICC1k with k = {k}) are computed on the items' "
            "ratings, which do not say who rated; the two-way forms need annotators crossed "
            "with items and are left out")
    return ScaleMatrix(np.ascontiguousarray(slots), [f"rating {j + 1}" for j in range(k)],
                       0, (note,))
