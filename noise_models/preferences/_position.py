"""Position bias of a judge: does the answer shown first win more often? (SPEC §11)

For each vote, ``first`` says whether the winner was the answer shown first
(``winner == "a"`` with order ``ab``, ``"b"`` with ``ba``); ties are no verdict for
either position.

* A judge run in **both orders** on a comparison sees each answer first once, so the
  answers' quality cancels: its share of decisive verdicts for the first-shown answer
  is 0.5 without bias. The estimate is that share − 0.5 over the comparisons it saw
  both ways; ``consistency`` is the share of those comparisons where its two verdicts
  name the same winner (or both a tie).
* A judge run in **one order** is compared with the humans on the same comparisons:
  the estimate is its first-position rate minus theirs (the answers' quality is the
  same for both, so a difference is the judge's preference for a position, given that
  the humans saw the answers in the same order).

Intervals: the ratio estimators' delta-method (linearised) variance with the
comparison as the cluster, normal quantiles. A judge is ``flagged`` when the interval
excludes 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.validation import ConfidenceLevel, check_params, validate_params
from noise_models.preferences._data import as_comparisons

__all__ = ["position_bias"]


def _first_won(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    o = frame["outcome"].to_numpy()
    ab = (frame["order"] == "ab").to_numpy()
    first = np.where(ab, o == 1, o == -1)
    return first.astype(np.float64), (o != 0).astype(np.float64)


def _ratio(x: np.ndarray, m: np.ndarray) -> tuple[float, np.ndarray]:
    """Σx/Σm and the per-cluster linearised values (for the delta-method variance)."""
    tot = m.sum()
    r = x.sum() / tot if tot > 0 else math.nan
    return r, (x - r * m) / tot if tot > 0 else np.zeros_like(x)


def _var(e: np.ndarray) -> float:
    n = e.size
    return float((e**2).sum() * n / (n - 1)) if n > 1 else math.nan


@validate_params(confidence_level=ConfidenceLevel())
def position_bias(comparisons: Any, *, judges: Any = None, confidence_level: float = 0.95,
                  columns: dict | None = None) -> pd.DataFrame:
    """Each judge's position bias, with an interval.

    Parameters
    ----------
    comparisons : pandas.DataFrame or Comparisons
        Votes (see :func:`as_comparisons`) with the ``order`` column where a judge saw
        both orders.
    judges : str or sequence of str, optional
        The judges; default the raters marked as judges by ``rater_kind``.
    confidence_level : float, default 0.95
    columns : dict, optional
        Column names passed to :func:`as_comparisons`.

    Returns
    -------
    pandas.DataFrame
        One row per judge: ``judge``, ``estimate`` (first-shown share − 0.5 for a judge
        in both orders; its first-position rate − the humans' for one order), ``low``,
        ``high``, ``flagged`` (the interval excludes 0), ``design`` (``"both orders"``
        or ``"one order"``), ``consistency`` (both orders; NaN otherwise),
        ``first_share`` (the judge's share of decisive verdicts for the first-shown
        answer), ``human_first_share`` (one order), ``n_comparisons``, ``n_verdicts``.

    Raises
    ------
    ValueError
        No judges, or a judge in one order only with no human votes on its comparisons.

    Examples
    --------
    >>> import pandas as pd
    >>> from noise_models.preferences import position_bias
    >>> rows = []
    >>> for u in range(40):        # picks the first-shown answer 7 times in 8
    ...     for order, winner in (("ab", "a"), ("ba", "b" if u % 4 else "a")):
    ...         rows.append((u, "x", "y", "judge", winner, order, "llm"))
    >>> df = pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "order",
    ...                                  "rater_kind"])
    >>> position_bias(df)[["judge", "estimate", "low", "high", "consistency"]].round(3)
       judge  estimate    low   high  consistency
    0  judge     0.375  0.307  0.443         0.25
    """
    check_params(position_bias, locals())
    c = as_comparisons(comparisons, judges=judges, **(columns or {}))
    fr = c.frame
    js = c.raters("judge")
    if not js:
        raise ValueError("no judges: name them with `judges` or mark them in `rater_kind`.")
    from scipy import stats

    z = float(stats.norm.isf((1.0 - float(confidence_level)) / 2.0))
    first, dec = _first_won(fr)
    units = fr["unit"].to_numpy()
    n_units = c.n_units
    is_h = (fr["rater_kind"] == "human").to_numpy()
    rows = []
    for j in js:
        mine = (fr["rater"] == j).to_numpy()
        orders = fr.loc[mine].groupby("unit")["order"].nunique()
        both = orders.index[orders == 2].to_numpy()
        row: dict[str, Any] = {"judge": j}
        if both.size:
            sel = mine & np.isin(units, both)
            row.update(_both_orders(fr, sel, both, units, first, dec, n_units, z))
        else:
            row.update(_against_humans(j, mine, is_h, units, first, dec, n_units, z))
        row["flagged"] = bool(row["low"] > 0 or row["high"] < 0)
        rows.append(row)
    cols = ["judge", "estimate", "low", "high", "flagged", "design", "consistency",
            "first_share", "human_first_share", "n_comparisons", "n_verdicts"]
    return pd.DataFrame(rows)[cols]


def _both_orders(fr: pd.DataFrame, sel: np.ndarray, both: np.ndarray, units: np.ndarray,
                 first: np.ndarray, dec: np.ndarray, n_units: int, z: float) -> dict[str, Any]:
    """A judge's row from the comparisons it saw in both orders (``both``, its verdicts
    ``sel``): its first-position share against 1/2, and how often its winner agrees."""
    x = np.bincount(units[sel], weights=first[sel], minlength=n_units)[both]
    m = np.bincount(units[sel], weights=dec[sel], minlength=n_units)[both]
    r, e = _ratio(x, m)
    se = math.sqrt(_var(e))
    sub = fr.loc[sel]
    win = np.where(sub["outcome"] == 1, sub["i"], np.where(sub["outcome"] == -1,
                                                             sub["j"], -1))
    w = pd.DataFrame({"unit": sub["unit"].to_numpy(), "order": sub["order"].to_numpy(),
                      "win": win}).groupby(["unit", "order"])["win"].first().unstack()
    cons = float((w["ab"] == w["ba"]).mean())
    return dict(estimate=r - 0.5, low=r - 0.5 - z * se, high=r - 0.5 + z * se,
                design="both orders", consistency=cons, first_share=r,
                human_first_share=math.nan, n_comparisons=int(both.size),
                n_verdicts=int(sel.sum()))


def _against_humans(j: Any, mine: np.ndarray, is_h: np.ndarray, units: np.ndarray,
                    first: np.ndarray, dec: np.ndarray, n_units: int,
                    z: float) -> dict[str, Any]:
    """A judge's row when it saw one order only (its verdicts ``mine``): its
    first-position share against the humans' on the comparisons both voted on."""
    mu = np.unique(units[mine])
    hu = np.unique(units[is_h])
    shared = np.intersect1d(mu, hu)
    if shared.size < 2:
        raise ValueError(f"judge {j!r} saw one order only and humans voted on "
                         f"{shared.size} of its comparisons: its first-position rate "
                         "has nothing to be compared with. Run it in both orders or "
                         "add human votes.")
    sj = mine & np.isin(units, shared)
    sh = is_h & np.isin(units, shared)
    xj = np.bincount(units[sj], weights=first[sj], minlength=n_units)[shared]
    mj = np.bincount(units[sj], weights=dec[sj], minlength=n_units)[shared]
    xh = np.bincount(units[sh], weights=first[sh], minlength=n_units)[shared]
    mh = np.bincount(units[sh], weights=dec[sh], minlength=n_units)[shared]
    rj, ej = _ratio(xj, mj)
    rh, eh = _ratio(xh, mh)
    se = math.sqrt(_var(ej - eh))
    d = rj - rh
    return dict(estimate=d, low=d - z * se, high=d + z * se, design="one order",
                consistency=math.nan, first_share=rj, human_first_share=rh,
                n_comparisons=int(shared.size), n_verdicts=int(sj.sum()))
