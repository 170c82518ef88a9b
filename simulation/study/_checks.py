"""The planner's shared vocabulary: its option sets and the checks of a design (the
coefficient's range, the category shares, the seed) common to every entry."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

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
    check_probability,
    check_rng,
    check_shares,
)
from simulation.study import _closed_form as cf
from simulation.study._design import COEFFICIENTS, Design

_METHODS = ("auto", "closed-form", "simulation")


_ALTERNATIVES = ("greater", "less", "two-sided")


_LEVELS = ("nominal", "ordinal", "interval", "ratio")


#: Smallest study the search considers.
_N_START = 10


_CHANCE = ("shares", "uniform")


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

