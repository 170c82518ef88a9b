"""``study_size``: how many items an agreement study needs (SPEC §8)."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import numbers
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.progress import progress_bar
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Integer,
    Option,
    Probability,
    Resamples,
    Rng,
    check_confidence_level,
    check_integer,
    check_option,
    check_params,
    check_probability,
    check_rng,
    check_shares,
    validate_params,
)
from simulation.study import _closed_form as cf
from simulation.study import _cost
from simulation.study._cost import MAX_SECONDS
from simulation.study._design import COEFFICIENTS, Design
from simulation.study._simulate import INTERVAL_METHODS, performance_frame, run_studies

__all__ = ["StudyPlan", "StudyTradeoff", "simulate_study", "study_size", "study_size_for_minimum",
           "study_size_for_power", "study_size_for_width", "study_tradeoff"]

_METHODS = ("auto", "closed-form", "simulation")
_ALTERNATIVES = ("greater", "less", "two-sided")
_LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: Smallest study the search considers.
_N_START = 10
_CHANCE = ("shares", "uniform")


@dataclasses.dataclass(frozen=True)
class StudyPlan(Result):
    """How many items a study needs, and how its intervals behave at that size.

    Attributes
    ----------
    coefficient : str
        The coefficient planned for (a function name of ``agreement``).
    goal : {"width", "power", "minimum"}
        Interval half-width ≤ ``target``; power of the test against ``null``;
        Bloch & Kraemer's smallest acceptable α (``minimum``).
    n_items : int
        Items needed (sizes round up).
    method : {"closed-form", "simulation"}
    n_raters, n_categories : int
    expected : float
        The coefficient's assumed value.
    target, null, power, minimum : float or None
        The goal's parameters.
    confidence_level, significance : float or None
    recommended_interval : str or None
        ``"analytic"``, ``"percentile"`` or ``"bca"`` (None when nothing was
        simulated): the analytic interval when its
        coverage is not significantly below nominal (Wilson interval), else BCa,
        else the percentile interval.
    half_width, achieved_power, coverage : float
        At ``n_items``: the mean half-width and coverage of the recommended
        interval and the test's power (NaN where not computed).
    n_ratings : float
        Expected ratings at ``n_items`` (``n_items · n_raters · (1 − missing)``); for
        the ``minimum`` goal, Krippendorff's number of values (codings) itself, of
        which ``n_items`` is the units ``⌈n_ratings / n_raters⌉``.
    n_range : tuple of int or None
        From a pilot: the items needed at the ends of the pilot's interval.
    formula : str
        The closed form used, or how the size was searched.
    notes : tuple of str
    table : pandas.DataFrame
        One row per evaluated size and interval method: ``n_items``, ``interval``,
        ``coverage`` (and its Wilson interval), ``mean_half_width``, ``power``,
        ``reach_share`` (width goals), ...
    assurance : float or None
        Width goals: the share of studies planned to reach the half-width
        (``None``: the *mean* half-width is the target, which about half of the
        studies miss).
    reach_share : float
        Width goals: the share of the simulated studies at ``n_items`` whose
        analytic interval reached the half-width (NaN for closed forms).

    ``to_frame()`` returns ``table``; ``float(plan)`` is ``n_items``.
    """

    _headline: ClassVar[str] = "n_items"
    _records = _table = "table"
    _summary = (
        "{coefficient}: {goal==minimum:{n_ratings:,.0f} values, {n_items} units|{n_items} items} "
        "({method})",
        ("goal==width", "  target: {width_goal} at an expected value of {expected:.4g}"),
        ("goal==power", "  target: power {power:g} to reject {null:g} at significance "
         "{significance:g} when the value is {expected:.4g}"),
        ("goal==minimum", "  target: alpha above {minimum:g} at significance {significance:g}"),
        ("goal==minimum", "  values: Krippendorff's unit, one coder's value for one unit "
         "({n_raters} coders per unit); {n_categories} categories"),
        ("goal!=minimum", "  {n_raters} annotators, {n_categories} categories; about "
         "{n_ratings:,.0f} ratings"),
        "  recommended interval: {recommended_interval} (coverage {coverage:.3f}, mean "
        "half-width {half_width:.4f})",
        ("achieved_power!=nan", "  power at that size: {achieved_power:.3f}"),
        "  from the pilot's interval: {n_range[0]} to {n_range[1]} items",
        "  {formula}", ("notes", "  * {}"))

    coefficient: str
    goal: str
    n_items: int
    method: str
    n_raters: int
    n_categories: int
    expected: float
    target: float | None
    null: float | None
    power: float | None
    minimum: float | None
    confidence_level: float
    significance: float | None
    recommended_interval: str | None
    half_width: float
    achieved_power: float
    coverage: float
    n_ratings: float
    n_range: tuple[int, int] | None
    formula: str
    notes: tuple[str, ...]
    table: pd.DataFrame = dataclasses.field(repr=False, compare=False)
    assurance: float | None = None
    reach_share: float = math.nan

    def __repr__(self) -> str:
        return (f"StudyPlan({self.coefficient}, goal={self.goal!r}, n_items={self.n_items}, "
                f"method={self.method!r}, recommended_interval={self.recommended_interval!r})")

    def width_goal(self) -> str:
        """The width goal in words: which half-width, and for which share of studies."""
        if self.goal != "width":
            return ""
        reach = ("" if not math.isfinite(self.reach_share) else
                 f"; {self.reach_share:.0%} of the simulated studies reach it")
        if self.assurance is not None:
            return (f"a {self.confidence_level:.0%} interval half-width of at most "
                    f"{self.target:g} in {self.assurance:.0%} of studies (assurance "
                    f"{self.assurance:g}{reach})")
        return (f"a mean {self.confidence_level:.0%} interval half-width of at most "
                f"{self.target:g} (no assurance: about half of the studies get a wider "
                f"interval{reach}; set `assurance`, e.g. 0.8)")

    def plot(self, ax: Any = None) -> Any:
        """Half-width (and coverage) of the intervals against the number of items."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 4))
        t = self.table
        curve = t[(t["interval"] == "analytic") & (t["stage"] != "comparison")]
        curve = curve.sort_values("n_items")
        ax.plot(curve["n_items"], curve["mean_half_width"], marker="o", color="C0",
                label="analytic half-width (simulated)")
        comp = t[t["stage"] == "comparison"]
        for i, (_, row) in enumerate(comp.iterrows()):
            ax.plot([row["n_items"]], [row["mean_half_width"]], marker="s", linestyle="",
                    color=f"C{i + 1}", label=f"{row['interval']}: half-width "
                                             f"{row['mean_half_width']:.3f}, coverage "
                                             f"{row['coverage']:.3f}")
        if self.target is not None:
            ax.axhline(self.target, color="grey", linestyle=":", label="target half-width")
        ax.axvline(self.n_items, color="black", linestyle="--", label=f"n = {self.n_items}")
        ax.set_xscale("log")
        ax.set_xlabel("items (log scale)")
        ax.set_ylabel(f"mean half-width of the {self.confidence_level:.0%} interval")
        ax.set_title(f"{self.coefficient}: {self.n_items} items ({self.method})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        return ax


@dataclasses.dataclass(frozen=True)
class StudyTradeoff(Result):
    """More items or more annotators: the cheapest design for a target half-width.

    Attributes
    ----------
    n_raters : int
        Annotators per item of the cheapest design.
    n_items : int
        Its items.
    cost : float
        Its cost: ``n_items · (cost_per_item + n_raters · (1 − missing) · cost_per_rating)``.
    table : pandas.DataFrame
        One row per number of annotators: ``n_raters``, ``n_items``, ``n_ratings``, ``cost``.
    """

    _headline: ClassVar[str] = "n_raters"
    _records = _table = "table"

    coefficient: str
    n_raters: int
    n_items: int
    cost: float
    table: pd.DataFrame = dataclasses.field(repr=False, compare=False)


# ----------------------------------------------------------------------------- validation

def _real(value: Any, name: str, low: float, high: float, *, open_low: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a number; got {value!r} (type "
                        f"{type(value).__name__}).")
    v = float(value)
    ok = (v > low if open_low else v >= low) and v <= high and math.isfinite(v)
    if not ok:
        raise ValueError(f"`{name}` must be in {'(' if open_low else '['}{low:g}, {high:g}]; "
                         f"got {value!r}.")
    return v


def _range(coefficient: str) -> tuple[float, float]:
    return (0.0, 1.0) if coefficient == "percent_agreement" else (-1.0, 1.0)


def _shares_iv(category_shares: Any, n_categories: Any, n_raters: int) -> np.ndarray:
    if category_shares is None:
        q = check_integer(2 if n_categories is None else n_categories, "n_categories", 2)
        return np.full(q, 1.0 / q)
    shares = _shares_only(category_shares, n_raters)
    if n_categories is not None:
        q = check_integer(n_categories, "n_categories", 2)
        if q != shares.shape[-1]:
            raise ValueError(f"`n_categories` = {q} but `category_shares` gives "
                             f"{shares.shape[-1]} shares: give one of them, or as many shares "
                             "as categories.")
    return shares


def _shares_only(category_shares: Any, n_raters: int) -> np.ndarray:
    arr = np.asarray(category_shares, dtype=object)
    if arr.ndim == 2:
        rows = [check_shares(np.asarray(row, float), "category_shares") for row in
                np.asarray(category_shares, float)]
        if len(rows) != 2 or n_raters != 2 or len(rows[0]) != 2:
            raise ValueError("`category_shares` with one row per annotator is supported for "
                             "two annotators and two categories (Cantor's design); got "
                             f"{len(rows)} rows of {len(rows[0])} shares for {n_raters} "
                             "annotators.")
        return np.vstack(rows)
    shares = check_shares(category_shares, "category_shares")
    if shares.size < 2:
        raise ValueError("`category_shares` needs at least two categories.")
    return shares


def _seed(rng: Any) -> int:
    gen = check_rng(rng)
    return int(gen.integers(0, 2**63 - 1))


# ----------------------------------------------------------------------------- public API

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

    Draws ``n_sims`` studies from the design of :func:`study_size` (an easy
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
        The design (see :func:`study_size`).
    null : float, optional
        With a null value, the analytic test's power at ``significance``.
    alternative : {"greater", "less", "two-sided"}
    significance, confidence_level : float
    bootstrap : bool, default True
    n_sims : int, default 1000
    n_resamples : int, default 499
    chance : {"shares", "uniform"}, default "shares"
        How a hard item is rated (see :func:`study_size`).
    rng : None, int or numpy.random.Generator
    max_seconds, progress
        How long the simulation may take (estimated from a timed pilot) and its
        progress bar; see :func:`study_size`.

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
    sim_kw = {"confidence_level": p["confidence_level"], "level": p["level"], "null": null,
              "alternative": alternative}
    _cost.check_memory(n_items, p["design"], "this study cannot be simulated")
    cost = _cost.timed_pilot(p["design"], p["expected"], sim_kw, n_resamples=n_resamples,
                             bootstrap=bool(bootstrap))
    seconds = n_sims * cost.study(n_items, bool(bootstrap))
    _cost.check_cost(seconds, max_seconds, cost, n_sims, "this simulation")
    _cost.announce(f"simulate_study ({p['coefficient']})", seconds, n_sims, progress)
    with progress_bar(n_sims * n_items, desc=f"simulating {p['coefficient']} studies",
                      unit=" items", enabled=progress) as tick:
        studies = run_studies(p["design"], n_items, p["expected"], n_sims,
                              bootstrap=bool(bootstrap), n_resamples=n_resamples, tick=tick,
                              **sim_kw)
    methods = INTERVAL_METHODS if bootstrap else ("analytic",)
    return performance_frame(studies, p["expected"], significance if null is not None else None,
                             methods)


def _common_iv(coefficient: Any, expected: Any, n_raters: Any, n_categories: Any,
               category_shares: Any, missing: Any, level: Any, confidence_level: Any,
               rng: Any, chance: Any = "shares") -> dict:
    coefficient = check_option(coefficient, "coefficient", COEFFICIENTS)
    n_raters = check_integer(n_raters, "n_raters", 2)
    if coefficient in ("cohen_kappa", "scott_pi") and n_raters != 2:
        raise ValueError(f"`{coefficient}` is defined for two raters; got n_raters={n_raters}. "
                         "Use `fleiss_kappa` or `conger_kappa` for more.")
    shares = _shares_iv(category_shares, n_categories, n_raters)
    missing = check_probability(missing, "missing", open_high=True)
    if level is not None:
        if coefficient != "krippendorff_alpha":
            raise ValueError("`level` applies to `krippendorff_alpha` only.")
        level = check_option(level, "level", _LEVELS)
    if expected is None:
        raise TypeError("`expected` (the coefficient's assumed value) is required unless a "
                        "`pilot` gives it.")
    lo, hi = _range(coefficient)
    expected = _real(expected, "expected", lo, hi)
    chance = check_option(chance, "chance", _CHANCE)
    if chance == "uniform" and (shares.ndim == 2 or level not in (None, "nominal")):
        raise ValueError("chance='uniform' needs one row of shares and, for Krippendorff's "
                         "alpha, the nominal level.")
    design = Design(coefficient, n_raters, shares, missing, _seed(rng), chance, level)
    if shares.ndim == 2:
        cf.cohen_table(expected, shares[0], shares[1])  # raises when κ is not reachable
    else:
        design.easy_share(expected)
    return {"coefficient": coefficient, "n_raters": n_raters, "shares": shares,
            "missing": missing, "level": level, "expected": expected, "design": design,
            "confidence_level": check_confidence_level(confidence_level)}


#: The options every entry of the planner declares (the shared vocabulary).
_DESIGN = dict(method=Option(_METHODS), confidence_level=ConfidenceLevel(),
               n_raters=Integer(2, optional=True),
               missing=Probability(open_high=True, optional=True), n_sims=Integer(10),
               n_bootstrap_sims=Integer(0), n_resamples=Resamples(1),
               max_items=Integer(_N_START), chance=Option(_CHANCE), rng=Rng())


@validate_params(coefficient=Option(COEFFICIENTS), method=Option(_METHODS),
                 alternative=Option(_ALTERNATIVES), confidence_level=ConfidenceLevel(),
                 significance=Probability(open_low=True, open_high=True, optional=True),
                 n_raters=Integer(2, optional=True),
                 missing=Probability(open_high=True, optional=True),
                 n_sims=Integer(10),
                 n_bootstrap_sims=Integer(0), n_resamples=Resamples(1),
                 max_items=Integer(_N_START), chance=Option(_CHANCE), rng=Rng(),
                 assurance=Probability(open_low=True, open_high=True, optional=True))
def study_size(coefficient: str, *, expected: float | None = None, target: float | None = None,
               null: float | None = None, power: float | None = None,
               alternative: str = "greater", minimum: float | None = None,
               significance: float | None = None, n_raters: int | None = None,
               n_categories: int | None = None,
               category_shares: Any = None, missing: float | None = None,
               level: str | None = None,
               confidence_level: float = 0.95, method: str = "auto", n_sims: int = 500,
               n_bootstrap_sims: int = 200, n_resamples: int = 499, max_items: int = 20_000,
               chance: str = "shares", pilot: Any = None, rng: Any = None,
               assurance: float | None = None, max_seconds: float | None = MAX_SECONDS,
               progress: bool | None = None) -> StudyPlan:
    r"""Items an agreement study needs: one entry for the three goals, chosen by the arguments.

    Kept for compatibility: ``study_size`` dispatches on which goal's arguments
    are given, with the same results and errors as the entry of that goal:

    - ``target`` (and ``assurance``): :func:`study_size_for_width`;
    - ``null`` and ``power``: :func:`study_size_for_power`;
    - ``minimum`` (Krippendorff's α only, closed form): :func:`study_size_for_minimum`.

    Parameters
    ----------
    coefficient : str
        ``"percent_agreement"``, ``"fleiss_kappa"``, ``"scott_pi"``,
        ``"cohen_kappa"``, ``"conger_kappa"``, ``"light_kappa"``,
        ``"brennan_prediger"``, ``"gwet_ac1"`` or ``"krippendorff_alpha"``.
    expected : float
        The coefficient's assumed value (the pilot's when ``pilot`` is given and
        ``expected`` is not; a value given wins, with a note).
    target : float, optional
        Half-width of the interval (> 0).
    null, power : float, optional
        The test's null value and the power wanted (in (0, 1)); both or neither.
    alternative : {"greater", "less", "two-sided"}, default "greater"
    minimum : float, optional
        Smallest acceptable α (Bloch & Kraemer's goal).
    significance : float, optional
        Of the test (default 0.05).
    n_raters : int, optional
        Annotators per item (default 2, or the pilot's; a value given wins over
        the pilot's, with a note). Simulation plans of more than 1,000 take a
        closed form where one applies, else say how long they will take.
    n_categories : int, optional
        Equally likely categories (default 2), unless ``category_shares`` is
        given (a different number of shares is an error).
    category_shares : array_like, optional
        The categories' shares (summing to 1); for Cohen's κ with two
        categories, one row per annotator (two rows) for different marginals.
    missing : float, optional
        Share of ratings missing at random (default 0, or the pilot's; a value
        given wins over the pilot's, with a note).
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Krippendorff's α's level (categories are the values 0, 1, ...).
    confidence_level : float, default 0.95
    method : {"auto", "closed-form", "simulation"}, default "auto"
        ``"auto"`` takes the closed form where one exists (Cohen's κ with two
        annotators, two categories and no missing ratings: Cantor 1996; α with
        ``minimum``: Bloch & Kraemer 1989), else simulation.
    n_sims : int, default 500
        Simulated studies per size in the search (200 of them while doubling).
    n_bootstrap_sims : int, default 200
        Simulated studies for the interval comparison at the size found
        (0 skips it).
    n_resamples : int, default 499
        Bootstrap resamples in that comparison.
    max_items : int, default 20000
        The search stops here.
    chance : {"shares", "uniform"}, default "shares"
        How a hard (not easy) item is rated in the simulation: each annotator draws
        from the category shares (every κ-type coefficient's population value
        is then the easy share), or uniformly among the categories (Gwet's 2016
        design, where the shares are the true classes' prevalence).
    pilot : Ratings or array_like, optional
        Pilot ratings: their category shares, annotators and missing share define
        the design, their coefficient value is ``expected``, and the ends of its
        interval give ``n_range``.
    rng : None, int or numpy.random.Generator
    assurance : float, optional
        Width goals only: plan for the size at which this share of studies, in
        (0, 1), reach the half-width ``target`` (a study without an interval counts
        as one that does not). Found by simulation (the closed form is of the
        mean). Without it the mean half-width is the target, and only about half
        of planned studies reach it: 48–50% of the simulated studies at the
        size planned for Fleiss' κ = 0.6 (3 annotators), Krippendorff's α = 0.7
        (2 annotators, 3 categories) and Cohen's κ = 0.6, half-width 0.1;
        assurance 0.8 took 6–13% more items there, 0.9 9–17% (500 studies a
        size).
    max_seconds : float or None, default 1800
        A simulation estimated to take longer is refused before it starts (the
        estimate comes from a short timed pilot of the simulation, and every
        simulated plan notes it); None runs whatever it takes.
    progress : bool or None, default None
        Say how long the simulation will take before starting, and show a
        progress bar (tqdm, on stderr): None on a terminal only, True always,
        False never.

    Returns
    -------
    StudyPlan

    Raises
    ------
    TypeError, ValueError
        For no goal or two goals, ``power`` without ``null``, a target width
        ≤ 0, an expected value outside the coefficient's range or beyond what
        the shares allow, shares that do not sum to 1, a closed form asked for
        outside its scope, or a size beyond ``max_items``.

    References
    ----------
    .. [1] Cantor, A. B. (1996). Sample-size calculations for Cohen's kappa.
       Psychological Methods 1(2), 150–153. https://doi.org/10.1037/1082-989X.1.2.150
    .. [2] Bloch, D. A. & Kraemer, H. C. (1989). 2 x 2 kappa coefficients.
       Biometrics 45(1), 269–287. https://doi.org/10.2307/2531653
    .. [3] Krippendorff, K. (2004). Content Analysis (2nd ed.), §11.4.4. Sage.
    .. [4] Gwet, K. L. (2016). Testing the difference of correlated agreement
       coefficients for statistical significance. Educational and Psychological
       Measurement 76(4), 609–637. https://doi.org/10.1177/0013164415596420

    Examples
    --------
    Cantor's example, the formula behind R irr's ``N.cohen.kappa(0.5, 0.5, 0.85, 0.7)``:

    >>> from simulation import study_size
    >>> study_size("cohen_kappa", expected=0.85, null=0.7, power=0.8,
    ...            category_shares=[0.5, 0.5], method="closed-form",
    ...            n_bootstrap_sims=0, n_sims=200, rng=0).n_items
    117

    Krippendorff's table: α ≥ 0.8 at p = 0.05 with four equiprobable categories
    needs 139 values (70 units coded by both coders):

    >>> plan = study_size("krippendorff_alpha", minimum=0.8, significance=0.05,
    ...                   n_categories=4, method="closed-form")
    >>> plan.n_ratings, plan.n_items
    (139.0, 70)
    """
    check_params(study_size, locals())
    kwargs = {k: v for k, v in locals().items() if k != "coefficient"}
    return _plan_size(coefficient, **kwargs)


@validate_params(coefficient=Option(COEFFICIENTS),
                 assurance=Probability(open_low=True, open_high=True, optional=True), **_DESIGN)
def study_size_for_width(coefficient: str, *, target: float, expected: float | None = None,
                         assurance: float | None = None, n_raters: int | None = None,
                         n_categories: int | None = None, category_shares: Any = None,
                         missing: float | None = None, level: str | None = None,
                         confidence_level: float = 0.95, method: str = "auto",
                         n_sims: int = 500, n_bootstrap_sims: int = 200,
                         n_resamples: int = 499, max_items: int = 20_000,
                         chance: str = "shares", pilot: Any = None,
                         rng: Any = None, max_seconds: float | None = MAX_SECONDS,
                         progress: bool | None = None) -> StudyPlan:
    r"""Items an agreement study needs for its interval's half-width.

    The expected (mean) half-width of the ``confidence_level`` interval is at
    most ``target`` -- about half of the studies of that size get a wider
    interval -- or, with ``assurance``, the ``assurance`` share of studies (e.g.
    0.8) get an interval at most ``target`` wide.

    Cohen's κ with two annotators, two categories and no missing ratings has a
    closed form (the Fleiss–Cohen–Everitt variance at the expected κ, as Cantor
    1996 uses it): :math:`n = (z_{(1+c)/2} \sqrt{Q_1} / h)^2`. Everything else is
    found by simulation (see :func:`study_size_for_power` for the model and the
    search); at the size found the analytic, percentile and BCa intervals are
    compared and the first that covers is recommended.

    Parameters
    ----------
    coefficient : str
        ``"percent_agreement"``, ``"fleiss_kappa"``, ``"scott_pi"``,
        ``"cohen_kappa"``, ``"conger_kappa"``, ``"light_kappa"``,
        ``"brennan_prediger"``, ``"gwet_ac1"`` or ``"krippendorff_alpha"``.
    target : float
        Half-width of the interval (> 0).
    expected : float
        The coefficient's assumed value (the pilot's when ``pilot`` is given and
        ``expected`` is not).
    assurance : float, optional
        Plan for the size at which this share of studies, in (0, 1), reach the
        half-width (by simulation: the closed form is of the mean).
    n_raters, n_categories, category_shares, missing, level, chance, pilot
        The design; see :func:`study_size`.
    confidence_level : float, default 0.95
    method : {"auto", "closed-form", "simulation"}, default "auto"
    n_sims, n_bootstrap_sims, n_resamples, max_items, rng
        The simulation; see :func:`study_size`.
    max_seconds, progress
        How long a simulation may take, and its progress bar; see :func:`study_size`.

    Returns
    -------
    StudyPlan

    See Also
    --------
    study_size : the same plan, the goal chosen by the arguments given.

    Examples
    --------
    >>> from simulation import study_size_for_width
    >>> study_size_for_width("cohen_kappa", expected=0.6, target=0.1,
    ...                      method="closed-form", n_bootstrap_sims=0, rng=0).n_items
    246
    """
    check_params(study_size_for_width, locals())
    if target is None:
        raise TypeError("`target` (the interval's half-width) is required.")
    kwargs = {k: v for k, v in locals().items() if k != "coefficient"}
    return _plan_size(coefficient, **kwargs)


@validate_params(coefficient=Option(COEFFICIENTS), alternative=Option(_ALTERNATIVES),
                 significance=Probability(open_low=True, open_high=True, optional=True),
                 **_DESIGN)
def study_size_for_power(coefficient: str, *, null: float, power: float,
                         expected: float | None = None, alternative: str = "greater",
                         significance: float | None = None, n_raters: int | None = None,
                         n_categories: int | None = None, category_shares: Any = None,
                         missing: float | None = None, level: str | None = None,
                         confidence_level: float = 0.95, method: str = "auto",
                         n_sims: int = 500, n_bootstrap_sims: int = 200,
                         n_resamples: int = 499, max_items: int = 20_000,
                         chance: str = "shares", pilot: Any = None,
                         rng: Any = None, max_seconds: float | None = MAX_SECONDS,
                         progress: bool | None = None) -> StudyPlan:
    r"""Items an agreement study needs for a test's power.

    A test of the coefficient against ``null`` (``alternative``, at
    ``significance``, default 0.05) rejects with probability ``power`` when its
    value is ``expected``.

    Cohen's κ with two annotators, two categories and no missing ratings has
    Cantor's (1996) closed form, :math:`n = [(z_{1-a}\sqrt{Q_0} +
    z_{\text{power}}\sqrt{Q_1}) / (\kappa_1 - \kappa_0)]^2` with Q the
    Fleiss–Cohen–Everitt unit variance of κ̂ at κ₀ and κ₁ (the formula behind R
    irr's ``N.cohen.kappa``). Everything else is found by simulation: studies
    are drawn from a model in which each item is "easy" (all annotators give its
    class) with a probability that gives the coefficient the value ``expected``,
    and otherwise every annotator draws from the category shares; the size is
    found by doubling and then bisection on n, every size on common random
    numbers (``n_sims`` studies with the analytic test).

    Parameters
    ----------
    coefficient : str
        A coefficient of ``agreement`` by name (see :func:`study_size`).
    null, power : float
        The test's null value and the power wanted, in (0, 1).
    expected : float
        The coefficient's assumed value (the pilot's when ``pilot`` is given).
    alternative : {"greater", "less", "two-sided"}, default "greater"
    significance : float, optional
        Of the test (default 0.05).
    n_raters, n_categories, category_shares, missing, level, chance, pilot
        The design; see :func:`study_size`.
    confidence_level : float, default 0.95
    method : {"auto", "closed-form", "simulation"}, default "auto"
    n_sims, n_bootstrap_sims, n_resamples, max_items, rng
        The simulation; see :func:`study_size`.
    max_seconds, progress
        How long a simulation may take, and its progress bar; see :func:`study_size`.

    Returns
    -------
    StudyPlan

    See Also
    --------
    study_size : the same plan, the goal chosen by the arguments given.

    Examples
    --------
    Cantor's example, R irr's ``N.cohen.kappa(0.5, 0.5, 0.85, 0.7)``:

    >>> from simulation import study_size_for_power
    >>> study_size_for_power("cohen_kappa", expected=0.85, null=0.7, power=0.8,
    ...                      category_shares=[0.5, 0.5], method="closed-form",
    ...                      n_bootstrap_sims=0, rng=0).n_items
    117
    """
    check_params(study_size_for_power, locals())
    if null is None or power is None:
        raise TypeError("`null` and `power` (the power of a test against `null`) are "
                        "required.")
    kwargs = {k: v for k, v in locals().items() if k != "coefficient"}
    return _plan_size(coefficient, **kwargs)


@validate_params(significance=Probability(open_low=True, open_high=True, optional=True),
                 n_raters=Integer(2, optional=True), confidence_level=ConfidenceLevel())
def study_size_for_minimum(minimum: float, *, significance: float | None = None,
                           n_raters: int | None = None, n_categories: int | None = None,
                           category_shares: Any = None, level: str | None = None,
                           confidence_level: float = 0.95, pilot: Any = None) -> StudyPlan:
    r"""Krippendorff's α: the values and units for a smallest acceptable α.

    Bloch & Kraemer's (1989, eq. 3.7) size as Krippendorff (2004, §11.4.4)
    tabulates it, for α to be above ``minimum`` at ``significance`` (one-sided):
    ``N = m z² [(1+α)(3−α) / (4 (1−α) p_c (1−p_c)) − α]`` *values* (codings:
    one coder's value for one unit), m the coders (his table's m = 2; with more,
    z² is multiplied by m, as he advises) and p_c the smallest category share.
    The plan's ``n_ratings`` is N rounded up, its ``n_items`` the units
    ``⌈N / m⌉`` that give as many values when every coder codes every unit.

    Parameters
    ----------
    minimum : float
        Smallest acceptable α, in (0, 1).
    significance : float, optional
        Default 0.05.
    n_raters : int, optional
        Coders per unit (default 2, or the pilot's).
    n_categories, category_shares, level, pilot
        The design; see :func:`study_size`.
    confidence_level : float, default 0.95
        Recorded on the plan (the size does not use it).

    Returns
    -------
    StudyPlan

    See Also
    --------
    study_size : the same plan, the goal chosen by the arguments given.

    Examples
    --------
    Krippendorff's table: α ≥ 0.8 at p = 0.05 with four equiprobable categories
    needs 139 values, 70 units coded by both coders:

    >>> from simulation import study_size_for_minimum
    >>> plan = study_size_for_minimum(0.8, significance=0.05, n_categories=4)
    >>> plan.n_ratings, plan.n_items
    (139.0, 70)
    """
    check_params(study_size_for_minimum, locals())
    return _plan_size("krippendorff_alpha", minimum=minimum, significance=significance,
                      n_raters=n_raters, n_categories=n_categories,
                      category_shares=category_shares, level=level,
                      confidence_level=confidence_level, pilot=pilot)


def _plan_size(coefficient: str, *, expected: float | None = None, target: float | None = None,
               null: float | None = None, power: float | None = None,
               alternative: str = "greater", minimum: float | None = None,
               significance: float | None = None, n_raters: int | None = None,
               n_categories: int | None = None,
               category_shares: Any = None, missing: float | None = None,
               level: str | None = None,
               confidence_level: float = 0.95, method: str = "auto", n_sims: int = 500,
               n_bootstrap_sims: int = 200, n_resamples: int = 499, max_items: int = 20_000,
               chance: str = "shares", pilot: Any = None, rng: Any = None,
               assurance: float | None = None, max_seconds: float | None = MAX_SECONDS,
               progress: bool | None = None) -> StudyPlan:
    """The planner behind every entry: the goal is the one whose arguments are given."""
    method = check_option(method, "method", _METHODS)
    alternative = check_option(alternative, "alternative", _ALTERNATIVES)
    confidence_level = check_confidence_level(confidence_level)
    goal = _goal(target, null, power, minimum)
    if assurance is not None:
        if goal != "width":
            raise ValueError("`assurance` is the share of studies reaching an interval's "
                             "half-width: it goes with `target` only.")
        assurance = check_probability(assurance, "assurance", open_low=True, open_high=True)
        if method == "closed-form":
            raise ValueError("the closed form gives the size for the mean half-width; a plan "
                             "with `assurance` is found by simulation (method='simulation' "
                             "or 'auto').")
    n_sims = check_integer(n_sims, "n_sims", 10)
    n_bootstrap_sims = check_integer(n_bootstrap_sims, "n_bootstrap_sims", 0)
    n_resamples = check_integer(n_resamples, "n_resamples", 1)
    max_items = check_integer(max_items, "max_items", _N_START)
    if max_seconds is not None:
        max_seconds = _real(max_seconds, "max_seconds", 0.0, math.inf, open_low=True)
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"`progress` must be True, False or None; got {progress!r}.")
    significance = 0.05 if significance is None else check_probability(
        significance, "significance", open_low=True, open_high=True)
    notes: list[str] = []
    pilot_ci = None
    if pilot is not None:
        # What is given explicitly wins over what the pilot says (and the note says so).
        p_expected, p_raters, category_shares, p_missing, pilot_ci, note = _from_pilot(
            pilot, coefficient, level, confidence_level, category_shares)
        if missing is not None and float(missing) != p_missing:
            notes.append(f"{float(missing):.1%} missing ratings as given, not the pilot's "
                         f"{p_missing:.1%}")
        else:
            missing = p_missing
        notes.append(note)
        if expected is not None and float(expected) != p_expected:
            notes.append(f"the expected value given ({float(expected):g}) is used, not the "
                         f"pilot's {p_expected:.4f}")
            pilot_ci = None  # the pilot's interval is about its own value
        else:
            expected = p_expected
        if n_raters is not None and n_raters != p_raters:
            notes.append(f"{n_raters} annotators per item as given, not the pilot's "
                         f"{p_raters}")
        else:
            n_raters = p_raters
    if n_raters is None:
        n_raters = 2
    if missing is None:
        missing = 0.0

    if goal == "minimum":
        return _bloch_kraemer_plan(coefficient, minimum, significance, n_raters, n_categories,
                                   category_shares, method, confidence_level, expected, notes)
    if expected is None:
        raise TypeError("`expected` (the coefficient's assumed value) is required unless a "
                        "`pilot` gives it.")
    p = _common_iv(coefficient, expected, n_raters, n_categories, category_shares, missing,
                   level, confidence_level, rng, chance)
    coefficient, expected, shares = p["coefficient"], p["expected"], p["shares"]
    lo, hi = _range(coefficient)
    if goal == "width":
        target = _real(target, "target", 0.0, hi - lo, open_low=True)
    else:
        power = check_probability(power, "power", open_low=True, open_high=True)
        null = _real(null, "null", lo, hi)
        wrong_side = ((alternative == "greater" and null >= expected)
                      or (alternative == "less" and null <= expected)
                      or (alternative == "two-sided" and null == expected))
        if wrong_side:
            raise ValueError(f"with alternative={alternative!r} the expected value "
                             f"{expected:g} must be {'above' if alternative == 'greater' else 'below' if alternative == 'less' else 'different from'} "
                             f"`null` = {null:g}; no size gives power otherwise.")

    closed_ok = (coefficient == "cohen_kappa" and shares.shape[-1] == 2 and p["missing"] == 0
                 and chance == "shares" and assurance is None)
    if method == "closed-form" and not closed_ok:
        raise ValueError(
            f"no closed form for {coefficient} with this design: the closed forms are Cohen's "
            "kappa with two annotators, two categories and no missing ratings (Cantor 1996), and "
            "Krippendorff's alpha with `minimum` (Bloch & Kraemer 1989); use "
            "method='simulation'.")
    use_closed = closed_ok and method in ("auto", "closed-form")
    n_quick = min(n_sims, 200)
    design = p["design"]
    sim_kw = {"confidence_level": confidence_level, "level": p["level"],
              "null": null if goal == "power" else None, "alternative": alternative}

    rows: dict[int, dict] = {}

    quick_rows: dict[int, dict] = {}
    if use_closed:
        n_closed = _closed_size(goal, expected, null, power, significance, alternative,
                                target, confidence_level, shares)
        work = [(n_sims, n, False) for n in {max(2, n_closed // 2), n_closed, 2 * n_closed}]
        work += [(n_bootstrap_sims, n_closed, True)] if n_bootstrap_sims else []
    elif max_seconds is None and not _progress_on(progress):
        # no limit to check and nothing to say: no pilot (a plan inside another's)
        work = []
    else:
        _cost.check_memory(_N_START, design, "this design cannot be simulated")
        cost = _cost.timed_pilot(design, expected, sim_kw, n_resamples=n_resamples,
                                 bootstrap=n_bootstrap_sims > 0)
        guess = _cost.guess_size(cost, goal, target=target, null=null, power=power,
                                 expected=expected, alternative=alternative,
                                 significance=significance, confidence_level=confidence_level,
                                 assured=assurance is not None, max_items=max_items)
        _cost.check_memory(min(2 * guess, max_items), design,
                           f"the plan's search would reach about {guess:,} items")
        work = _cost.search_studies(guess, n_sims=n_sims, n_quick=n_quick,
                                    max_items=max_items, n_bootstrap_sims=n_bootstrap_sims,
                                    start=_N_START)
        if pilot_ci is not None:  # two more searches, at the ends of the pilot's interval
            work += [w for w in work if not w[2]] * 2
        seconds = cost.pilot_seconds + sum(k * cost.study(n, b) for k, n, b in work)
        n_studies = sum(k for k, _, _ in work)
        _cost.check_cost(seconds, max_seconds, cost, n_studies,
                         f"this plan's simulation (about {guess:,} items)")
        _cost.announce(f"study_size ({coefficient})", seconds, n_studies, progress)
    bar = contextlib.ExitStack()
    tick = bar.enter_context(progress_bar(sum(k * n for k, n, _ in work),
                                          desc=f"simulating {coefficient} studies",
                                          unit=" items", enabled=progress))

    def evaluate(n: int, quick: bool = False) -> dict:
        # The quick pass (doubling) uses the first `n_quick` of the same studies.
        store, count = (quick_rows, n_quick) if quick else (rows, n_sims)
        if n in rows:
            return rows[n]
        if n not in store:
            st = run_studies(design, n, expected, count, bootstrap=False, n_resamples=1,
                             tick=tick, **sim_kw)
            store[n] = st.row("analytic", expected, significance if goal == "power" else None,
                              target=target if goal == "width" else None,
                              assurance=assurance)
        return store[n]

    def met(row: dict) -> bool:
        if goal == "width" and assurance is not None:
            return row["reach_share"] >= assurance
        if goal == "width":
            return row["degenerate"] < row["n_sims"] and row["mean_half_width"] <= target
        return row.get("power", 0.0) >= power

    with bar:
        return _finish_plan(**locals())


def _closed_size(goal: str, expected: float, null: Any, power: Any, significance: float,
                 alternative: str, target: Any, confidence_level: float, shares: np.ndarray
                 ) -> int:
    return max(math.ceil(_cantor(goal, expected, null, power, significance, alternative,
                                 target, confidence_level, shares)[0] - 1e-9), 2)


def _cantor(goal: str, expected: float, null: Any, power: Any, significance: float,
            alternative: str, target: Any, confidence_level: float, shares: np.ndarray
            ) -> tuple[float, dict]:
    a, b = (shares[0], shares[1]) if shares.ndim == 2 else (shares, shares)
    if goal == "power":
        return cf.cantor_power_size(expected, null, power, significance, a, b, alternative)
    return cf.cantor_width_size(expected, target, confidence_level, a, b)


def _finish_plan(*, use_closed: bool, goal: str, expected: float, null: Any, power: Any,
                 significance: float, alternative: str, target: Any, confidence_level: float,
                 shares: np.ndarray, max_items: int, evaluate: Any, met: Any,
                 assurance: Any, n_sims: int, n_quick: int, rows: dict, quick_rows: dict,
                 n_bootstrap_sims: int, design: Any, n_resamples: int, sim_kw: dict,
                 tick: Any, notes: list, pilot_ci: Any, coefficient: str, p: dict,
                 method: str, rng: Any, chance: str, **_: Any) -> StudyPlan:
    """The search (or the closed form's check), the interval comparison and the plan."""
    if use_closed:
        raw, info = _cantor(goal, expected, null, power, significance, alternative, target,
                            confidence_level, shares)
        n_items = max(math.ceil(raw - 1e-9), 2)
        formula = f"{info['formula']} = {raw:.2f}, rounded up"
        how = "closed-form"
        if n_items > max_items:
            raise ValueError(f"the closed form needs {n_items} items, beyond `max_items` = "
                             f"{max_items}; raise `max_items` if that is meant.")
        for n in sorted({max(2, n_items // 2), n_items, 2 * n_items}):
            evaluate(n)
    else:
        n_items = _search(evaluate, met, max_items, goal, target=target, power=power,
                          assured=assurance is not None)
        how = "simulation"
        formula = (f"simulation: {n_sims} studies per size on common random numbers ({n_quick} "
                   f"while doubling from {_N_START}), then bisection; the analytic "
                   f"{'interval' if goal == 'width' else 'test'} at each size")

    # The interval methods at the size found.
    table = pd.DataFrame([rows[n] for n in sorted(rows)])
    table["stage"] = "search"
    quick = [quick_rows[n] for n in sorted(quick_rows) if n not in rows]
    if quick:
        table = pd.concat([pd.DataFrame(quick).assign(stage="doubling"), table],
                          ignore_index=True)
    recommended = None
    at = rows[n_items]
    half, cov = at["mean_half_width"], at["coverage"]
    if n_bootstrap_sims > 0:
        st = run_studies(design, n_items, expected, n_bootstrap_sims, bootstrap=True,
                         n_resamples=n_resamples, tick=tick, **sim_kw)
        comp = performance_frame(st, expected, None, INTERVAL_METHODS)
        comp["stage"] = "comparison"
        table = pd.concat([table, comp], ignore_index=True)
        ok = comp[comp["coverage_high"] >= confidence_level]
        if len(ok):
            # The analytic interval when it covers (the search used it), else BCa, else
            # the percentile interval.
            order = {m: i for i, m in enumerate(INTERVAL_METHODS)}
            best = ok.sort_values("interval", key=lambda s: s.map(order)).iloc[0]
        else:
            best = comp.sort_values("coverage", ascending=False).iloc[0]
            notes.append(f"no interval method reaches {confidence_level:g} coverage at "
                         f"{n_items} items (best: {best['interval']} {best['coverage']:.3f}); "
                         "plan for more items or report the interval with that caveat")
        recommended = str(best["interval"])
        half, cov = float(best["mean_half_width"]), float(best["coverage"])
        if goal == "width" and half > target:
            notes.append(f"the recommended {recommended} interval's mean half-width at "
                         f"{n_items} items is {half:.4f}, above the target {target:g}")
    achieved_power = float(at.get("power", math.nan))
    n_range = None
    if pilot_ci is not None:
        n_range = _pilot_range(pilot_ci, coefficient, target, null, power, alternative,
                               significance, n_raters=p["n_raters"], shares=shares,
                               missing=p["missing"], level=p["level"],
                               confidence_level=confidence_level, method=method,
                               n_sims=n_sims, max_items=max_items, rng=rng, goal=goal,
                               chance=chance, assurance=assurance)
    if assurance is not None and n_sims * (1.0 - assurance) < 5:
        need = math.ceil(5 / (1.0 - assurance))
        notes.append(f"{n_sims} simulated studies cannot tell an assurance of {assurance:g} "
                     f"from 1 (fewer than 5 of them are expected to miss the width): the "
                     f"share reached is known to about 1/{n_sims}; simulate {need:,} or more "
                     "(`n_sims`)")
    if at["degenerate"]:
        notes.append(f"{at['degenerate']} of {at['n_sims']} simulated studies at {n_items} "
                     "items had no analytic interval (e.g. one category only)")
    return StudyPlan(
        coefficient=coefficient, goal=goal, n_items=int(n_items), method=how,
        n_raters=p["n_raters"], n_categories=int(shares.shape[-1]), expected=expected,
        target=target if goal == "width" else None, null=null if goal == "power" else None,
        power=power if goal == "power" else None, minimum=None,
        confidence_level=confidence_level,
        significance=significance if goal == "power" else None,
        recommended_interval=recommended, half_width=float(half), achieved_power=achieved_power,
        coverage=float(cov), n_ratings=float(n_items * p["n_raters"] * (1 - p["missing"])),
        n_range=n_range, formula=formula, notes=tuple(notes), table=table,
        assurance=assurance,
        reach_share=float(rows[n_items].get("reach_share", math.nan)))


def _progress_on(progress: bool | None) -> bool:
    from _goldnoise_lib.progress import progress_enabled

    return bool(progress) or (progress is None and progress_enabled())


def _goal(target: Any, null: Any, power: Any, minimum: Any) -> str:
    if (power is None) != (null is None) and minimum is None:
        raise ValueError("`power` and `null` go together: the power of a test against "
                         "`null`; give both, or `target` for an interval's half-width.")
    goals = [g for g, given in (("width", target is not None), ("power", power is not None),
                                ("minimum", minimum is not None)) if given]
    if len(goals) != 1:
        raise ValueError("give exactly one goal: `target` (an interval half-width), `null` and "
                         "`power` (a test), or `minimum` (Bloch & Kraemer's smallest α); got "
                         f"{goals or 'none'}.")
    return goals[0]


def _search(evaluate: Any, met: Any, max_items: int, goal: str, *, target: Any,
            power: Any, assured: bool = False) -> int:
    """Smallest n meeting the goal: doubling (quick), a predicted bracket, bisection."""
    n, last_fail = _N_START, None
    while not met(evaluate(n, quick=True)):
        last_fail = n
        if n >= max_items:
            row = evaluate(n)
            got = (f"mean half-width {row['mean_half_width']:.4f}" if goal == "width"
                   else f"power {row.get('power', math.nan):.3f}")
            raise ValueError(f"the goal is not reached within `max_items` = {max_items} items "
                             f"({got} there); raise `max_items` or relax the goal.")
        n = min(2 * n, max_items)
    if last_fail is None:
        lo, hi = 1, n
    else:
        guess = _predict(evaluate(last_fail, quick=True), evaluate(n, quick=True), goal,
                         target, power, assured)
        lo = max(last_fail, int(guess * 0.93))
        hi = min(n, max(lo + 1, math.ceil(guess * 1.07)))
        # Full-precision checks of the bracket; widen it where the quick pass misled.
        while not met(evaluate(hi)) and hi < n:
            lo, hi = hi, min(n, math.ceil(hi * 1.15))
        if not met(evaluate(hi)):
            lo, hi = hi, max_items
            if not met(evaluate(hi)):
                raise ValueError(f"the goal is not reached within `max_items` = {max_items} "
                                 "items; raise `max_items` or relax the goal.")
        while lo > last_fail and met(evaluate(lo)):
            lo, hi = max(last_fail, int(lo * 0.85)), lo
    # Bisection to 0.5% of n (finer steps are below the simulation's error).
    while hi - lo > max(1, int(0.005 * hi)):
        mid = (lo + hi) // 2
        if met(evaluate(mid)):
            hi = mid
        else:
            lo = mid
    return hi


def _predict(fail: dict, ok: dict, goal: str, target: Any, power: Any,
             assured: bool = False) -> float:
    """Where the goal is met, from two sizes: width ∝ n^(−1/2); probit(power) ∝ √n."""
    n0, n1 = fail["n_items"], ok["n_items"]
    if goal == "width":
        # with an assurance, the half-width that share of studies reach scales the same way
        w = ok["assured_half_width"] if assured else ok["mean_half_width"]
        return n1 * (w / target) ** 2 if 0 < w < math.inf else float(n1)
    from scipy.special import ndtri

    p0 = min(max(fail.get("power", 0.0), 1e-3), 1 - 1e-3)
    p1 = min(max(ok.get("power", 0.0), 1e-3), 1 - 1e-3)
    z0, z1, zt = ndtri(p0), ndtri(p1), ndtri(power)
    if z1 <= z0:
        return float(n1)
    root = math.sqrt(n0) + (zt - z0) * (math.sqrt(n1) - math.sqrt(n0)) / (z1 - z0)
    return float(min(max(root**2, n0), n1))


def _bloch_kraemer_plan(coefficient: Any, minimum: Any, significance: float, n_raters: Any,
                        n_categories: Any, category_shares: Any, method: str,
                        confidence_level: float, expected: Any, notes: list) -> StudyPlan:
    coefficient = check_option(coefficient, "coefficient", COEFFICIENTS)
    if coefficient != "krippendorff_alpha":
        raise ValueError("`minimum` is Bloch & Kraemer's goal for Krippendorff's alpha; for "
                         f"{coefficient} give `null` and `power`, or `target`.")
    if method == "simulation":
        raise ValueError("`minimum` has a closed form only; for a simulation plan give "
                         "`null=minimum` and `power` (with `expected`).")
    minimum = _real(minimum, "minimum", 0.0, 1.0, open_low=True)
    if minimum >= 1.0:
        raise ValueError("`minimum` must be below 1.")
    n_raters = check_integer(n_raters, "n_raters", 2)
    shares = _shares_iv(category_shares, n_categories, n_raters)
    if shares.ndim != 1:
        raise ValueError("`category_shares` must be one row of shares for `minimum`.")
    raw, info = cf.bloch_kraemer_size(minimum, significance, float(shares.min()), n_raters)
    # Krippendorff's table counts values (codings: one coder's value for one unit), m per
    # unit; the units are the values over the coders, rounded up.
    n_values = math.ceil(raw - 1e-9)
    n_items = math.ceil(n_values / n_raters)
    notes.append("Krippendorff tabulates values for two coders; with m coders z^2 is "
                 "multiplied by m, as he advises, and the units are the values over m")
    table = pd.DataFrame([{"n_items": n_items, "n_ratings": n_values, "interval": None,
                           "formula_value": raw}])
    return StudyPlan(
        coefficient=coefficient, goal="minimum", n_items=n_items, method="closed-form",
        n_raters=n_raters, n_categories=int(shares.size),
        expected=math.nan if expected is None else float(expected), target=None, null=None,
        power=None, minimum=minimum, confidence_level=confidence_level,
        significance=significance, recommended_interval=None, half_width=math.nan,
        achieved_power=math.nan, coverage=math.nan, n_ratings=float(n_values),
        n_range=None, formula=f"{info['formula']} = {raw:.2f} values (p_c = "
                              f"{info['p_c']:.4g}), rounded up",
        notes=tuple(notes), table=table)


def _from_pilot(pilot: Any, coefficient: Any, level: Any, confidence_level: float,
                category_shares: Any) -> tuple:
    import agreement

    coefficient = check_option(coefficient, "coefficient", COEFFICIENTS)
    r = agreement.as_ratings(pilot)
    func = getattr(agreement, coefficient)
    res = func(r, **({"level": level} if level and coefficient == "krippendorff_alpha" else {}))
    if not math.isfinite(res.value):
        raise ValueError(f"the pilot's {coefficient} is undefined; it cannot set the plan.")
    counts = np.asarray(r.counts, dtype=float).sum(axis=0)
    shares = counts / counts.sum() if category_shares is None else category_shares
    per_item = np.asarray(r.ratings_per_item)
    n_raters = int(r.n_raters) if r.has_raters else int(per_item.max())
    missing = float(1.0 - per_item.sum() / (r.n_items * n_raters))
    ci = res.confidence_interval(confidence_level)
    note = (f"from the pilot ({r.n_items} items, {n_raters} annotators): {coefficient} "
            f"{res.value:.4f}, {confidence_level:.0%} CI [{ci.low:.4f}, {ci.high:.4f}], "
            f"category shares {np.round(np.asarray(shares, float), 3).tolist()}, "
            f"{missing:.1%} missing")
    return float(res.value), n_raters, shares, missing, ci, note


def _pilot_range(ci: Any, coefficient: str, target: Any, null: Any, power: Any,
                 alternative: str, significance: float, *, goal: str, **kw: Any
                 ) -> tuple[int, int] | None:
    sizes = []
    for end in (ci.low, ci.high):
        try:
            plan = study_size(coefficient, expected=end, target=target, null=null, power=power,
                              alternative=alternative, significance=significance,
                              category_shares=kw["shares"], n_raters=kw["n_raters"],
                              missing=kw["missing"], level=kw["level"],
                              confidence_level=kw["confidence_level"], method=kw["method"],
                              chance=kw["chance"], assurance=kw["assurance"],
                              n_sims=kw["n_sims"], n_bootstrap_sims=0,
                              max_items=kw["max_items"], rng=kw["rng"], max_seconds=None,
                              progress=False)
            sizes.append(plan.n_items)
        except ValueError:  # that end of the interval cannot reach the goal
            sizes.append(kw["max_items"])
    return (min(sizes), max(sizes))


@validate_params(coefficient=Option(COEFFICIENTS))
def study_tradeoff(coefficient: str, *, expected: float, target: float,
                   raters: Any = (2, 3, 4, 5, 6, 8, 10), cost_per_rating: float = 1.0,
                   cost_per_item: float = 0.0, **kwargs: Any) -> StudyTradeoff:
    """More items or more annotators: the items needed for each number, and the cheapest design.

    For each number of annotators in ``raters`` the items needed for an interval
    half-width ``target`` (:func:`study_size` by simulation), the ratings and the
    cost ``n_items · (cost_per_item + n_raters · (1 − missing) · cost_per_rating)``.

    Parameters
    ----------
    coefficient : str
        A coefficient defined for several annotators (not ``cohen_kappa`` or ``scott_pi``).
    expected, target : float
    raters : sequence of int
        Numbers of annotators per item to compare.
    cost_per_rating, cost_per_item : float
    **kwargs
        Passed to :func:`study_size` (``n_categories``, ``category_shares``,
        ``missing``, ``level``, ``n_sims``, ``rng``, ...).

    Returns
    -------
    StudyTradeoff

    Examples
    --------
    >>> from simulation import study_tradeoff
    >>> t = study_tradeoff("fleiss_kappa", expected=0.6, target=0.1, raters=[2, 4],
    ...                    n_sims=100, n_bootstrap_sims=0, rng=0)
    >>> t.table["n_items"].is_monotonic_decreasing
    True
    """
    check_params(study_tradeoff, locals())
    if coefficient in ("cohen_kappa", "scott_pi"):
        raise ValueError(f"`{coefficient}` is defined for two raters only; a trade-off of "
                         "raters needs a multi-rater coefficient such as `fleiss_kappa`.")
    rs = sorted({check_integer(k, "raters", 2) for k in np.atleast_1d(raters).tolist()})
    for name, v in (("cost_per_rating", cost_per_rating), ("cost_per_item", cost_per_item)):
        _real(v, name, 0.0, math.inf)
    missing = float(kwargs.get("missing") or 0.0)
    rows = []
    for k in rs:
        plan = study_size(coefficient, expected=expected, target=target, n_raters=k,
                          method="simulation", **kwargs)
        ratings = plan.n_items * k * (1 - missing)
        rows.append({"n_raters": k, "n_items": plan.n_items, "n_ratings": ratings,
                     "cost": plan.n_items * cost_per_item + ratings * cost_per_rating})
    table = pd.DataFrame(rows)
    best = table.sort_values(["cost", "n_raters"]).iloc[0]
    return StudyTradeoff(coefficient=coefficient, n_raters=int(best["n_raters"]),
                         n_items=int(best["n_items"]), cost=float(best["cost"]), table=table)
