"""``simulate_study``: coverage, width and power of the interval methods at a given size."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from _goldnoise_lib.progress import progress_bar
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Integer,
    Option,
    Probability,
    Resamples,
    Rng,
    check_integer,
    check_option,
    check_params,
    check_probability,
    validate_params,
)
from simulation.study import _cost
from simulation.study._checks import (
    _ALTERNATIVES,
    _CHANCE,
    _common_iv,
    _range,
    _real,
)
from simulation.study._cost import MAX_SECONDS
from simulation.study._design import COEFFICIENTS
from simulation.study._simulate import (
    INTERVAL_METHODS,
    StudyAnalysis,
    performance_frame,
    run_studies,
)

__all__ = ["simulate_study"]


@validate_params(coefficient=Option(COEFFICIENTS), n_items=Integer(2), n_raters=Integer(2),
                 missing=Probability(open_high=True), confidence_level=ConfidenceLevel(),
                 significance=Probability(open_low=True, open_high=True),
                 alternative=Option(_ALTERNATIVES), n_sims=Integer(1), n_resamples=Resamples(1),
                 chance=Option(_CHANCE), rng=Rng())
def simulate_study(coefficient: str, *, n_items: int, expected: float, n_raters: int = 2,
                   n_categories: int | None = None, category_shares: Any = None, missing: float = 0.0,
                   level: str | None = None, null: float | None = None,
                   alternative: str = "greater", significance: float = 0.05,
                   confidence_level: float = 0.95, bootstrap: bool = True, n_sims: int = 1000,
                   n_resamples: int = 499, chance: str = "shares",
                   rng: Any = None, max_seconds: float | None = MAX_SECONDS,
                   progress: bool | None = None) -> pd.DataFrame:
    """Coverage, width and power of each interval method for a study of ``n_items`` items.

    Draws ``n_sims`` studies from the design of :func:`study_size_for_width` (an easy
    share that gives the coefficient the population value ``expected``),
    computes the coefficient's analytic interval and, with ``bootstrap=True``,
    the item bootstrap's percentile and BCa intervals (``n_resamples`` each).

    Parameters
    ----------
    coefficient : str
        A coefficient of ``agreement`` by name (``"cohen_kappa"``, ``"fleiss_kappa"``,
        ``"krippendorff_alpha"``, ...).
    n_items : int
    expected : float
        The population value of the coefficient.
    n_raters, n_categories, category_shares, missing, level
        The design (see :func:`study_size_for_width`).
    null : float, optional
        With a null value, the analytic test's power at ``significance``.
    alternative : {"greater", "less", "two-sided"}
    significance, confidence_level : float
    bootstrap : bool, default True
    n_sims : int, default 1000
    n_resamples : int, default 499
    chance : {"shares", "uniform"}, default "shares"
        How a hard item is rated (see :func:`study_size_for_width`).
    rng : None, int or numpy.random.Generator
    max_seconds, progress
        How long the simulation may take (estimated from a timed pilot) and its
        progress bar; see :func:`study_size_for_width`.

    Returns
    -------
    pandas.DataFrame
        One row per interval method: ``coverage`` with its Wilson interval
        (``coverage_low``, ``coverage_high``), ``mean_half_width``,
        ``median_half_width``, ``degenerate`` (studies with no interval) and,
        with ``null``, ``power``.

    Examples
    --------
    Gwet's (2016, Table 1) small-sample cell: ten items, two categories,
    prevalence 0.75, annotators agreeing for cause on 85% of items (Brennan–Prediger's
    population value is then exactly 0.85); Gwet reports coverage 0.547:

    >>> from simulation import simulate_study
    >>> t = simulate_study("brennan_prediger", n_items=10, expected=0.85,
    ...                    category_shares=[0.75, 0.25], chance="uniform",
    ...                    bootstrap=False, n_sims=400, rng=1)
    >>> bool(0.45 < t.loc[0, "coverage"] < 0.65)
    True
    """
    check_params(simulate_study, locals())
    p = _common_iv(coefficient, expected, n_raters, n_categories, category_shares, missing,
                   level, confidence_level, rng, chance)
    n_items = check_integer(n_items, "n_items", 2)
    n_sims = check_integer(n_sims, "n_sims", 1)
    n_resamples = check_integer(n_resamples, "n_resamples", 1)
    check_option(alternative, "alternative", _ALTERNATIVES)
    significance = check_probability(significance, "significance", open_low=True,
                                     open_high=True)
    if null is not None:
        null = _real(null, "null", *_range(coefficient))
    if max_seconds is not None:
        max_seconds = _real(max_seconds, "max_seconds", 0.0, math.inf, open_low=True)
    analysis = StudyAnalysis(p["confidence_level"], p["level"], null, alternative)
    _cost.check_memory(n_items, p["design"], "this study cannot be simulated")
    cost = _cost.timed_pilot(p["design"], p["expected"], analysis, n_resamples=n_resamples,
                             bootstrap=bool(bootstrap))
    seconds = n_sims * cost.study(n_items, bool(bootstrap))
    _cost.check_cost(seconds, max_seconds, cost, n_sims, "this simulation")
    _cost.announce(f"simulate_study ({p['coefficient']})", seconds, n_sims, progress)
    with progress_bar(n_sims * n_items, desc=f"simulating {p['coefficient']} studies",
                      unit=" items", enabled=progress) as tick:
        studies = run_studies(p["design"], n_items, p["expected"], n_sims, analysis=analysis,
                              bootstrap=bool(bootstrap), n_resamples=n_resamples, tick=tick)
    methods = INTERVAL_METHODS if bootstrap else ("analytic",)
    return performance_frame(studies, p["expected"], significance if null is not None else None,
                             methods)

