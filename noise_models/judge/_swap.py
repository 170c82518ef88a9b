"""The swap and join tests: a coefficient with a candidate in a human's place, or added.

For each candidate, every set of annotators compared (the humans; the humans with
one of them replaced by the candidate, for each human; the humans with the candidate
added) gets its per-item rows from :func:`agreement.item_statistics` on the items the
candidate rated; the rows sit side by side, items with the same labels are merged,
and the bootstrap engine (:func:`agreement.bootstrap_rows`) resamples those items once
for all of them, so every difference is paired. Each candidate's resamples come from
a stream keyed by its name; the humans' own coefficient (every item) has its own.
:func:`judge_audit` reports it and :func:`simulation.judge_plan` sizes a study from a
pilot's swap difference: one implementation for both.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Resamples,
    Rng,
    check_candidates_and_humans,
    check_params,
    validate_params,
)
from agreement import Ratings, as_ratings

__all__ = ["SwapBootstrap", "SwapTestResult", "audit_swap", "subset_ratings", "swap_test"]

#: The swap and join intervals' default: percentile. BCa from the same resamples did
#: not bring the coverage under exchangeability to 0.94 (benchmarks/RESULTS.md, "The swap
#: interval under exchangeability"); it stays an option.
METHOD = "percentile"


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
        human; or added), ``humans`` (the humans' coefficient on the same items),
        ``difference``, ``standard_error`` (bootstrap SE of the difference), ``low``,
        ``high``, ``non_inferior`` (``low > −margin``) and ``n_items`` (the items
        the candidate rated: its swap and join are on those).
    coefficient : str
    level : str or None
    margin : float
    confidence_level : float
    n_resamples : int
    n_items : int
        Every item of the ratings (the humans' coefficient's).
    notes : tuple of str
    bootstrap : BootstrapResult or None
        The bootstrap of the humans' coefficient (each candidate's swap and join
        have their own, paired, from a stream keyed by the candidate's name);
        :meth:`confidence_interval` reads other levels from it. Not in ``to_dict()``.
    method : str
        The bootstrap interval: ``"percentile"`` (default) or ``"bca"``.
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
    method: str = METHOD

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
    """The human and candidate columns (a candidate named twice counts once)."""
    if not isinstance(candidates, (str, bytes)) and hasattr(candidates, "__iter__"):
        candidates = list(dict.fromkeys(candidates))
    _, human_cols, cand_cols = check_candidates_and_humans(r.raters, candidates, humans,
                                                           what="the swap test")
    return human_cols, cand_cols


@validate_params(n_resamples=Resamples(1), confidence_level=ConfidenceLevel(), rng=Rng(),
                 method=Option(("percentile", "bca")))
def swap_test(ratings: Any, candidates: Any, *, humans: Any = None,
              coefficient: str = "krippendorff_alpha", level: str | None = "nominal",
              margin: float = 0.0, n_resamples: int = 1000, confidence_level: float = 0.95,
              rng: Any = None, method: str = METHOD) -> SwapTestResult:
    """May a candidate stand in for a human (swap) or join them? Paired bootstrap over items.

    For each candidate, the coefficient of the humans' ratings with one human
    replaced by the candidate, averaged over which human (swap), and with the
    candidate added (join), minus the humans' coefficient on the same items (those the
    candidate rated); each difference with a paired interval from one bootstrap of
    those items for every set of annotators (:func:`agreement.bootstrap_rows`,
    identical rows merged), percentile by default. Each candidate's bootstrap draws from a
    stream keyed by its name, so its interval does not depend on the other candidates
    listed at the same seed.

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
    method : {"percentile", "bca"}, default "percentile"
        The bootstrap interval (BCa: bias-corrected and accelerated, Efron 1987).
        Under exchangeability both cover 0.92–0.94 at 95% (benchmarks/RESULTS.md,
        "The swap interval under exchangeability").

    Returns
    -------
    SwapTestResult

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import swap_test
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 400)
    >>> def noisy(p):
    ...     return np.where(rng.random(400) < p, rng.integers(0, 3, 400), truth)
    >>> x = np.column_stack([noisy(0.2), noisy(0.2), noisy(0.2), noisy(0.15)])
    >>> res = swap_test(x, 3, margin=0.05, n_resamples=200, rng=1)
    >>> res.swap[["difference", "low", "high", "non_inferior"]].round(3)
               difference   low   high  non_inferior
    candidate
    3               0.023 -0.01  0.053          True
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
    boot = SwapBootstrap(coefficient, level, int(n_resamples), float(confidence_level),
                         method)
    return swap_core(sub, sub.codes, names, len(h_cols), names[len(h_cols):], boot=boot,
                     margin=float(margin), rng=rng)


def _stream(base: int, *key: Any) -> np.random.Generator:
    """A generator keyed by ``key`` under the seed ``base``: the same key, the same draws,
    whatever else is computed at the same seed."""
    digest = hashlib.sha256(repr(key).encode()).digest()
    words = np.frombuffer(digest[:16], dtype=np.uint32).tolist()
    return np.random.default_rng(np.random.SeedSequence([base, *words]))


@dataclasses.dataclass(frozen=True)
class SwapBootstrap:
    """The swap test's bootstrap: the coefficient (and Krippendorff's ``level``) of every
    set of annotators, the replicates, the confidence level and the interval method."""

    coefficient: str
    level: str | None
    n_resamples: int
    confidence_level: float
    method: str = METHOD


def _bootstrap_sets(r: Any, codes: np.ndarray, names: list[Any],
                    sets: list[list[int]], combine: Any, out_names: list[str], *,
                    boot: SwapBootstrap, rng: np.random.Generator) -> Any:
    """One paired bootstrap of the items for several sets of columns of ``codes``."""
    coefficient, level = boot.coefficient, boot.level
    from agreement import bootstrap_rows, item_statistics

    first, freq = _distinct(codes, r.n_categories)
    rep = codes[first]
    stats, widths = [], []
    for cols in sets:
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

    def finalize(sums: np.ndarray) -> np.ndarray:
        vals = [np.asarray(st.finalize(sums[..., bounds[i]:bounds[i + 1]]).value,
                           dtype=np.float64) for i, st in enumerate(stats)]
        return combine(np.stack(vals, axis=-1))

    return bootstrap_rows(rows, finalize, names=out_names, freq=freq,
                          n_resamples=boot.n_resamples, confidence_level=boot.confidence_level,
                          method=boot.method, rng=rng)


def swap_core(r: Any, codes: np.ndarray, names: list[Any], n_humans: int,
              candidates: list[Any], *, boot: SwapBootstrap, margin: float,
              rng: Any) -> SwapTestResult:
    """``codes``: items × (humans, then candidates), ``r`` their ratings' categories.

    The humans' own coefficient on every item, from its own stream; each candidate on
    the items it rated, from a stream keyed by its name (the same candidate, the same
    interval, whichever others are listed at the same seed).
    """
    base = int(np.random.default_rng(rng).integers(2**63))
    humans = list(range(n_humans))
    own = _bootstrap_sets(r, codes[:, :n_humans], names, [humans], lambda v: v, ["humans"],
                          boot=boot, rng=_stream(base, "humans"))
    notes = list(own.notes)
    n_all = int(codes.shape[0])
    swap_recs, join_recs = [], []
    for c, cand in enumerate(candidates):
        col = n_humans + c
        rated = codes[:, col] >= 0
        sub = codes[rated][:, [*humans, col]]
        if sub.shape[0] == 0:
            raise ValueError(f"candidate {cand!r} rated none of the {n_all} items; the swap "
                             "test compares it with the humans on the items it rated.")
        sets = [humans] + [[x for x in humans if x != h] + [n_humans] for h in humans]
        sets.append([*humans, n_humans])

        def combine(v: np.ndarray) -> np.ndarray:
            swap = v[..., 1:1 + n_humans].mean(axis=-1)
            return np.stack([v[..., 0], swap, v[..., 1 + n_humans]], axis=-1)

        res = _bootstrap_sets(r, sub, [*names[:n_humans], cand], sets, combine,
                              ["humans", "swap", "join"], boot=boot,
                              rng=_stream(base, "candidate", cand))
        notes.extend(f"{cand}: {n}" for n in res.notes)
        n_c = int(rated.sum())
        if n_c < n_all:
            notes.append(f"{cand} rated {n_c} of the {n_all} items: its swap and join are on "
                         f"those items, against the humans' {res.estimate[0]:.3f} there "
                         f"({boot.coefficient} on all {n_all}: {own.estimate[0]:.3f})")
        for kind, recs in (("swap", swap_recs), ("join", join_recs)):
            d = res.difference(kind, "humans")
            notes.extend(f"{cand}: {n}" for n in d.notes)
            low, high = float(d.interval.low[0]), float(d.interval.high[0])
            recs.append({"candidate": cand,
                         "with_candidate": float(res.estimate[1 if kind == "swap" else 2]),
                         "humans": float(res.estimate[0]), "difference": float(d.estimate[0]),
                         "standard_error": float(d.standard_error[0]),
                         "low": low, "high": high,
                         "non_inferior": bool(np.isfinite(low) and low > -margin),
                         "n_items": n_c})
    swap = pd.DataFrame(swap_recs).set_index("candidate")
    join = pd.DataFrame(join_recs).set_index("candidate")
    return SwapTestResult(
        humans=float(own.estimate[0]), humans_low=float(own.interval.low[0]),
        humans_high=float(own.interval.high[0]), swap=swap, join=join,
        coefficient=boot.coefficient, level=boot.level, margin=margin,
        confidence_level=boot.confidence_level, n_resamples=boot.n_resamples,
        n_items=n_all, notes=tuple(dict.fromkeys(notes)), bootstrap=own, method=boot.method)


#: The columns of the audit's swap and join tables.
AUDIT_COLUMNS = ["with_candidate", "humans", "difference", "low", "high", "non_inferior",
                 "n_items"]


def subset_ratings(r: Any, codes: np.ndarray, columns: list[int], names: list[str]) -> Any:
    """Ratings of some columns of ``codes`` (same categories, values and order as ``r``)."""
    return Ratings(np.ascontiguousarray(codes[:, columns]), r.categories,
                   items=pd.RangeIndex(codes.shape[0], name="item"),
                   raters=pd.Index([names[c] for c in columns], name="rater"),
                   ordered=r.ordered, category_values=r.category_values)


def audit_swap(r: Any, codes: np.ndarray, names: list[str], n_humans: int,
               candidates: list[str], *, boot: SwapBootstrap, margin: float,
               rng: Any) -> SwapTestResult:
    """The swap test of ``judge_audit``: ``codes`` items × (humans, then candidates), items
    with a human rating only; its tables keep the audit's columns."""
    sub = subset_ratings(r, codes, list(range(n_humans + len(candidates))), names)
    res = swap_test(sub, candidates, humans=names[:n_humans], coefficient=boot.coefficient,
                    level=boot.level, margin=margin, n_resamples=boot.n_resamples,
                    confidence_level=boot.confidence_level, rng=rng, method=boot.method)
    return dataclasses.replace(res, swap=res.swap[AUDIT_COLUMNS], join=res.join[AUDIT_COLUMNS])
