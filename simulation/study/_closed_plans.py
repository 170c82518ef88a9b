"""The plans with a closed form: Cantor's (1996) sizes for Cohen's κ, Bloch &
Kraemer's (1989) values for a smallest acceptable Krippendorff's α, and Walter, Eliasziw &
Donner's (1998) sizes for a test of ICC(1,1)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.validation import (
    check_integer,
    check_option,
    check_probability,
)
from simulation.study import _closed_form as cf
from simulation.study._checks import _real, _shares_iv
from simulation.study._design import COEFFICIENTS
from simulation.study._plan_result import StudyPlan


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



def _walter_plan(o: Any) -> StudyPlan:
    """ICC(1,1) by Walter, Eliasziw & Donner's (1998) closed form, its exact F power beside."""
    goal = "power" if o.power is not None or o.null is not None else (
        "width" if o.target is not None else "minimum")
    if goal != "power" or o.method == "simulation" or o.pilot is not None:
        raise ValueError("`icc1` is planned by Walter, Eliasziw & Donner's (1998) closed form "
                         "for a test: give `expected`, `null` and `power` (no `target`, "
                         "`minimum`, `pilot` or method='simulation').")
    if o.expected is None:
        raise TypeError("`expected` (the ICC assumed) is required.")
    alternative = check_option(o.alternative, "alternative", ("greater", "less", "two-sided"))
    # ρ in [0, 1): θ = ρ / (1 − ρ) must be finite
    expected = _real(o.expected, "expected", 0.0, 1.0 - 1e-12)
    null = _real(o.null, "null", 0.0, 1.0 - 1e-12)
    power = check_probability(o.power, "power", open_low=True, open_high=True)
    significance = 0.05 if o.significance is None else o.significance
    k = 2 if o.n_raters is None else check_integer(o.n_raters, "n_raters", 2)
    if (alternative == "greater" and null >= expected) or (
            alternative == "less" and null <= expected) or null == expected:
        raise ValueError(f"with alternative={alternative!r} the expected ICC {expected:g} must "
                         f"be on that side of `null` = {null:g}.")
    raw, info = cf.walter_icc_size(expected, null, power, significance, k, alternative)
    n_items = max(math.ceil(raw - 1e-9), 2)
    if n_items > o.max_items:
        raise ValueError(f"the closed form needs {n_items} items, beyond `max_items` = "
                         f"{o.max_items}; raise `max_items` if that is meant.")
    achieved = cf.icc_f_power(n_items, expected, null, significance, k, alternative)
    table = pd.DataFrame([{"n_items": n, "interval": None, "formula_value": raw,
                           "power": cf.icc_f_power(n, expected, null, significance, k,
                                                   alternative)}
                          for n in sorted({max(2, n_items // 2), n_items, 2 * n_items})])
    return StudyPlan(
        coefficient="icc1", goal="power", n_items=n_items, method="closed-form", n_raters=k,
        n_categories=0, expected=expected, target=None, null=null, power=power, minimum=None,
        confidence_level=o.confidence_level, significance=significance,
        recommended_interval="F", half_width=math.nan, achieved_power=achieved,
        coverage=math.nan, n_ratings=float(n_items * k), n_range=None,
        formula=f"{info['formula']} = {raw:.2f}, rounded up (C0 = {info['C0']:.4g}); "
                "the power is the F test's exact power (Donner & Eliasziw 1987)",
        notes=("ratings on a numeric scale: n_categories is 0",), table=table)
