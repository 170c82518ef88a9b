"""``study_size_for_*``: how many items an agreement study needs (SPEC §8)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.progress import progress_bar
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Integer,
    Option,
    Probability,
    check_confidence_level,
    check_integer,
    check_option,
    check_params,
    check_probability,
    validate_params,
)
from simulation.study import _cost
from simulation.study._checks import (
    _ALTERNATIVES,
    _DESIGN,
    _METHODS,
    _N_START,
    _common_iv,
    _range,
    _real,
)
from simulation.study._closed_plans import _bloch_kraemer_plan, _cantor, _closed_size, _walter_plan
from simulation.study._cost import MAX_SECONDS
from simulation.study._design import COEFFICIENTS
from simulation.study._pilot import _from_pilot
from simulation.study._plan_design import PlanDesign, PlanOptions, Search
from simulation.study._plan_result import StudyPlan, StudyTradeoff
from simulation.study._search import _goal, _progress_on, _search
from simulation.study._simulate import INTERVAL_METHODS, performance_frame, run_studies

__all__ = ["study_size_for_minimum", "study_size_for_power", "study_size_for_width",
           "study_tradeoff"]

#: study_size_for_power also plans ICC(1,1), by its closed form (Walter et al.).
_SIZE_COEFFICIENTS = (*COEFFICIENTS, "icc1")






# ----------------------------------------------------------------------------- validation











# ----------------------------------------------------------------------------- public API







@validate_params(coefficient=Option(_SIZE_COEFFICIENTS),
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
        Plan for the size at which this share of studies, in
        (0, 1), reach the half-width ``target`` (a study without an interval counts
        as one that does not). Found by simulation (the closed form is of the
        mean). Without it the mean half-width is the target, and only about half
        of planned studies reach it: 48–50% of the simulated studies at the
        size planned for Fleiss' κ = 0.6 (3 annotators), Krippendorff's α = 0.7
        (2 annotators, 3 categories) and Cohen's κ = 0.6, half-width 0.1;
        assurance 0.8 took 6–13% more items there, 0.9 9–17% (500 studies a
        size).
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
        annotators, two categories and no missing ratings: Cantor 1996), else
        simulation.
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
        For a target width ≤ 0, an expected value outside the coefficient's
        range or beyond what the shares allow, shares that do not sum to 1, a
        closed form asked for outside its scope, or a size beyond ``max_items``.

    See Also
    --------
    study_size_for_power, study_size_for_minimum : the other goals.

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
    >>> from simulation import study_size_for_width
    >>> study_size_for_width("cohen_kappa", expected=0.6, target=0.1,
    ...                      method="closed-form", n_bootstrap_sims=0, rng=0).n_items
    246
    """
    check_params(study_size_for_width, locals())
    if target is None:
        raise TypeError("`target` (the interval's half-width) is required.")
    return _plan_size(PlanOptions(**locals()))


@validate_params(coefficient=Option(_SIZE_COEFFICIENTS), alternative=Option(_ALTERNATIVES),
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
        A coefficient of ``agreement`` by name (see :func:`study_size_for_width`).
    null, power : float
        The test's null value and the power wanted, in (0, 1).
    expected : float
        The coefficient's assumed value (the pilot's when ``pilot`` is given).
    alternative : {"greater", "less", "two-sided"}, default "greater"
    significance : float, optional
        Of the test (default 0.05).
    n_raters, n_categories, category_shares, missing, level, chance, pilot
        The design; see :func:`study_size_for_width`.
    confidence_level : float, default 0.95
    method : {"auto", "closed-form", "simulation"}, default "auto"
    n_sims, n_bootstrap_sims, n_resamples, max_items, rng
        The simulation; see :func:`study_size_for_width`.
    max_seconds, progress
        How long a simulation may take, and its progress bar; see
        :func:`study_size_for_width`.

    Returns
    -------
    StudyPlan

    See Also
    --------
    study_size_for_width : the goal of an interval's half-width, and the design's options.

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
    return _plan_size(PlanOptions(**locals()))


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
        The design; see :func:`study_size_for_width`.
    confidence_level : float, default 0.95
        Recorded on the plan (the size does not use it).

    Returns
    -------
    StudyPlan

    See Also
    --------
    study_size_for_width : the goal of an interval's half-width, and the design's options.

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
    return _plan_size(PlanOptions("krippendorff_alpha", minimum=minimum,
                                  significance=significance, n_raters=n_raters,
                                  n_categories=n_categories, category_shares=category_shares,
                                  level=level, confidence_level=confidence_level, pilot=pilot))


def _plan_size(options: PlanOptions) -> StudyPlan:
    """The planner behind every entry: the goal is the one whose arguments are given."""
    if options.coefficient == "icc1":
        return _walter_plan(options)
    o, goal, notes, pilot_ci = _checked(options)
    if goal == "minimum":
        return _bloch_kraemer_plan(o.coefficient, o.minimum, o.significance, o.n_raters,
                                   o.n_categories, o.category_shares, o.method,
                                   o.confidence_level, o.expected, notes)
    d = _plan_design(o, goal, notes, pilot_ci)
    work = _work(d)
    with progress_bar(sum(k * n for k, n, _ in work),
                      desc=f"simulating {d.options.coefficient} studies", unit=" items",
                      enabled=o.progress) as tick:
        return _finish_plan(d, Search(d, tick))


def _checked(o: PlanOptions) -> tuple[PlanOptions, str, list[str], Any]:
    """The options checked and the pilot read: the options, the goal, the notes and the
    pilot's interval (None without a pilot, or when ``expected`` overrides its value)."""
    method = check_option(o.method, "method", _METHODS)
    alternative = check_option(o.alternative, "alternative", _ALTERNATIVES)
    confidence_level = check_confidence_level(o.confidence_level)
    goal = _goal(o.target, o.null, o.power, o.minimum)
    assurance = o.assurance
    if assurance is not None:
        if goal != "width":
            raise ValueError("`assurance` is the share of studies reaching an interval's "
                             "half-width: it goes with `target` only.")
        assurance = check_probability(assurance, "assurance", open_low=True, open_high=True)
        if method == "closed-form":
            raise ValueError("the closed form gives the size for the mean half-width; a plan "
                             "with `assurance` is found by simulation (method='simulation' "
                             "or 'auto').")
    n_sims = check_integer(o.n_sims, "n_sims", 10)
    n_bootstrap_sims = check_integer(o.n_bootstrap_sims, "n_bootstrap_sims", 0)
    n_resamples = check_integer(o.n_resamples, "n_resamples", 1)
    max_items = check_integer(o.max_items, "max_items", _N_START)
    max_seconds, progress = o.max_seconds, o.progress
    if max_seconds is not None:
        max_seconds = _real(max_seconds, "max_seconds", 0.0, math.inf, open_low=True)
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"`progress` must be True, False or None; got {progress!r}.")
    significance = 0.05 if o.significance is None else check_probability(
        o.significance, "significance", open_low=True, open_high=True)
    expected, n_raters, missing = o.expected, o.n_raters, o.missing
    category_shares = o.category_shares
    notes: list[str] = []
    pilot_ci = None
    if o.pilot is not None:
        # What is given explicitly wins over what the pilot says (and the note says so).
        p_expected, p_raters, category_shares, p_missing, pilot_ci, note = _from_pilot(
            o.pilot, o.coefficient, o.level, confidence_level, category_shares)
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
    o = dataclasses.replace(
        o, method=method, alternative=alternative, confidence_level=confidence_level,
        assurance=assurance, n_sims=n_sims, n_bootstrap_sims=n_bootstrap_sims,
        n_resamples=n_resamples, max_items=max_items, max_seconds=max_seconds,
        significance=significance, expected=expected, n_raters=n_raters, missing=missing,
        category_shares=category_shares)
    return o, goal, notes, pilot_ci


def _plan_design(o: PlanOptions, goal: str, notes: list[str], pilot_ci: Any) -> PlanDesign:
    """The design of a width or power goal, checked: the simulation's design, the goal's
    values in range, and whether the closed form applies."""
    if o.expected is None:
        raise TypeError("`expected` (the coefficient's assumed value) is required unless a "
                        "`pilot` gives it.")
    p = _common_iv(o.coefficient, o.expected, o.n_raters, o.n_categories, o.category_shares,
                   o.missing, o.level, o.confidence_level, o.rng, o.chance)
    coefficient, expected, shares = p["coefficient"], p["expected"], p["shares"]
    target, null, power, alternative = o.target, o.null, o.power, o.alternative
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
                 and o.chance == "shares" and o.assurance is None)
    if o.method == "closed-form" and not closed_ok:
        raise ValueError(
            f"no closed form for {coefficient} with this design: the closed forms are Cohen's "
            "kappa with two annotators, two categories and no missing ratings (Cantor 1996), and "
            "Krippendorff's alpha with `minimum` (Bloch & Kraemer 1989); use "
            "method='simulation'.")
    return PlanDesign(
        options=dataclasses.replace(o, coefficient=coefficient, expected=expected,
                                    target=target, null=null, power=power),
        goal=goal, n_raters=p["n_raters"], shares=shares, missing=p["missing"],
        level=p["level"], design=p["design"],
        use_closed=closed_ok and o.method in ("auto", "closed-form"), notes=notes,
        pilot_ci=pilot_ci)


def _work(d: PlanDesign) -> list[tuple[int, int, bool]]:
    """The simulated studies the plan will run, ``(count, n_items, bootstrap)``, for the
    progress bar; a simulation estimated to exceed ``max_seconds`` is refused here."""
    o, goal = d.options, d.goal
    if d.use_closed:
        n_closed = _closed_size(goal, o.expected, o.null, o.power, o.significance,
                                o.alternative, o.target, o.confidence_level, d.shares)
        work = [(o.n_sims, n, False) for n in {max(2, n_closed // 2), n_closed, 2 * n_closed}]
        work += [(o.n_bootstrap_sims, n_closed, True)] if o.n_bootstrap_sims else []
    elif o.max_seconds is None and not _progress_on(o.progress):
        # no limit to check and nothing to say: no pilot (a plan inside another's)
        work = []
    else:
        design = d.design
        _cost.check_memory(_N_START, design, "this design cannot be simulated")
        cost = _cost.timed_pilot(design, o.expected, d.analysis, n_resamples=o.n_resamples,
                                 bootstrap=o.n_bootstrap_sims > 0)
        guess = _cost.guess_size(cost, goal, o)
        _cost.check_memory(min(2 * guess, o.max_items), design,
                           f"the plan's search would reach about {guess:,} items")
        work = _cost.search_studies(guess, n_sims=o.n_sims, n_quick=min(o.n_sims, 200),
                                    max_items=o.max_items, n_bootstrap_sims=o.n_bootstrap_sims,
                                    start=_N_START)
        if d.pilot_ci is not None:  # two more searches, at the ends of the pilot's interval
            work += [w for w in work if not w[2]] * 2
        seconds = cost.pilot_seconds + sum(k * cost.study(n, b) for k, n, b in work)
        n_studies = sum(k for k, _, _ in work)
        _cost.check_cost(seconds, o.max_seconds, cost, n_studies,
                         f"this plan's simulation (about {guess:,} items)")
        _cost.announce(f"study_size_for_{goal} ({o.coefficient})", seconds, n_studies,
                       o.progress)
    return work


def _finish_plan(d: PlanDesign, s: Search) -> StudyPlan:
    """The search (or the closed form's check), the interval comparison and the plan."""
    o, goal, notes = d.options, d.goal, d.notes
    evaluate, met, rows, quick_rows = s.evaluate, s.met, s.rows, s.quick_rows
    expected, target, power, max_items = o.expected, o.target, o.power, o.max_items
    confidence_level = o.confidence_level
    if d.use_closed:
        raw, info = _cantor(goal, expected, o.null, power, o.significance, o.alternative,
                            target, confidence_level, d.shares)
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
                          assured=o.assurance is not None)
        how = "simulation"
        formula = (f"simulation: {o.n_sims} studies per size on common random numbers "
                   f"({s.n_quick} while doubling from {_N_START}), then bisection; the "
                   f"analytic {'interval' if goal == 'width' else 'test'} at each size")

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
    if o.n_bootstrap_sims > 0:
        st = run_studies(d.design, n_items, expected, o.n_bootstrap_sims, analysis=d.analysis,
                         bootstrap=True, n_resamples=o.n_resamples, tick=s.tick)
        comp = performance_frame(st, expected, None, INTERVAL_METHODS)
        comp["stage"] = "comparison"
        table = pd.concat([table, comp], ignore_index=True)
        ok = comp[comp["coverage_high"] >= confidence_level]
        if len(ok):
            # The analytic interval when it covers (the search used it), else BCa, else
            # the percentile interval.
            order = {m: i for i, m in enumerate(INTERVAL_METHODS)}
            best = ok.sort_values("interval", key=lambda col: col.map(order)).iloc[0]
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
    n_range = None if d.pilot_ci is None else _pilot_range(d)
    if o.assurance is not None and o.n_sims * (1.0 - o.assurance) < 5:
        need = math.ceil(5 / (1.0 - o.assurance))
        notes.append(f"{o.n_sims} simulated studies cannot tell an assurance of "
                     f"{o.assurance:g} from 1 (fewer than 5 of them are expected to miss the "
                     f"width): the share reached is known to about 1/{o.n_sims}; simulate "
                     f"{need:,} or more (`n_sims`)")
    if at["degenerate"]:
        notes.append(f"{at['degenerate']} of {at['n_sims']} simulated studies at {n_items} "
                     "items had no analytic interval (e.g. one category only)")
    return StudyPlan(
        coefficient=o.coefficient, goal=goal, n_items=int(n_items), method=how,
        n_raters=d.n_raters, n_categories=int(d.shares.shape[-1]), expected=expected,
        target=target if goal == "width" else None, null=o.null if goal == "power" else None,
        power=power if goal == "power" else None, minimum=None,
        confidence_level=confidence_level,
        significance=o.significance if goal == "power" else None,
        recommended_interval=recommended, half_width=float(half), achieved_power=achieved_power,
        coverage=float(cov), n_ratings=float(n_items * d.n_raters * (1 - d.missing)),
        n_range=n_range, formula=formula, notes=tuple(notes), table=table,
        assurance=o.assurance,
        reach_share=float(rows[n_items].get("reach_share", math.nan)))


def _pilot_range(d: PlanDesign) -> tuple[int, int] | None:
    """The sizes the goal needs at the two ends of the pilot's interval."""
    o = d.options
    sizes = []
    for end in (d.pilot_ci.low, d.pilot_ci.high):
        try:
            plan = _plan_size(PlanOptions(
                o.coefficient, expected=end, target=o.target, null=o.null, power=o.power,
                alternative=o.alternative, significance=o.significance,
                category_shares=d.shares, n_raters=d.n_raters, missing=d.missing,
                level=d.level, confidence_level=o.confidence_level, method=o.method,
                chance=o.chance, assurance=o.assurance, n_sims=o.n_sims, n_bootstrap_sims=0,
                max_items=o.max_items, rng=o.rng, max_seconds=None, progress=False))
            sizes.append(plan.n_items)
        except ValueError:  # that end of the interval cannot reach the goal
            sizes.append(o.max_items)
    return (min(sizes), max(sizes))


@validate_params(coefficient=Option(COEFFICIENTS))
def study_tradeoff(coefficient: str, *, expected: float, target: float,
                   raters: Any = (2, 3, 4, 5, 6, 8, 10), cost_per_rating: float = 1.0,
                   cost_per_item: float = 0.0, **kwargs: Any) -> StudyTradeoff:
    """More items or more annotators: the items needed for each number, and the cheapest design.

    For each number of annotators in ``raters`` the items needed for an interval
    half-width ``target`` (:func:`study_size_for_width` by simulation), the ratings and the
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
        Passed to :func:`study_size_for_width` (``n_categories``, ``category_shares``,
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
        plan = study_size_for_width(coefficient, expected=expected, target=target, n_raters=k,
                                    method="simulation", **kwargs)
        ratings = plan.n_items * k * (1 - missing)
        rows.append({"n_raters": k, "n_items": plan.n_items, "n_ratings": ratings,
                     "cost": plan.n_items * cost_per_item + ratings * cost_per_rating})
    table = pd.DataFrame(rows)
    best = table.sort_values(["cost", "n_raters"]).iloc[0]
    return StudyTradeoff(coefficient=coefficient, n_raters=int(best["n_raters"]),
                         n_items=int(best["n_items"]), cost=float(best["cost"]), table=table)
