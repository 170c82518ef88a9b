"""Chance agreement on a hard item (SPEC §2.1).

On a hard item every annotator draws a label from their own distribution
``q[j, c]``, so all of them agree with probability ``p = Σ_c Π_j q[j, c]``
(Beigman Klebanov & Beigman 2009, §2; for two categories
``Π_j q_j + Π_j (1 − q_j)``). ``q`` is estimated as the share of the
disagreed items — the items known to be hard — that annotator ``j`` put in
category ``c`` (the paper's footnote 3).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import check_count, check_shares
from agreement import EstimationWarning, Ratings, as_ratings

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_kernels = lazy_module("noise_models.easy_hard._kernels")

__all__ = ["ChanceAgreementResult", "chance_agreement"]


@dataclass(frozen=True, repr=False)
class ChanceAgreementResult(Result):
    """Chance agreement ``p`` of the annotators on a hard item.

    Attributes
    ----------
    p : float
        The chance agreement. With every item rated by the same annotators it
        is the one ``p`` of the model; with missing ratings it is the mean of
        :attr:`p_items` over the items with two or more ratings.
    p_items : ndarray of float, shape (n_items,), or None
        Per item ``p_i`` (over the annotators who rated item i); NaN for items
        with fewer than two ratings, which cannot show a disagreement. None
        unless computed from ratings.
    q : pandas.DataFrame or None
        Hard-item label distributions: one row per annotator (or a single
        ``"pooled"`` row), one column per category.
    n_items : int
        Items with two or more ratings (the items the model can use).
    n_disagreed : int
        Of those, the items on which the annotators disagreed (``d``).
    disagreed : ndarray of bool, shape (n_items,), or None
        Which items were disagreed on (from ratings only).
    eligible : ndarray of bool, shape (n_items,), or None
        Which items have two or more ratings (from ratings only).
    n_raters : int or None
        Annotators per item (for shares and ``q``) or in the data.
    source : {"ratings", "q", "category_shares"}
        What ``p`` was computed from.
    pooled : bool
        Whether all annotators were given one shared ``q`` (count tables have
        no annotator identity and are always pooled).
    notes : tuple of str
        Conventions applied and fallbacks taken.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    p: float
    p_items: np.ndarray | None
    q: pd.DataFrame | None
    n_items: int
    n_disagreed: int
    disagreed: np.ndarray | None
    eligible: np.ndarray | None
    n_raters: int | None
    source: str
    pooled: bool
    notes: tuple[str, ...] = field(default=())

    @property
    def heterogeneous(self) -> bool:
        """Whether the items have different ``p_i`` (missing ratings)."""
        if self.p_items is None or self.eligible is None:
            return False
        vals = self.p_items[self.eligible]
        return bool(vals.size and np.ptp(vals) > 1e-12 * max(float(vals.max()), 1e-300))

    _headline = "p"
    _keys = ("p", "n_items", "n_disagreed", "n_raters", "source", "pooled", "heterogeneous",
             "notes")

    def __repr__(self) -> str:
        extra = ""
        if self.source == "ratings":
            extra = f", {self.n_disagreed} disagreed of {self.n_items} items"
            if self.heterogeneous:
                vals = self.p_items[self.eligible]
                extra += f", p_i from {vals.min():.4g} to {vals.max():.4g}"
        pooled = ", pooled" if self.pooled else ""
        return f"ChanceAgreementResult(p={self.p:.6g}, from {self.source}{pooled}{extra})"


def _from_q(q: Any) -> ChanceAgreementResult:
    if isinstance(q, pd.DataFrame):
        frame = q
        arr = q.to_numpy(dtype=np.float64)
    else:
        arr = np.asarray(q)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"`q` must hold numbers; got an array of dtype {arr.dtype}.")
        arr = arr.astype(np.float64)
        frame = None
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"`q` must be a 2-D array (annotators × categories); got shape "
                         f"{arr.shape}.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("`q` must be finite and non-negative.")
    sums = arr.sum(axis=1)
    if np.any(np.abs(sums - 1.0) > 1e-6):
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ValueError(f"each row of `q` (one annotator's label distribution on hard items) "
                         f"must sum to 1; row {bad} sums to {sums[bad]!r}.")
    arr = arr / sums[:, None]
    # Beigman Klebanov & Beigman (2009), §2: p = Σ_c Π_j q[j, c].
    with np.errstate(divide="ignore"):
        logs = np.log(arr).sum(axis=0)
    p = float(np.exp(logs).sum())
    if frame is None:
        frame = pd.DataFrame(arr, index=pd.RangeIndex(arr.shape[0], name="rater"),
                             columns=pd.RangeIndex(arr.shape[1], name="category"))
    return ChanceAgreementResult(p=min(p, 1.0), p_items=None, q=frame, n_items=0, n_disagreed=0,
                                 disagreed=None, eligible=None, n_raters=arr.shape[0],
                                 source="q", pooled=False)


def _from_shares(shares: Any, n_raters: Any) -> ChanceAgreementResult:
    q = check_shares(shares, "category_shares")
    if n_raters is None:
        raise TypeError("`category_shares` needs `n_raters` (how many annotators flip the coin).")
    k = check_count(n_raters, "n_raters", minimum=2)
    # k identical coins: p = Σ_c q_c^k.
    p = float(np.sum(q ** k))
    frame = pd.DataFrame([q], index=pd.Index(["pooled"], name="rater"),
                         columns=pd.RangeIndex(q.size, name="category"))
    return ChanceAgreementResult(p=min(p, 1.0), p_items=None, q=frame, n_items=0, n_disagreed=0,
                                 disagreed=None, eligible=None, n_raters=k,
                                 source="category_shares", pooled=True)


def _from_ratings(ratings: Ratings, pooled: bool | None, *,
                  stacklevel: int = 3) -> ChanceAgreementResult:
    counts = ratings.counts
    r = counts.sum(axis=1, dtype=np.int64)
    eligible = r >= 2
    disagreed = eligible & (counts.max(axis=1) < r)
    n_items = int(eligible.sum())
    d = int(disagreed.sum())
    if n_items == 0:
        raise ValueError("no item has two or more ratings, so no item can show agreement or "
                         "disagreement; the easy/hard model needs at least two ratings per item.")
    notes = []
    if n_items < ratings.n_items:
        notes.append(f"{ratings.n_items - n_items} item(s) with fewer than two ratings left out "
                     "(they cannot disagree)")
    if pooled is None:
        pooled = not ratings.has_raters
    elif not isinstance(pooled, (bool, np.bool_)):
        raise TypeError(f"`pooled` must be True, False or None; got {pooled!r}.")
    elif not pooled and not ratings.has_raters:
        ratings.require_raters("per-annotator chance agreement (`pooled=False`)")
    rows = disagreed
    if d == 0:
        rows = eligible
        warnings.warn(
            "no disagreed items: q (the annotators' label distribution on hard items) cannot "
            "be estimated from them, so each annotator's label shares over all items are used. "
            "Pass `p` or `category_shares` if you know better.",
            EstimationWarning, stacklevel=stacklevel,
        )
        notes.append("no disagreed items: q estimated from all items' labels")
    m = ratings.n_categories
    if pooled:
        tot = counts[rows].sum(axis=0, dtype=np.float64)
        qv = tot / tot.sum()
        q = pd.DataFrame([qv], index=pd.Index(["pooled"], name="rater"), columns=ratings.categories)
        p_items = np.full(ratings.n_items, np.nan)
        for rr in np.unique(r[eligible]):
            sel = eligible & (r == rr)
            # k identical coins over the item's r ratings: p_i = Σ_c q_c^r.
            p_items[sel] = float(np.sum(qv ** int(rr)))
        notes.append("one q pooled over all annotators")
    else:
        codes = ratings.codes
        k = codes.shape[1]
        sub = codes[rows]
        rated = sub >= 0
        jj = np.broadcast_to(np.arange(k), sub.shape)[rated]
        cnt = np.bincount(jj * m + sub[rated].astype(np.int64), minlength=k * m)
        cnt = cnt.reshape(k, m).astype(np.float64)
        per = cnt.sum(axis=1)
        pooled_q = cnt.sum(axis=0) / cnt.sum()
        missing = per == 0
        qv = np.where(missing[:, None], pooled_q[None, :], cnt / np.where(missing, 1.0, per)[:, None])
        if missing.any():
            names = list(ratings.raters[missing][:5])
            notes.append(f"{int(missing.sum())} annotator(s) rated no disagreed item (e.g. "
                         f"{names}); they were given the pooled q")
        q = pd.DataFrame(qv, index=ratings.raters, columns=ratings.categories)
        p_items = _kernels.item_chance_agreement(codes, qv)
        p_items = np.minimum(p_items, 1.0)
        p_items[~eligible] = np.nan
    p = float(np.mean(p_items[eligible]))
    return ChanceAgreementResult(
        p=p, p_items=p_items, q=q, n_items=n_items, n_disagreed=d, disagreed=disagreed,
        eligible=eligible, n_raters=ratings.n_raters, source="ratings", pooled=bool(pooled),
        notes=tuple(notes),
    )


def chance_agreement(ratings: Any = None, *, q: Any = None, category_shares: Any = None,
                     n_raters: Any = None, pooled: bool | None = None) -> ChanceAgreementResult:
    """Probability ``p`` that the annotators agree on a hard item (SPEC §2.1).

    Give exactly one of: ``ratings`` (``q`` estimated from the disagreed
    items), ``q`` (each annotator's label distribution on hard items), or
    ``category_shares`` with ``n_raters`` (all annotators flip the same coin).

    Parameters
    ----------
    ratings : Ratings or array_like, optional
        Labels (anything :func:`agreement.as_ratings` accepts). ``q[j, c]`` is
        the share of the disagreed items rated by annotator ``j`` that ``j``
        put in category ``c``.
    q : array_like or DataFrame, shape (n_raters, n_categories), optional
        Hard-item label distributions; each row sums to 1.
    category_shares : array_like, shape (n_categories,), optional
        One label distribution shared by every annotator; sums to 1.
    n_raters : int, optional
        Number of annotators, with ``category_shares`` (>= 2).
    pooled : bool, optional
        With ``ratings``: estimate one ``q`` for all annotators (``True``) or
        one per annotator (``False``). Default: per annotator, and pooled for
        count tables (no annotator identity).

    Returns
    -------
    ChanceAgreementResult
        ``p``, per-item ``p_items``, ``q`` and the counts. ``float(result)``
        is ``p``.

    Raises
    ------
    TypeError
        If not exactly one source is given, ``category_shares`` comes without
        ``n_raters``, or a value has the wrong type.
    ValueError
        If ``q`` or the shares are not distributions, or no item has two ratings.

    Warns
    -----
    EstimationWarning
        When there is no disagreed item: ``q`` is then estimated from all
        items' labels.

    Notes
    -----
    ``p = Σ_c Π_j q[j, c]`` (Beigman Klebanov & Beigman 2009, §2). With
    missing ratings each item has its own annotator set and so its own
    ``p_i = Σ_c Π_{j rated i} q[j, c]`` (computed in log space by a Numba
    kernel); ``p`` is then their mean over items with two or more ratings, and
    :func:`noise_bound` uses the ``p_i`` themselves. Items with fewer than two
    ratings cannot disagree and are left out. An annotator who rated no
    disagreed item gets the pooled ``q``.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503.
    doi:10.1162/coli.2009.35.4.35402

    Examples
    --------
    Two annotators, two equiprobable categories (the paper's §3.1):

    >>> from noise_models import chance_agreement
    >>> chance_agreement(category_shares=[0.5, 0.5], n_raters=2).p
    0.5
    >>> chance_agreement(category_shares=[0.5, 0.5], n_raters=5).p  # its §3.2
    0.0625

    From labels: of the three disagreed items annotator 0 put two in "a" and
    annotator 1 one, so ``p = (2/3)(1/3) + (1/3)(2/3) = 4/9``:

    >>> r = chance_agreement([["a", "a"], ["a", "b"], ["b", "a"], ["a", "b"], ["b", "b"],
    ...                       ["b", "b"]])
    >>> r.n_disagreed, round(r.p, 4)
    (3, 0.4444)
    """
    given = [x is not None for x in (ratings, q, category_shares)]
    if sum(given) != 1:
        raise TypeError("give exactly one of `ratings`, `q` or `category_shares` (with "
                        f"`n_raters`); got {sum(given)}.")
    if ratings is not None:
        if n_raters is not None:
            raise TypeError("`n_raters` goes with `category_shares`; ratings carry their own.")
        return _from_ratings(as_ratings(ratings), pooled)
    if pooled is not None:
        raise TypeError("`pooled` applies only to `ratings`.")
    if q is not None:
        if n_raters is not None:
            raise TypeError("`n_raters` goes with `category_shares`; `q` has one row per "
                            "annotator.")
        return _from_q(q)
    return _from_shares(category_shares, n_raters)


def chance_from_shares(shares: np.ndarray, k: int) -> float:
    """``Σ_c q_c^k`` (validated shares), for planning and audits."""
    return float(min(np.sum(shares ** k), 1.0))
