"""What :class:`~agreement.Ratings` says of itself: its counts (:meth:`Ratings.describe`),
its labels against gold (:meth:`Ratings.gold_accuracy`), and the checks of the arguments of
:meth:`Ratings.select` and :meth:`Ratings.from_export`. ``r`` is a Ratings (whose module
imports this one: no import back)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["describe", "export_options", "gold_accuracy", "rater_positions"]


def describe(r: Any) -> pd.Series:
    """The counts of :meth:`Ratings.describe`."""
    per_item = r.ratings_per_item
    rated = per_item[per_item > 0]
    two = per_item >= 2
    agreed = int(np.count_nonzero(r.agreed))
    return pd.Series({
        "n_items": r.n_items, "n_raters": r.n_raters,
        "n_categories": r.n_categories, "n_ratings": r.n_ratings,
        "ratings_per_item_min": int(rated.min()) if rated.size else 0,
        "ratings_per_item_max": int(rated.max()) if rated.size else 0,
        "ratings_per_item_mean": float(rated.mean()) if rated.size else float("nan"),
        "items_with_one_rating": int(np.count_nonzero(per_item == 1)),
        "items_with_two_or_more": int(np.count_nonzero(two)),
        "agreed_items": agreed,
        "disagreed_items": int(np.count_nonzero(two)) - agreed,
    }, dtype=object, name="ratings")


def gold_accuracy(r: Any, gold: Any) -> pd.Series:
    """The comparison of :meth:`Ratings.gold_accuracy`."""
    from _goldnoise_lib.labels import match_labels

    g = pd.Series(gold).reindex(r.items)
    codes = match_labels(np.asarray(g.to_numpy(), dtype=object), r.categories)
    known = g.notna().to_numpy()
    has = (codes >= 0) & known
    counts = r.counts
    majority = counts.argmax(axis=1)
    rated = has & (counts.sum(axis=1) > 0)
    agreed = has & rated & r.agreed
    n_rated, n_agreed = int(np.count_nonzero(rated)), int(np.count_nonzero(agreed))
    wrong = int(np.count_nonzero(majority[agreed] != codes[agreed]))
    nan = float("nan")
    share = wrong / n_agreed if n_agreed else nan
    return pd.Series({
        "items_with_gold": int(np.count_nonzero(has)),
        "unknown_gold": int(np.count_nonzero(known & ~has)),
        "majority_items": n_rated,
        "majority_accuracy": (float(np.mean(majority[rated] == codes[rated])) if n_rated
                              else nan),
        "unanimous_items": n_agreed, "unanimous_wrong": wrong,
        "unanimous_wrong_share": share,
        "unanimous_accuracy": 1 - wrong / n_agreed if n_agreed else nan,
    }, dtype=object, name="gold")


def rater_positions(raters: npt.ArrayLike, n_raters: int) -> npt.NDArray[np.intp]:
    """The rater columns :meth:`Ratings.select` keeps, as positions (checked)."""
    sel = np.asarray(raters)
    if sel.dtype == np.bool_:
        if sel.shape != (n_raters,):
            raise IndexError(f"`raters` as a mask must have one value per rater column "
                             f"({n_raters}); got shape {sel.shape}.")
        idx = np.flatnonzero(sel)
    elif sel.size == 0 or np.issubdtype(sel.dtype, np.integer):
        idx = np.atleast_1d(sel).astype(np.intp)
        if ((idx < -n_raters) | (idx >= n_raters)).any():
            raise IndexError(f"`raters` positions must be in range(-{n_raters}, "
                             f"{n_raters}); got {sel.tolist()}.")
    else:
        raise TypeError("`raters` must be rater column positions (integers) or a "
                        f"boolean mask; got values of dtype {sel.dtype}.")
    return idx


def export_options(tool: str, item: Hashable | None, label: Hashable | None) -> dict[str, Any]:
    """The reader options of :meth:`Ratings.from_export` for ``tool`` (checked)."""
    options: dict[str, Any] = {}
    if tool == "mturk":
        options = {"item": item, "label": label}
    elif tool == "labelstudio":
        if item is not None:
            raise ValueError("`item` applies to MTurk files; Label Studio's items are its "
                             "task ids.")
        options = {"control": label}
    elif item is not None or label is not None:
        raise ValueError("`item` and `label` apply to MTurk and Label Studio exports, "
                         "not to Prodigy's (its answers name them).")
    return options
