"""The swap and join tests: a coefficient with a candidate in a human's place, or added.

Every set of annotators compared (the humans; the humans with one of them replaced by
a candidate, for each human and candidate; the humans with a candidate added) gets
its per-item rows from :func:`agreement.item_statistics` on the same items; the rows
sit side by side, items with the same labels are merged, and the bootstrap engine
(:func:`simulation.bootstrap_rows`) resamples the items once for all of them, so
every difference is paired. ``goldnoise.judge_audit`` reports it and
:func:`simulation.judge_plan` sizes a study from a pilot's swap difference: one
implementation for both.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from agreement import Ratings, as_ratings

__all__ = ["SwapTestResult", "swap_test"]


@dataclasses.dataclass(frozen=True, repr=False)
class SwapTestResult(Result):
    """The swap and join tests of one or more candidates against the humans.

    Attributes
    ----------
    humans : float
        The humans' own coefficient (``float(result)``).
    humans_low, humans_high : float
        Its bootstrap interval.
    swap, join : pandas.DataFrame
        One row per candidate (index ``candidate``): ``with_candidate`` (the
        coefficient with the candidate in a human's place, averaged over which
        human; or added), ``humans``, ``difference``, ``standard_error`` (bootstrap
        SE of the difference), ``low``, ``high``, ``non_inferior`` (``low >
        −margin``).
    coefficient : str
    level : str or None
    margin : float
    confidence_level : float
    n_resamples : int
    n_items : int
    notes : tuple of str
    bootstrap : BootstrapResult or None
        The paired bootstrap behind every interval (the humans' coefficient first);
        :meth:`confidence_interval` reads other levels from it. Not in ``to_dict()``.
    """

    _headline: ClassVar[str] = "humans"

    humans: float
    humans_low: float
    humans_high: float
    swap: pd.DataFrame = dataclasses.field(compare=False)
    join: pd.DataFrame = dataclasses.field(compare=False)
    coefficient: str
    level: str | None
    margin: float
    confidence_level: float
    n_resamples: int
    n_items: int
    notes: tuple[str, ...]
    bootstrap: Any = dataclasses.field(default=None, repr=False, compare=False)

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The humans' coefficient's interval: at the level computed by default, another
        level from the same bootstrap replicates (the tables keep the computed level)."""
        check_params(SwapTestResult.confidence_interval, locals())
        if confidence_level is None or float(confidence_level) == self.confidence_level:
            return ConfidenceInterval(self.humans_low, self.humans_high)
        if self.bootstrap is None:
            raise ValueError(f"these intervals are at {self.confidence_level:g} and the "
                             "replicates were not kept; rerun swap_test with "
                             f"confidence_level={confidence_level!r}.")
        iv = self.bootstrap.confidence_interval(float(confidence_level))
        return ConfidenceInterval(float(iv.low[0]), float(iv.high[0]))

    _omit = _records = ("swap", "join")
    _summary = ("Swap and join tests ({coefficient}, margin {margin:g}): the humans {humans:.3f}, "
                "{confidence_level:g%} [{humans_low:.3f}, {humans_high:.3f}] on {n_items} items",
                ("to_frame", "  {test} {candidate}: {with_candidate:.3f}, difference "
                 "{difference:+.3f} [{low:+.3f}, {high:+.3f}]{non_inferior: within margin|}"),
                ("notes", "  * {}"))

    def to_frame(self) -> pd.DataFrame:
        """The swap and join rows, one table (column ``test``)."""
        return pd.concat([self.swap.reset_index().assign(test="swap"),
                          self.join.reset_index().assign(test="join")], ignore_index=True)

    def __repr__(self) -> str:
        return (f"SwapTestResult(humans={self.humans:.4g}, candidates="
                f"{list(self.swap.index)}, n_items={self.n_items})")


def _distinct(codes: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct row of labels and how many items share it."""
    keys = _patterns.row_keys(codes, m)
    if keys is None:
        keys = np.unique(codes, axis=0, return_inverse=True)[1].ravel()
    _, first, freq = np.unique(keys, return_index=True, return_counts=True)
    return first, freq.astype(np.int64)


def _columns(r: Ratings, candidates: Any, humans: Any) -> tuple[list[int], list[int]]:
    raters = list(r.raters)
    cands = [candidates] if isinstance(candidates, (str, bytes)) or not hasattr(
        candidates, "__iter__") else list(candidates)
    if not cands:
        raise ValueError("`candidates` is empty; name one or more raters.")
    bad = [c for c in cands if c not in raters]
    if bad:
        raise ValueError(f"`candidates` names raters not in the ratings: {bad[:5]}; the raters "
                         f"are {raters[:10]}{' ...' if len(raters) > 10 else ''}.")
    if humans is None:
        hum = [x for x in raters if x not in cands]
    else:
        hum = [humans] if isinstance(humans, (str, bytes)) else list(dict.fromkeys(humans))
        bad = [h for h in hum if h not in raters or h in cands]
        if bad:
            raise ValueError(f"`humans` must name raters other than the candidates; got "
                             f"{bad[:5]}.")
    if len(hum) < 2:
        raise ValueError(f"the swap test needs at least 2 humans; got {len(hum)}.")
    return [raters.index(h) for h in hum], [raters.index(c) for c in dict.fromkeys(cands)]


@validate_params(n_resamples=Resamples(1), confidence_level=ConfidenceLevel(), rng=Rng())
def swap_test(ratings: Any, candidates: Any, *, humans: Any = None,
              coefficient: str = "krippendorff_alpha", level: str | None = "nominal",
              margin: float = 0.0, n_resamples: int = 1000, confidence_level: float = 0.95,
              rng: Any = None) -> SwapTestResult:
    """May a candidate stand in for a human (swap) or join them? Paired bootstrap over items.

    For each candidate, the coefficient of the humans' ratings with one human
    replaced by the candidate, averaged over which human (swap), and with the
    candidate added (join), minus the humans' own coefficient; each difference with
    a paired percentile interval from one bootstrap of the items for every set of
    annotators (:func:`simulation.bootstrap_rows`, identical rows merged).

    Parameters
    ----------
    ratings : Ratings or array_like or pandas.DataFrame
        Items × raters, humans and candidates among the raters.
    candidates : hashable or sequence of hashable
        The candidates' rater ids.
    humans : sequence of rater ids, optional
        Default every rater that is not a candidate; at least 2.
    coefficient : str, default "krippendorff_alpha"
        A coefficient of :func:`agreement.item_statistics`.
    level : str or None, default "nominal"
        Krippendorff's level (``krippendorff_alpha`` only).
    margin : float, default 0.0
        ``non_inferior`` is ``low > −margin``.
    n_resamples : int, default 1000
    confidence_level : float, default 0.95
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    SwapTestResult

    Examples
    --------
    >>> import numpy as np
    >>> from simulation import swap_test
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 400)
    >>> def noisy(p):
    ...     return np.where(rng.random(400) < p, rng.integers(0, 3, 400), truth)
    >>> x = np.column_stack([noisy(0.2), noisy(0.2), noisy(0.2), noisy(0.15)])
    >>> res = swap_test(x, 3, margin=0.05, n_resamples=200, rng=1)
    >>> res.swap[["difference", "low", "high", "non_inferior"]].round(3)
               difference   low   high  non_inferior
    candidate
    3               0.023 -0.01  0.056          True
    """
    check_params(swap_test, locals())
    r = as_ratings(ratings)
    codes = r.require_raters("`swap_test`")
    h_cols, c_cols = _columns(r, candidates, humans)
    cols = h_cols + c_cols
    names = [r.raters[c] for c in cols]
    sub = Ratings(np.ascontiguousarray(codes[:, cols]), r.categories,
                  items=pd.RangeIndex(r.n_items, name="item"),
                  raters=pd.Index(names, name="rater"), ordered=r.ordered,
                  category_values=r.category_values)
    return swap_core(sub, sub.codes, names, len(h_cols), names[len(h_cols):],
                     coefficient=coefficient, level=level, margin=float(margin),
                     n_resamples=int(n_resamples), confidence_level=float(confidence_level),
                     rng=rng)


def swap_core(r: Any, codes: np.ndarray, names: list[Any], n_humans: int,
              candidates: list[Any], *, coefficient: str, level: str | None, margin: float,
              n_resamples: int, confidence_level: float, rng: Any) -> SwapTestResult:
    """``codes``: items × (humans, then candidates), ``r`` their ratings' categories."""
    from agreement import bootstrap_rows, item_statistics

    first, freq = _distinct(codes, r.n_categories)
    rep = codes[first]
    humans = list(range(n_humans))
    sets: list[tuple[str, list[int]]] = [("humans", humans)]
    for c, cand in enumerate(candidates):
        col = n_humans + c
        for h in humans:
            sets.append((f"swap {cand} for {names[h]}", [x for x in humans if x != h] + [col]))
        sets.append((f"join {cand}", [*humans, col]))
    stats, widths = [], []
    for _, cols in sets:
        sub = Ratings(np.ascontiguousarray(rep[:, cols]), r.categories,
                      items=pd.RangeIndex(rep.shape[0], name="item"),
                      raters=pd.Index([names[c] for c in cols], name="rater"),
                      ordered=r.ordered, category_values=r.category_values)
        st = (item_statistics(sub, coefficient, level=level) if coefficient == "krippendorff_alpha"
              else item_statistics(sub, coefficient))
        stats.append(st)
        widths.append(st.values.shape[1])
    rows = np.concatenate([st.values for st in stats], axis=1)
    bounds = np.cumsum([0, *widths])
    k = len(candidates)
    out_names = ["humans"] + [f"with {c}" for c in candidates] + [f"join {c}" for c in candidates]

    def finalize(sums: np.ndarray) -> np.ndarray:
        vals = [np.asarray(st.finalize(sums[..., bounds[i]:bounds[i + 1]]).value,
                           dtype=np.float64) for i, st in enumerate(stats)]
        v = np.stack(vals, axis=-1)
        per = n_humans + 1  # each candidate: its swaps, then its join
        swaps = [v[..., 1 + c * per: 1 + c * per + n_humans].mean(axis=-1) for c in range(k)]
        joins = [v[..., 1 + c * per + n_humans] for c in range(k)]
        return np.stack([v[..., 0], *swaps, *joins], axis=-1)

    res = bootstrap_rows(rows, finalize, names=out_names, freq=freq, n_resamples=n_resamples,
                         confidence_level=confidence_level, rng=rng)
    notes = list(res.notes)

    def table(kind: str) -> pd.DataFrame:
        recs = []
        for cand in candidates:
            name = f"{'with' if kind == 'swap' else 'join'} {cand}"
            d = res.difference(name, "humans")
            notes.extend(n for n in d.notes if n not in notes)
            low, high = float(d.interval.low[0]), float(d.interval.high[0])
            recs.append({"candidate": cand,
                         "with_candidate": float(res.estimate[out_names.index(name)]),
                         "humans": float(res.estimate[0]), "difference": float(d.estimate[0]),
                         "standard_error": float(d.standard_error[0]),
                         "low": low, "high": high,
                         "non_inferior": bool(np.isfinite(low) and low > -margin)})
        return pd.DataFrame(recs).set_index("candidate")

    swap, join = table("swap"), table("join")
    return SwapTestResult(
        humans=float(res.estimate[0]), humans_low=float(res.interval.low[0]),
        humans_high=float(res.interval.high[0]), swap=swap, join=join,
        coefficient=coefficient, level=level, margin=margin,
        confidence_level=confidence_level, n_resamples=n_resamples,
        n_items=int(freq.sum()), notes=tuple(notes), bootstrap=res)
