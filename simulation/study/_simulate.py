"""Simulated studies at a given size: each interval method's coverage, width and power."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from simulation.study._design import Design

__all__ = ["INTERVAL_METHODS", "SimulatedStudies", "StudyAnalysis", "run_studies", "wilson"]

#: Interval methods a plan compares: the coefficient's analytic (Wald) interval and the
#: item bootstrap's percentile and BCa intervals.
INTERVAL_METHODS = ("analytic", "percentile", "bca")


def _coefficient(name: str) -> Callable:
    import agreement

    return getattr(agreement, name)


def wilson(successes: int, trials: int, confidence_level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial share (``binomial_interval``, as statsmodels')."""
    from _goldnoise_lib.binomial import binomial_interval

    return binomial_interval(successes, trials, confidence_level, method="wilson")


class SimulatedStudies:
    """Per simulated study at one size: estimate, intervals and the test's p-value."""

    def __init__(self, n_items: int, value: np.ndarray, low: dict, high: dict,
                 pvalue: np.ndarray | None) -> None:
        self.n_items = n_items
        self.value = value
        self.low = low
        self.high = high
        self.pvalue = pvalue

    def row(self, method: str, truth: float, significance: float | None,
            target: float | None = None, assurance: float | None = None) -> dict:
        lo, hi = self.low[method], self.high[method]
        ok = np.isfinite(lo) & np.isfinite(hi)
        n = len(lo)
        covered = int(np.sum(ok & (lo <= truth + 1e-12) & (truth - 1e-12 <= hi)))
        c_lo, c_hi = wilson(covered, n)
        half = (hi[ok] - lo[ok]) / 2.0
        out = {
            "n_items": self.n_items, "interval": method, "n_sims": n,
            "coverage": covered / n if n else math.nan, "coverage_low": c_lo,
            "coverage_high": c_hi,
            "mean_half_width": float(half.mean()) if half.size else math.nan,
            "median_half_width": float(np.median(half)) if half.size else math.nan,
            "degenerate": int(n - ok.sum()),
        }
        if target is not None:
            # The share of studies whose interval is at most `target` wide (half-width), a
            # study without an interval counting as one that is not; and the half-width
            # that the `assurance` share of studies reach (inf when they do not).
            out["reach_share"] = float(np.sum(half <= target + 1e-12)) / n if n else math.nan
            if assurance is not None:
                every = np.full(n, np.inf)
                every[ok] = half
                out["assured_half_width"] = float(np.quantile(every, assurance,
                                                              method="higher")) if n else \
                    math.nan
        if self.pvalue is not None and method == "analytic" and significance is not None:
            p = self.pvalue
            out["power"] = float(np.mean(np.isfinite(p) & (p < significance)))
        return out


class StudyAnalysis(NamedTuple):
    """How every simulated study is analysed: its interval's confidence level,
    Krippendorff's ``level`` (else None), and the test's ``null`` (None: no test) and
    ``alternative``."""

    confidence_level: float
    level: str | None
    null: float | None
    alternative: str


def run_studies(design: Design, n_items: int, expected: float, n_sims: int, *,
                analysis: StudyAnalysis, bootstrap: bool, n_resamples: int,
                sim_offset: int = 0, tick: Callable[[int], None] | None = None
                ) -> SimulatedStudies:
    """Simulate ``n_sims`` studies of ``n_items`` items and compute their intervals.

    ``tick(n_items)`` is called after each study (a progress bar's update).
    """
    confidence_level, level, null, alternative = analysis
    func = _coefficient(design.coefficient)
    kwargs = {"level": level} if design.coefficient == "krippendorff_alpha" and level else {}
    categories = list(np.arange(design.n_categories, dtype=float))
    value = np.full(n_sims, np.nan)
    low = {m: np.full(n_sims, np.nan) for m in INTERVAL_METHODS}
    high = {m: np.full(n_sims, np.nan) for m in INTERVAL_METHODS}
    pvalue = np.full(n_sims, np.nan) if null is not None else None
    if bootstrap:
        from agreement import bootstrap as boot
    import agreement

    with warnings.catch_warnings():
        # A small simulated study can be degenerate (one category only): its NaN is
        # counted, not warned about once per study.
        warnings.simplefilter("ignore", GoldnoiseWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        for s in range(n_sims):
            if tick is not None and s:
                tick(n_items)
            labels = design.draw(sim_offset + s, n_items, expected)
            try:
                r = agreement.Ratings.from_wide(labels, categories=categories)
                res = func(r, **kwargs)
            except ValueError:  # e.g. no item with two ratings left after missingness
                continue
            value[s] = res.value
            ci = res.confidence_interval(confidence_level)
            low["analytic"][s], high["analytic"][s] = ci.low, ci.high
            if pvalue is not None and math.isfinite(res.value):
                pvalue[s] = res.test(null, alternative=alternative).pvalue
            if bootstrap and math.isfinite(res.value):
                b = boot(design.coefficient, r, n_resamples=n_resamples, method="bca",
                         confidence_level=confidence_level, rng=[design.seed, sim_offset + s],
                         **kwargs)
                bci = b.interval
                if callable(bci):
                    bci = bci(confidence_level)
                low["bca"][s], high["bca"][s] = float(np.ravel(bci.low)[0]), float(
                    np.ravel(bci.high)[0])
                dist = np.asarray(b.bootstrap_distribution, float).ravel()
                dist = dist[np.isfinite(dist)]
                if dist.size:
                    a = (1 - confidence_level) / 2
                    low["percentile"][s], high["percentile"][s] = np.quantile(dist, [a, 1 - a])
    if tick is not None and n_sims:
        tick(n_items)
    return SimulatedStudies(n_items, value, low, high, pvalue)


def performance_frame(studies: SimulatedStudies, truth: float, significance: float | None,
                      methods: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame([studies.row(m, truth, significance) for m in methods])
