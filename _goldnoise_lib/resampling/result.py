"""The result of every bootstrap: :class:`BootstrapResult`, and its assembly from summed rows."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.resampling import weights as _resample
from _goldnoise_lib.resampling.intervals import confidence_intervals
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    check_confidence_level,
    check_params,
    validate_params,
)

__all__ = ["BootstrapResult", "coefficient_bounds", "result_from_replicates", "result_from_sums"]

#: Why a coefficient's replicate may be undefined (the notes say it).
DEGENERATE = "chance agreement 1 or no pairable item"


def _name(stat: Any) -> str:
    return stat if isinstance(stat, str) else getattr(stat, "__name__", repr(stat))


@dataclass(frozen=True, repr=False, eq=False)
class BootstrapResult(Result):
    """Bootstrap estimates, standard errors and intervals of one or more statistics.

    All statistics come from the same resamples of items (paired), so
    :meth:`difference` gives an interval for the difference of any two.

    Attributes
    ----------
    statistics : tuple of str
        Names of the statistics, in the order of every array below.
    estimate : ndarray, shape (S,)
        Each statistic on the full sample.
    standard_error : ndarray, shape (S,)
        Standard deviation (ddof 1) of the defined replicates.
    interval : ConfidenceInterval
        ``(low, high)``, each an ndarray of shape (S,), at :attr:`confidence_level`.
        Also read as ``confidence_interval`` (the earlier name of this field);
        ``confidence_interval(level)`` gives the intervals at another level.
    bootstrap_distribution : ndarray, shape (n_resamples, S)
        The replicates; NaN where the statistic is undefined on a resample.
    n_degenerate : ndarray of int, shape (S,)
        Replicates on which the statistic is undefined (chance agreement 1, no
        pairable item); they are left out of the SE and interval, and named in
        ``notes``.
    method : {"percentile", "basic", "bca"}
    confidence_level : float
    scheme : {"multinomial", "poisson"}
    n_items : int
        Items resampled (those with at least one rating).
    notes : tuple of str
        Degenerate replicates, clipping to a statistic's range, dropped items.
    jackknife : ndarray, shape (P, S), or None
        Leave-one-item-out values (one row per distinct item pattern), for BCa.
    jackknife_weights : ndarray, shape (P,), or None
        Items sharing each jackknife row.
    bounds : ndarray, shape (S, 2), or None
        The range each interval was clipped to.

    ``to_frame()``: one row per statistic: ``estimate``, ``standard_error``, ``low``, ``high``, ``n_degenerate``.
    """

    statistics: tuple[str, ...]
    estimate: np.ndarray
    standard_error: np.ndarray
    interval: ConfidenceInterval
    bootstrap_distribution: np.ndarray
    n_degenerate: np.ndarray
    method: str
    confidence_level: float
    scheme: str
    n_items: int
    notes: tuple[str, ...] = ()
    jackknife: np.ndarray | None = field(default=None, repr=False)
    jackknife_weights: np.ndarray | None = field(default=None, repr=False)
    bounds: np.ndarray | None = field(default=None, repr=False)

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Every statistic's interval at ``confidence_level``, as arrays.

        The default, :attr:`confidence_level`, gives the field :attr:`interval`;
        another level recomputes every statistic's interval from the same
        replicates (same method and clipping).
        """
        check_params(BootstrapResult.confidence_interval, locals())
        if confidence_level is None:
            return ConfidenceInterval(self.interval.low, self.interval.high)
        level = check_confidence_level(confidence_level)
        if level == self.confidence_level:
            return ConfidenceInterval(self.interval.low, self.interval.high)
        iv = confidence_intervals(self.estimate, self.bootstrap_distribution, method=self.method,
                                  confidence_level=level, jackknife=self.jackknife,
                                  jackknife_weights=self.jackknife_weights, bounds=self.bounds)
        return ConfidenceInterval(iv.low, iv.high)

    def with_method(self, method: str) -> BootstrapResult:
        """The same replicates with intervals by another ``method``.

        Parameters
        ----------
        method : {"percentile", "basic", "bca"}
            BCa needs the jackknife values the result keeps (every
            coefficient's result does).

        Returns
        -------
        BootstrapResult
            A copy whose :attr:`interval` and :attr:`method` are the new ones.

        Examples
        --------
        >>> from agreement import Ratings
        >>> from agreement import bootstrap
        >>> r = Ratings.from_wide([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 5)
        >>> res = bootstrap(["fleiss_kappa"], r, n_resamples=200, rng=1)
        >>> res.with_method("bca").method
        'bca'
        """
        from _goldnoise_lib.validation import check_option

        method = check_option(method, "method", ("percentile", "basic", "bca"))
        if method == "bca" and self.jackknife is None:
            raise ValueError("BCa intervals need the jackknife values, which this result does "
                             "not keep; use method='percentile' or 'basic'.")
        iv = confidence_intervals(self.estimate, self.bootstrap_distribution, method=method,
                                  confidence_level=self.confidence_level,
                                  jackknife=self.jackknife,
                                  jackknife_weights=self.jackknife_weights, bounds=self.bounds)
        return dataclasses.replace(self, method=method,
                                   interval=ConfidenceInterval(iv.low, iv.high))

    def _position(self, stat: Any) -> int:
        name = _name(stat)
        if name not in self.statistics:
            raise ValueError(f"unknown statistic {name!r}; this result has {list(self.statistics)}.")
        return self.statistics.index(name)

    def difference(self, a: Any, b: Any) -> BootstrapResult:
        """The paired bootstrap of ``a − b`` (same resamples, same method and level).

        Parameters
        ----------
        a, b : str or function
            Two of :attr:`statistics`.

        Returns
        -------
        BootstrapResult
            One statistic, ``"a - b"``; a replicate is undefined if either is.

        Examples
        --------
        >>> import numpy as np
        >>> from agreement import bootstrap
        >>> x = np.random.default_rng(0).integers(0, 2, size=(200, 3))
        >>> x[:120] = x[:120, :1]  # 120 unanimous items
        >>> res = bootstrap(["gwet_ac1", "fleiss_kappa"], x, n_resamples=999, rng=1)
        >>> d = res.difference("gwet_ac1", "fleiss_kappa")
        >>> d.statistics, bool(d.interval.low[0] > 0)
        (('gwet_ac1 - fleiss_kappa',), True)
        """
        i, j = self._position(a), self._position(b)
        est = self.estimate[[i]] - self.estimate[[j]]
        dist = self.bootstrap_distribution[:, [i]] - self.bootstrap_distribution[:, [j]]
        jk = None if self.jackknife is None else self.jackknife[:, [i]] - self.jackknife[:, [j]]
        if self.method == "bca" and jk is None:
            raise ValueError("this result has no jackknife values, so no BCa difference.")
        iv = confidence_intervals(est, dist, method=self.method,
                                  confidence_level=self.confidence_level, jackknife=jk,
                                  jackknife_weights=self.jackknife_weights)
        n_deg = np.array([int(np.count_nonzero(~np.isfinite(dist)))])
        name = f"{self.statistics[i]} - {self.statistics[j]}"
        notes = ((f"{name}: {n_deg[0]} of {dist.shape[0]} resamples undefined, left out",)
                 if n_deg[0] else ())
        return BootstrapResult((name,), est, iv.standard_error,
                               ConfidenceInterval(iv.low, iv.high), dist, n_deg, self.method,
                               self.confidence_level, self.scheme, self.n_items, notes, jk,
                               self.jackknife_weights, None)

    _columns: ClassVar[dict[str, str]] = {
        "estimate": "estimate", "standard_error": "standard_error", "low": "interval.low",
        "high": "interval.high", "n_degenerate": "n_degenerate"}
    _index = "statistic=statistics"
    _keys = ("method", "confidence_level", "scheme", "n_resamples=bootstrap_distribution.shape.0",
             "n_items", "notes[]", "statistics=to_frame")
    _nested = "statistics"

    def __repr__(self) -> str:
        pct = f"{100 * self.confidence_level:g}%"
        lines = [f"BootstrapResult({self.bootstrap_distribution.shape[0]} {self.scheme} "
                 f"resamples of {self.n_items} items, {self.method} {pct} intervals)"]
        width = max(len(s) for s in self.statistics)
        for s, name in enumerate(self.statistics):
            lo, hi = self.interval.low[s], self.interval.high[s]
            deg = f"  ({self.n_degenerate[s]} degenerate)" if self.n_degenerate[s] else ""
            lines.append(f"  {name:<{width}}  {self.estimate[s]: .4f}  SE {self.standard_error[s]:.4f}"
                         f"  [{lo: .4f}, {hi: .4f}]{deg}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def coefficient_bounds(names) -> np.ndarray:
    """The range of each coefficient (S, 2): at most 1; percent agreement is a proportion."""
    return np.array([(0.0, 1.0) if n == "percent_agreement" else (-math.inf, 1.0)
                     for n in names])


def result_from_sums(names: tuple[str, ...], finalize: Callable[[np.ndarray], np.ndarray],
                     rows: np.ndarray, freq: np.ndarray, replicate_sums: np.ndarray, *,
                     method: str, confidence_level: float, scheme: str, n_items: int,
                     notes: list[str], stacklevel: int, bounds: np.ndarray | None = None,
                     degenerate: str = DEGENERATE) -> BootstrapResult:
    """The :class:`BootstrapResult` of statistics finalized from sums of distinct rows.

    ``rows`` (P, C) are the distinct item rows and ``freq`` (P,) their counts;
    ``replicate_sums`` (B, C) the row sums of every replicate. The estimate is
    ``finalize(freq @ rows)``; the leave-one-item-out jackknife subtracts one
    row from that total (items sharing a row share their value: O(P)).
    ``bounds`` (S, 2) clip the intervals (default: a coefficient's range,
    :func:`coefficient_bounds`); ``degenerate`` says why a replicate may be
    undefined, in the notes. Shared by every bootstrap of summed rows.
    """
    total = _resample.replicate_sums(freq[None, :], rows)[0]
    estimate = finalize(total)
    jackknife = finalize(total[None, :] - rows)
    dist = finalize(replicate_sums)
    what = "coefficient" if bounds is None else "statistic"
    bounds = coefficient_bounds(names) if bounds is None else np.asarray(bounds, dtype=np.float64)
    iv = confidence_intervals(estimate, dist, method=method, confidence_level=confidence_level,
                              jackknife=jackknife, jackknife_weights=freq, bounds=bounds)
    n_deg = np.count_nonzero(~np.isfinite(dist), axis=0)
    n_resamples = dist.shape[0]
    for s, name in enumerate(names):
        if not np.isfinite(estimate[s]):
            warnings.warn(f"{name} is undefined on these data ({degenerate}): its estimate, SE "
                          "and interval are NaN.",
                          DegenerateDataWarning, stacklevel=stacklevel + 1)
            notes.append(f"{name}: undefined on the full sample")
            continue
        if n_deg[s]:
            notes.append(f"{name}: {n_deg[s]} of {n_resamples} resamples degenerate "
                         f"({degenerate}), left out of the SE and interval")
        if iv.clipped[s]:
            lo, hi = bounds[s]
            notes.append(f"{name}: interval clipped to the {what}'s range "
                         f"[{lo:g}, {hi:g}]")
        if method == "bca" and not np.isfinite(iv.acceleration[s]):
            notes.append(f"{name}: BCa acceleration undefined (every leave-one-item-out value "
                         "the same or undefined), no interval")
    return BootstrapResult(names, estimate, iv.standard_error,
                           ConfidenceInterval(iv.low, iv.high), dist, n_deg.astype(np.int64),
                           method, confidence_level, scheme, n_items, tuple(notes),
                           jackknife, freq, bounds)


def result_from_replicates(names: tuple[str, ...], estimate: np.ndarray, dist: np.ndarray, *,
                           method: str, confidence_level: float, scheme: str, n_items: int,
                           bounds: np.ndarray | None = None,
                           notes: list[str] | None = None) -> BootstrapResult:
    """The :class:`BootstrapResult` of replicates computed by the caller (no jackknife).

    For statistics that are not functions of summed rows (a ranking's AUROC, a
    refitted model's parameters): ``estimate`` (S,) on the full sample and
    ``dist`` (B, S) on the resamples; NaN replicates are counted, named in the
    notes and left out; intervals are clipped to ``bounds`` (S, 2), noted.
    """
    estimate = np.asarray(estimate, dtype=np.float64)
    iv = confidence_intervals(estimate, dist, method=method, confidence_level=confidence_level,
                              bounds=bounds)
    n_deg = np.count_nonzero(~np.isfinite(dist), axis=0).astype(np.int64)
    notes = list(notes or [])
    notes += [f"{nm}: {n_deg[s]} of {dist.shape[0]} resamples undefined, left out"
              for s, nm in enumerate(names) if n_deg[s]]
    if bounds is not None:
        notes += [f"{nm}: interval clipped to [{bounds[s][0]:g}, {bounds[s][1]:g}]"
                  for s, nm in enumerate(names) if iv.clipped[s]]
    return BootstrapResult(tuple(names), estimate, iv.standard_error,
                           ConfidenceInterval(iv.low, iv.high), dist, n_deg, method,
                           confidence_level, scheme, n_items, tuple(notes), None, None, bounds)
