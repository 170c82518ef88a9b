"""``judge_plan``: the human labels a study still needs once a judge labels every item (SPEC §10).

Two goals.

**Width** of a prediction-powered (PPI++) interval of a mean or prevalence. With ``n``
human-labelled items of ``k`` humans each among ``N`` items the judge labels, the
per-item human value ``Y`` (the mean of its humans) has variance
``σ²(k) = τ² + σ_w²/k`` (``τ²`` between items, ``σ_w²`` one human's variance within an
item), and PPI++ with the optimal λ has variance (Angelopoulos, Duchi & Zrnic 2023,
§2, the mean with ``N − n`` unlabelled items)

    Var(θ̂) = (σ²(k) − c²) / n + c² / N,   c² = Cov(Y, f)² / Var(f) = ρ(k)² σ²(k),

where ``c²`` does not depend on ``k`` (the judge's covariance is with the item's
expected human value). The half-width ``z·√Var`` is at most ``target`` from

    n = z² (σ²(k) − c²) / (target² − z² c² / N),

and the classical (human-only) size is the same with ``c = 0``.

**Power** of the swap test's non-inferiority decision: the difference ``D`` between
the agreement coefficient with one human replaced by the candidate (averaged over
which human) and the humans' own has a bootstrap standard error ``s/√n`` over items;
with the two-sided interval's lower bound ``D̂ − z·s/√n`` compared with ``−margin``,
the power at ``n`` items is ``Φ((D + margin)·√n/s − z)``, and

    n = ((z + z_power) · s / (D + margin))².

``D`` and ``s`` come from a pilot (its swap difference and paired bootstrap) or are
given. Both plans are normal approximations; the tests check them by simulation.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    Probability,
    Resamples,
    Rng,
    check_candidate_columns,
    check_count,
    check_number,
    check_params,
    check_probability,
    validate_params,
)
from agreement import Ratings, as_ratings

__all__ = ["JudgePlan", "judge_plan", "swap_difference"]

_GOALS = ("width", "power")
_LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: Below this many items the power plan's normal approximation was seen to fall short.
_SMALL_SWAP = 500
_SWAP_COEFFICIENTS = ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement")


@dataclasses.dataclass(frozen=True)
class JudgePlan(Result):
    """How many human-labelled items a judged study needs, and how many humans on each.

    Attributes
    ----------
    goal : {"width", "power"}
        PPI++ interval half-width ≤ ``target``; or the swap test's power to declare
        non-inferiority at ``margin``.
    n_items : int
        Human-labelled items needed (``float(plan)``), at ``humans_per_item``.
    humans_per_item : int
        The cheapest number of humans per item among those planned (width), or the
        pilot's number of humans (power: the swap test needs that design).
    n_human_labels : int
        ``n_items · humans_per_item``.
    classical_n_items : int or None
        Width: the human-only items for the same half-width (no judge).
    target, margin, power : float or None
        The goal's parameters.
    achieved : float
        At ``n_items``: the expected half-width (width) or the power (power).
    correlation : float or None
        Width: the judge's correlation with the per-item human value at the pilot's
        humans per item.
    difference, difference_sd : float or None
        Power: the expected swap difference ``D`` and its per-item SD ``s``.
    n_judged : float
        Items the judge labels (``inf`` when not given: an unlimited pool).
    confidence_level : float
    source : {"pilot", "given"}
    formula : str
    notes : tuple of str
    active_n_items : int or None
        Width with ``judge_scores``: the same precision from an active design of this
        many expected human-labelled items (by the judge's own uncertainty).
    table : pandas.DataFrame
        Width: one row per humans-per-item ``k`` (``humans_per_item``, ``n_items``,
        ``n_human_labels``, ``classical_n_items``, ``sd``, ``correlation``); power:
        one row per size on a grid (``n_items``, ``power``).

    ``to_frame()`` returns ``table``.
    """

    _headline: ClassVar[str] = "n_items"
    _records = _table = "table"
    _summary = (
        "Judged study: {n_items} human-labelled items × {humans_per_item} human(s) = "
        "{n_human_labels} human labels",
        ("goal==width", "  goal: {confidence_level:.0%} PPI++ half-width <= {target:g} (expected "
         "{achieved:.4f}); judge on {n_judged==inf:an unlimited pool|{n_judged:,.0f}} items, "
         "correlation {correlation:.3f}"),
        ("goal==width", "  without the judge: {classical_n_items} items"),
        ("active_n_items!=None", "  sampled where the judge is unsure (active): "
                                 "{active_n_items} items"),
        ("goal!=width", "  goal: power {power:g} that the swap test's lower bound "
         "({confidence_level:.0%} interval) clears -{margin:g} when the difference is "
         "{difference:.4f} (per-item SD {difference_sd:.3f}); achieved {achieved:.3f}"),
        "  {formula} (from the {source} values)", ("notes", "  * {}"))

    goal: str
    n_items: int
    humans_per_item: int
    n_human_labels: int
    classical_n_items: int | None
    target: float | None
    margin: float | None
    power: float | None
    achieved: float
    correlation: float | None
    difference: float | None
    difference_sd: float | None
    n_judged: float
    confidence_level: float
    source: str
    formula: str
    notes: tuple[str, ...]
    table: pd.DataFrame = dataclasses.field(repr=False, compare=False)
    active_n_items: int | None = None

    def __repr__(self) -> str:
        return (f"JudgePlan(goal={self.goal!r}, n_items={self.n_items}, "
                f"humans_per_item={self.humans_per_item})")



# ----------------------------------------------------------------- the swap difference
def _rater_columns(r: Ratings, candidate: Any, humans: Any) -> tuple[int, list[int]]:
    return check_candidate_columns(r.raters, candidate, humans, where="the pilot")


def swap_difference(ratings: Any, candidate: Any, *, humans: Any = None,
                    coefficient: str = "krippendorff_alpha", level: str = "nominal",
                    n_resamples: int = 1000, confidence_level: float = 0.95,
                    rng: Any = None) -> dict[str, float]:
    """The swap difference, its paired-bootstrap SE and percentile interval (a dict).

    ``difference`` = mean over humans h of coefficient(humans with h replaced by the
    candidate) − coefficient(humans), with its standard error and interval from the
    swap test's paired bootstrap of the items (:func:`noise_models.swap_test`, the one
    ``judge_audit`` reports).
    """
    from noise_models import swap_test

    r = as_ratings(ratings)
    j, h_cols = _rater_columns(r, candidate, humans)
    if len(h_cols) < 2:
        raise ValueError(f"the swap test needs at least 2 humans; got {len(h_cols)}.")
    r.require_raters("the swap test")
    res = swap_test(r, [r.raters[j]], humans=[r.raters[c] for c in h_cols],
                    coefficient=coefficient, level=level, margin=0.0,
                    n_resamples=int(n_resamples), confidence_level=float(confidence_level),
                    rng=rng)
    row = res.swap.iloc[0]
    return {"difference": float(row["difference"]),
            "standard_error": float(row["standard_error"]), "low": float(row["low"]),
            "high": float(row["high"]), "n_items": r.n_items, "humans": len(h_cols)}


# ----------------------------------------------------------------- width from a pilot
def _pilot_moments(r: Ratings, j: int, h_cols: list[int], category: Any
                   ) -> tuple[float, float, float, float, int, int]:
    """(Cov(Y, f)²/Var(f), Var(Y), σ_w², correlation, median humans, labelled items)."""
    codes = r.require_raters("`judge_plan`")
    cats = list(r.categories)
    if category is None:
        if r.categories.dtype.kind not in "iuf":
            raise ValueError(f"`category` is needed: the pilot's labels are not numbers; name "
                             f"the class whose prevalence is planned (one of {cats[:10]}).")
        values = np.asarray(r.category_values, dtype=np.float64)
    else:
        if category not in cats:
            raise ValueError(f"`category` {category!r} is not a label of the pilot; the "
                             f"labels are {cats[:10]}.")
        values = (np.arange(len(cats)) == cats.index(category)).astype(np.float64)
    hc = codes[:, h_cols]
    judge = codes[:, j]
    rated = hc >= 0
    k_i = rated.sum(axis=1)
    keep = (k_i > 0) & (judge >= 0)
    if keep.sum() < 10:
        raise ValueError(f"the pilot has {int(keep.sum())} items rated by the candidate and a "
                         "human; a plan needs at least 10.")
    hv = np.where(rated, values[np.maximum(hc, 0)], 0.0)[keep]
    k_i = k_i[keep]
    y = hv.sum(axis=1) / k_i
    f = values[judge[keep]]
    var_f = float(np.var(f, ddof=1))
    var_y = float(np.var(y, ddof=1))
    if not (var_f > 0.0 and var_y > 0.0):
        raise ValueError("the pilot's judge values or human values are constant: there is "
                         "no variance to plan with.")
    cov = float(np.cov(y, f)[0, 1])
    multi = k_i >= 2
    if multi.any():
        dev = np.where(rated[keep], hv - y[:, None], 0.0)
        within = (dev**2).sum(axis=1)[multi] / (k_i[multi] - 1)
        sw2 = float(within.mean())
    else:
        sw2 = math.nan
    return (cov * cov / var_f, var_y, sw2, cov / math.sqrt(var_f * var_y),
            int(np.median(k_i)), int(keep.sum()))


def _items_for_width(sigma2: float, c2: float, z: float, target: float, big_n: float
                     ) -> float:
    room = target**2 - z * z * c2 / big_n
    if room <= 0.0:
        return math.inf
    return z * z * max(sigma2 - c2, 0.0) / room


def _active_items(judge_scores: Any, n_uniform: int, notes: list[str]) -> int | None:
    """The smallest active budget worth ``n_uniform`` uniformly drawn items (bisection)."""
    from noise_models import active_sample

    n_all = len(np.asarray(judge_scores))
    if n_uniform >= n_all:
        notes.append(f"the uniform plan labels {n_uniform} of the {n_all} scored items: an "
                     "active design cannot save on it")
        return None
    lo, hi = 1, n_uniform
    while lo < hi:
        mid = (lo + hi) // 2
        if active_sample(judge_scores, budget=mid, rng=0).uniform_equivalent >= n_uniform:
            hi = mid
        else:
            lo = mid + 1
    return lo


@validate_params(goal=Option(_GOALS), power=Probability(open_low=True, open_high=True),
                 confidence_level=ConfidenceLevel(), n_resamples=Resamples(minimum=1),
                 rng=Rng())
def judge_plan(pilot: Any = None, candidate: Any = None, *, goal: str = "width",
               target: float | None = None, margin: float | None = None,
               power: float = 0.8, category: Any = None, humans: Any = None,
               humans_per_item: Any = (1, 2, 3, 5), n_judged: float | None = None,
               correlation: float | None = None, sd: float | None = None,
               within_sd: float | None = None, pilot_humans: int = 1,
               difference: float | None = None, difference_sd: float | None = None,
               coefficient: str = "krippendorff_alpha", level: str = "nominal",
               n_resamples: int = 1000, confidence_level: float = 0.95,
               rng: Any = None, judge_scores: Any = None) -> JudgePlan:
    """Human-labelled items (and humans per item) a study needs once a judge labels everything.

    Parameters
    ----------
    pilot : Ratings or array_like or pandas.DataFrame, optional
        A pilot's ratings with the judge (``candidate``) among the raters. Gives the
        values below; without it they must be given.
    candidate : hashable, optional
        The judge in ``pilot``.
    goal : {"width", "power"}, default "width"
        ``"width"``: the prediction-powered (PPI++) interval of a prevalence or mean
        rating has half-width ≤ ``target``. ``"power"``: the swap test declares the
        judge non-inferior at ``margin`` with probability ``power``.
    target : float
        Width: the largest half-width wanted.
    margin : float
        Power: the non-inferiority margin on the coefficient's scale (> 0).
    power : float, default 0.8
    category : object, optional
        Width: the class whose prevalence is planned (None: the mean rating).
    humans : sequence, optional
        The pilot's human raters (default: every rater but the candidate).
    humans_per_item : int or sequence of int, default (1, 2, 3, 5)
        Width: the designs compared; the one with the fewest human labels is chosen.
        Needs ``within_sd`` (or a pilot with items of two or more humans) beyond the
        pilot's own number.
    n_judged : float, optional
        Width: items the judge labels, the labelled ones included (default: unlimited).
    correlation, sd, within_sd, pilot_humans : float, float, float, int
        Width without a pilot: the correlation between the judge's value and the
        per-item human value (the mean of ``pilot_humans`` humans), that value's SD,
        and one human's SD within an item (needed to vary humans per item).
    difference, difference_sd : float
        Power without a pilot: the expected swap difference and its per-item SD (the
        bootstrap SE times √items), measured with ``pilot_humans`` (≥ 2) humans per
        item, the design the study keeps. With a pilot, ``difference`` overrides the
        pilot's (e.g. plan for a judge exactly as good as a human: 0).
    coefficient : str, default "krippendorff_alpha"
        Power: the swap test's coefficient (``krippendorff_alpha``, ``fleiss_kappa``,
        ``gwet_ac1``, ``percent_agreement``); ``level`` for α.
    n_resamples : int, default 1000
        Power from a pilot: the paired bootstrap's resamples.
    confidence_level : float, default 0.95
        Of the PPI interval (width) or of the swap test's two-sided interval (power).
    rng : None, int, SeedSequence or Generator
        The pilot's bootstrap.
    judge_scores : array_like, optional
        Width: the judge's probabilities of the class on the items it labels; the plan
        then also gives ``active_n_items``, the expected human-labelled items of an
        active design (:func:`noise_models.active_sample`) with the variance of the
        uniform plan's ``n_items``.

    Returns
    -------
    JudgePlan

    Raises
    ------
    ValueError
        A goal without its parameter, neither a pilot nor the numbers, a target the
        judge pool alone cannot reach, a margin that the expected difference does not
        clear (``difference + margin <= 0``: no size gives the power).

    Notes
    -----
    See the module docstring for the two formulas. From a pilot, the width plan takes
    an item's human value as the mean of its humans (``judge_estimate``'s
    ``truth="mean"``), splits its variance into the between-item part and one human's
    within-item part (from the items with two or more humans), and takes the judge's
    covariance with it; the power plan runs the swap test's paired bootstrap once. Both are large-sample normal
    approximations: PPI++ estimates λ, and the swap test's interval is a percentile
    bootstrap. The tests simulate studies at the planned sizes and check that the
    half-width and the power come out as planned.

    Examples
    --------
    A judge whose labels correlate 0.7 with one human's, on a class of prevalence
    0.3; 20,000 items judged; one human's within-item SD from a pilot (0.3):

    >>> from simulation import judge_plan
    >>> plan = judge_plan(target=0.02, correlation=0.7, sd=0.46, within_sd=0.3,
    ...                   n_judged=20_000, category=1)
    >>> plan.n_items, plan.humans_per_item, plan.classical_n_items
    (1091, 1, 2033)

    The swap test at margin 0.05 for a judge as good as a human (difference 0) whose
    swap difference has per-item SD 0.6 with three humans per item:

    >>> judge_plan(goal="power", margin=0.05, difference=0.0, difference_sd=0.6,
    ...            pilot_humans=3).n_items
    1131
    """
    check_params(judge_plan, locals())
    o = _JudgePlanOptions(**locals())
    from scipy import stats  # loaded on first use: import goldnoise stays light
    z = float(stats.norm.isf((1.0 - confidence_level) / 2.0))
    r = None
    if pilot is not None:
        if candidate is None:
            raise ValueError("`candidate` is needed with a pilot: name the judge among its "
                             "raters.")
        r = as_ratings(pilot)
    if goal == "width":
        return _width_plan(o, r, z)
    return _power_plan(o, r, z)


@dataclasses.dataclass(frozen=True)
class _JudgePlanOptions:
    """What :func:`judge_plan` was asked, as given (its keyword options, documented there)."""

    pilot: Any
    candidate: Any
    goal: str
    target: float | None
    margin: float | None
    power: float
    category: Any
    humans: Any
    humans_per_item: Any
    n_judged: float | None
    correlation: float | None
    sd: float | None
    within_sd: float | None
    pilot_humans: int
    difference: float | None
    difference_sd: float | None
    coefficient: str
    level: str
    n_resamples: int
    confidence_level: float
    rng: Any
    judge_scores: Any


def _width_plan(o: _JudgePlanOptions, r: Ratings | None, z: float) -> JudgePlan:
    """The plan of ``goal="width"``: humans per item and items for the PPI++ half-width."""
    candidate, humans, category, confidence_level = (o.candidate, o.humans, o.category,
                                                     o.confidence_level)
    target, n_judged, humans_per_item, judge_scores = (o.target, o.n_judged, o.humans_per_item,
                                                       o.judge_scores)
    correlation, sd, within_sd, pilot_humans = o.correlation, o.sd, o.within_sd, o.pilot_humans
    notes: list[str] = []
    if target is None:
        raise ValueError("`target` is needed for goal='width': the largest half-width "
                         "wanted, e.g. target=0.02.")
    target = check_number(target, "target", positive=True)
    big_n = math.inf if n_judged is None else float(check_count(n_judged, "n_judged",
                                                                 minimum=2))
    ks = ([humans_per_item] if isinstance(humans_per_item, (int, np.integer))
          else list(humans_per_item))
    ks = sorted({check_count(k, "humans_per_item", minimum=1) for k in ks})
    if r is not None:
        j, h_cols = _rater_columns(r, candidate, humans)
        c2, var_y, sw2, corr, k0, n_pilot = _pilot_moments(r, j, h_cols, category)
        source = "pilot"
        notes.append(f"from a pilot of {n_pilot} items with {k0} human(s) per item "
                     "(median)")
        # Var(Y) of the pilot's design (k0 humans) = τ² + σ_w²/k0
        tau2 = var_y - (sw2 / k0 if math.isfinite(sw2) else 0.0)
    else:
        if correlation is None or sd is None:
            raise ValueError("give a `pilot` (with `candidate`) or the pilot's "
                             "`correlation` and `sd` (of the per-item human value) for "
                             "goal='width'.")
        corr = check_probability(correlation, "correlation",
                                 what="a correlation in [0, 1] (a judge that "
                                      "anti-correlates does not help)")
        sd_ = check_number(sd, "sd", positive=True)
        k0 = check_count(pilot_humans, "pilot_humans", minimum=1)
        var_y = sd_ * sd_
        c2 = corr * corr * var_y
        sw2 = (math.nan if within_sd is None
               else check_number(within_sd, "within_sd", positive=False) ** 2)
        tau2 = var_y - (sw2 / k0 if math.isfinite(sw2) else 0.0)
        source = "given"
    if math.isfinite(sw2) and tau2 < c2:
        notes.append("the within-item variance is larger than the pilot's values allow "
                     "(τ² < c²); τ² is set to c², the judge's share")
        tau2 = c2
    rows = []
    for k in ks:
        if not math.isfinite(sw2) and k != k0:
            continue
        s2 = tau2 + (sw2 / k if math.isfinite(sw2) else 0.0)
        n_k = _items_for_width(s2, c2, z, target, big_n)
        n_c = _items_for_width(s2, 0.0, z, target, big_n)
        rows.append({"humans_per_item": k,
                     "n_items": math.ceil(n_k) if math.isfinite(n_k) else None,
                     "n_human_labels": (math.ceil(n_k) * k if math.isfinite(n_k)
                                        else None),
                     "classical_n_items": math.ceil(n_c),
                     "sd": math.sqrt(s2), "correlation": math.sqrt(c2 / s2)})
    if not rows:
        notes.append(f"only the pilot's {k0} human(s) per item could be planned: the "
                     "within-item SD is unknown (give `within_sd` or a pilot with two "
                     "humans on some items)")
        s2 = var_y
        n_k = _items_for_width(s2, c2, z, target, big_n)
        rows.append({"humans_per_item": k0,
                     "n_items": math.ceil(n_k) if math.isfinite(n_k) else None,
                     "n_human_labels": (math.ceil(n_k) * k0 if math.isfinite(n_k)
                                        else None),
                     "classical_n_items": math.ceil(_items_for_width(s2, 0.0, z, target,
                                                                     big_n)),
                     "sd": math.sqrt(s2), "correlation": math.sqrt(c2 / s2)})
    elif len(rows) < len(ks):
        notes.append(f"only the pilot's {k0} human(s) per item could be planned: the "
                     "within-item SD is unknown")
    table = pd.DataFrame(rows)
    ok = table.dropna(subset=["n_items"])
    if ok.empty:
        raise ValueError(
            f"no number of human labels reaches half-width {target:g}: the judge's own "
            f"sampling error over {big_n:,.0f} items is already "
            f"{z * math.sqrt(c2 / big_n):.4g}; let the judge label more items or widen "
            "the target.")
    best = ok.loc[ok["n_human_labels"].astype(float).idxmin()]
    if big_n < math.inf and best["n_items"] > big_n:
        notes.append(f"the plan needs more labelled items ({int(best['n_items'])}) than "
                     f"the judge labels ({big_n:,.0f}): label every item")
    k_best, n_best = int(best["humans_per_item"]), int(best["n_items"])
    s2 = best["sd"] ** 2
    var = (s2 - c2) / n_best + c2 / big_n
    active_n = None if judge_scores is None else _active_items(judge_scores, n_best, notes)
    return JudgePlan(
        goal="width", n_items=n_best, humans_per_item=k_best,
        n_human_labels=n_best * k_best, classical_n_items=int(best["classical_n_items"]),
        target=target, margin=None, power=None, achieved=z * math.sqrt(var),
        correlation=float(math.sqrt(c2 / var_y)), difference=None, difference_sd=None,
        n_judged=big_n, confidence_level=float(confidence_level), source=source,
        formula="n = z²(σ²(k) − c²) / (target² − z²c²/N), PPI++ at the optimal λ",
        notes=tuple(notes), table=table, active_n_items=active_n)


def _power_plan(o: _JudgePlanOptions, r: Ratings | None, z: float) -> JudgePlan:
    """The plan of ``goal="power"``: items for the swap test's non-inferiority power."""
    from scipy import stats

    candidate, humans, margin, power = o.candidate, o.humans, o.margin, o.power
    coefficient, level, n_resamples, rng = o.coefficient, o.level, o.n_resamples, o.rng
    difference, difference_sd, pilot_humans = o.difference, o.difference_sd, o.pilot_humans
    confidence_level = o.confidence_level
    notes: list[str] = []
    if margin is None:
        raise ValueError("`margin` is needed for goal='power': the non-inferiority margin on "
                         "the coefficient's scale, e.g. margin=0.05.")
    margin = check_number(margin, "margin", positive=True)
    if coefficient not in _SWAP_COEFFICIENTS:
        raise ValueError(f"`coefficient` must be one of {_SWAP_COEFFICIENTS}; got "
                         f"{coefficient!r}.")
    if r is not None:
        sw = swap_difference(r, candidate, humans=humans, coefficient=coefficient,
                             level=level, n_resamples=n_resamples,
                             confidence_level=confidence_level, rng=rng)
        d_sd = sw["standard_error"] * math.sqrt(sw["n_items"])
        d = sw["difference"] if difference is None else float(difference)
        k = int(sw["humans"])
        source = "pilot"
        notes.append(f"from a pilot of {sw['n_items']} items, {k} humans: swap difference "
                     f"{sw['difference']:.4f}, bootstrap SE {sw['standard_error']:.4f}")
    else:
        if difference is None or difference_sd is None:
            raise ValueError("give a `pilot` (with `candidate`) or the expected `difference` "
                             "and its per-item `difference_sd` for goal='power'.")
        d = float(difference)
        d_sd = check_number(difference_sd, "difference_sd", positive=True)
        k = check_count(pilot_humans, "pilot_humans", minimum=1)
        if k < 2:
            raise ValueError(f"`pilot_humans` must be the humans per item the swap test keeps "
                             f"(at least 2: one is replaced); got {k}.")
        source = "given"
    if d + margin <= 0.0:
        raise ValueError(f"the expected difference {d:.4g} is not above −margin "
                         f"({-margin:g}): no number of items gives the power; the judge "
                         "lowers agreement by more than the margin.")
    zp = float(stats.norm.ppf(power))
    n_need = max(2, math.ceil(((z + zp) * d_sd / (d + margin)) ** 2))
    if n_need < _SMALL_SWAP:
        notes.append(f"below {_SMALL_SWAP} items the approximation is optimistic: in "
                     "simulation (3 humans, binary labels, α) the coefficients' finite-sample "
                     "bias (about −0.003 at 289 items) left the power 0.74 where 0.80 was "
                     "planned; add items or check by simulation")
    grid = sorted({max(2, round(n_need * f)) for f in (0.25, 0.5, 0.75, 1, 1.5, 2, 3)})
    table = pd.DataFrame({"n_items": grid,
                          "power": [float(stats.norm.cdf((d + margin) * math.sqrt(n) / d_sd
                                                         - z)) for n in grid]})
    return JudgePlan(
        goal="power", n_items=n_need, humans_per_item=k, n_human_labels=n_need * k,
        classical_n_items=None, target=None, margin=margin, power=float(power),
        achieved=float(stats.norm.cdf((d + margin) * math.sqrt(n_need) / d_sd - z)),
        correlation=None, difference=d, difference_sd=d_sd, n_judged=math.inf,
        confidence_level=float(confidence_level), source=source,
        formula="n = ((z + z_power)·s / (D + margin))², the bootstrap SE s/√n",
        notes=tuple(notes), table=table)
