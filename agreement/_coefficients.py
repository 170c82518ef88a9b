"""The chance-corrected agreement coefficients of SPEC §1 (Krippendorff's α aside), in memory.

Their public functions (:mod:`agreement._api`) call :func:`coefficient_in_memory`
on in-memory ratings; over chunks, :mod:`agreement._partial` carries the same
column sums and finishes with :func:`result_from_sums`.

Every coefficient is ``(PA − PE) / (1 − PE)`` with observed agreement ``PA``
and chance agreement ``PE``, each a finalize step over column sums of
per-item statistics (:mod:`agreement._item_stats`), computed by one Numba
pass over the code matrix; the analytic standard error is a second pass
(:mod:`agreement._variance`).

Conventions with missing ratings (Gwet 2014, as his irrCAC 1.0 implements
them; with complete data every convention gives the classical coefficient):

* ``PA`` is the mean of ``PA_i = Σ_c a_ic (Σ_l w_cl a_il − 1) / (r_i (r_i − 1))``
  over the items with two or more ratings;
* an item with one rating still counts in ``n`` (the items with a rating), in
  the marginals ``π_c`` (the item-average of ``a_ic / r_i``) and in the
  variance; an item with no rating is dropped;
* Cohen's and Conger's ``PE`` take each annotator's marginals over the items
  that annotator rated; annotators with no rating at all are ignored.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.lazy import lazy_module
from agreement._item_stats import (
    SPECS,
    FinalizedCoefficient,
    _rater_marginals,
    count_rows_from_counts,
    finalize,
)
from agreement._light import COLUMN_MAX_PAIRS, light, stats_from_sums
from agreement._null import cohen_from_table, cohen_null_from_sums, contingency, fleiss_null_se
from agreement._ratings import Ratings, as_ratings
from agreement._result import AgreementResult, with_clip_note
from agreement._variance import linearization, variance
from agreement._weights import Weights, weight_matrix

# Numba kernels, imported at first use (import agreement stays fast).
_kernels = lazy_module("agreement._kernels")

__all__ = ["DataQueries", "coefficient_in_memory", "result_from_sums"]


def _check_population(n_population: Any) -> float | None:
    if n_population is None:
        return None
    if isinstance(n_population, (str, bytes, bool)) or not isinstance(
        n_population, (int, float, np.integer, np.floating)
    ):
        raise TypeError(
            f"`n_population` must be None or a number of items; got {n_population!r}."
        )
    value = float(n_population)
    if math.isnan(value) or value <= 0:
        raise ValueError(f"`n_population` must be positive; got {n_population!r}.")
    return value


def _coefficient_iv(name: str, ratings: Any, weights: Any,
                    n_population: Any) -> tuple[Ratings, Weights, float | None]:
    """Validate and normalise the arguments shared by every coefficient."""
    spec = SPECS[name]
    r = as_ratings(ratings)
    if spec.family != "count":
        r.require_raters(f"`{name}`")
    wts = weight_matrix(weights, r, allow_asymmetric=name == "cohen_kappa")
    return r, wts, _check_population(n_population)


class _Pass(NamedTuple):
    """How the items are visited: per-item rows (with multiplicities), transposed
    codes for the column kernels, or the codes row by row (neither)."""

    rows: np.ndarray | None  # per-item (or per-pattern) rows
    mult: np.ndarray | None  # multiplicity of each row (None: each once)
    cols: _kernels.ColumnPass | None = None


# From this many annotators on, the rater and pair families run column kernels. They are
# faster than the row kernels from two annotators on (sums and variance pass, warm, load
# 8-9: 2e5 items × 2 annotators × 3 categories 2.0 against 5.9 ms (rater family), 1.1
# against 3.9 ms (pair); × 4 × 5: 1.9 against 9.9 and 1.8 against 13.9 ms; 2.5e6 × 4 × 3,
# parallel builds: 104 against 168 and 60 against 238 ms), and a first audit then compiles
# one set of them for any number of annotators, not the row kernels too for few.
_COLUMNS_FROM = 2


def _plan(family: str, r: Ratings, wts: Weights) -> _Pass:
    if family == "count" and not r.has_raters:
        return _Pass(count_rows_from_counts(r.counts, wts.matrix, wts.weighted), None)
    n, k = r.codes.shape
    m = r.n_categories
    # Few possible rating patterns: one histogram pass, then the per-item statistics
    # once per distinct pattern, weighted by its count. Pattern keys are cheaper to
    # compute; the count family can also key on an item's counts per category.
    bound = min(_kernels.MAX_KEYS, 4 * n)
    small = None
    if _patterns.n_row_keys(k, m) <= bound:
        keys, mult = _patterns.row_histogram(r.codes, m,
                                             threshold=_kernels.ITEM_PARALLEL_CELLS)
        small = _patterns.decode_rows(keys, k, m, r.codes.dtype)
    elif family == "count" and (found := _patterns.count_patterns(
            r.codes, m, lambda: r.counts, max_bins=bound)) is not None:
        # The rows straight from the distinct count vectors (NumPy), as for a count
        # table: no codes rebuilt from them, no row kernel to compile; on small crowd data
        # (too many possible count vectors for a histogram) the count family's sum and
        # variance kernels are then compiled only for larger data (compiling the two cost
        # a first audit of rte about 1.2 s of CPU).
        counts, mult = found
        return _Pass(count_rows_from_counts(counts, wts.matrix, wts.weighted),
                     mult.astype(np.float64))
    if small is not None:
        if family == "count":  # from the patterns' category counts, as above
            rows = count_rows_from_counts(_kernels.item_counts(small, m), wts.matrix,
                                          wts.weighted)
        else:
            rows = _kernels.item_rows(family, small, wts.matrix, wts.weighted, parallel=False)
        return _Pass(rows, mult.astype(np.float64))
    if (family == "rater" or (family == "pair" and not wts.weighted)) and k >= _COLUMNS_FROM:
        return _Pass(None, None, _kernels.ColumnPass(r.codes))
    return _Pass(None, None)


def _sums(family: str, r: Ratings, wts: Weights, visit: _Pass) -> np.ndarray:
    if visit.cols is not None:
        return _kernels.column_sums(family, visit.cols, wts.matrix, wts.weighted)
    if visit.rows is None:
        return _kernels.item_sums(family, r.codes, wts.matrix, wts.weighted)
    if visit.mult is None:
        return visit.rows.sum(axis=0)
    return (visit.mult[:, None] * visit.rows).sum(axis=0)


def _ss(family: str, r: Ratings, wts: Weights, visit: _Pass, beta: np.ndarray,
        center: float) -> float:
    if visit.cols is not None:
        return _kernels.column_ss(family, visit.cols, wts.matrix, wts.weighted, beta, center)
    if visit.rows is None:
        return _kernels.item_ss(family, r.codes, wts.matrix, wts.weighted, beta, center)
    x = visit.rows @ beta - center
    sq = np.where(visit.rows[:, 0] > 0, x * x, 0.0)
    return float(sq.sum() if visit.mult is None else visit.mult @ sq)


def coefficient_in_memory(name: str, ratings: Any, *, weights: Any = None,
                          n_population: Any = None) -> AgreementResult:
    """The coefficient ``name`` of in-memory ratings (its public function calls this)."""
    spec = SPECS[name]
    r, wts, n_pop = _coefficient_iv(name, ratings, weights, n_population)
    if not wts.symmetric:
        return with_clip_note(_cohen_asymmetric(r, wts, n_pop))
    if name == "light_kappa":
        k, m = r.n_raters, r.n_categories
        stats = None
        if k * (k - 1) // 2 <= COLUMN_MAX_PAIRS:
            visit = _plan("pair", r, wts)
            stats = stats_from_sums(
                _sums("pair", r, wts, visit), k, m,
                lambda beta, center: _ss("pair", r, wts, visit, beta, center))
        return with_clip_note(light(r, wts, n_pop, stats))
    return with_clip_note(_compute_parts(name, spec, r, wts, n_pop))


def _two_raters(r: Ratings) -> np.ndarray:
    """The code columns of the annotators with ratings (Cohen's κ: exactly two)."""
    valid = np.flatnonzero((r.codes >= 0).any(axis=0))
    if valid.size != 2:
        raise ValueError(
            f"`cohen_kappa` needs exactly two annotators; these ratings have {valid.size} "
            "annotators with ratings. Use `conger_kappa` or `light_kappa` for more."
        )
    return np.ascontiguousarray(r.codes[:, valid])


def _cohen_asymmetric(r: Ratings, wts: Weights, n_pop: float | None) -> AgreementResult:
    """Cohen's (1968) weighted κ with a non-symmetric weight matrix (complete data)."""
    codes = _two_raters(r)
    rated = (codes >= 0).any(axis=1)
    both = (codes >= 0).all(axis=1)
    if not np.array_equal(rated, both):
        raise ValueError(
            "a non-symmetric `weights` matrix needs every rated item rated by both "
            f"annotators; {int((rated & ~both).sum())} item(s) have one rating. Drop them "
            "(e.g. `ratings.take(...)`) or use a symmetric matrix."
        )
    table = contingency(codes, r.n_categories)
    n = int(table.sum())
    kappa, po, pe, se, se0 = cohen_from_table(table, wts.matrix)
    notes = [f"non-symmetric weights: rows are {r.raters[np.flatnonzero((r.codes >= 0).any(axis=0))[0]]}'s "
             "categories, columns the other annotator's (Cohen 1968)",
             "SE: Fleiss, Cohen & Everitt (1969), normal interval (as SAS PROC FREQ)"]
    if n_pop is not None:
        if n_pop < n:
            raise ValueError(
                f"`n_population` ({n_pop:g}) must be at least the number of rated items ({n})."
            )
        se *= math.sqrt(1.0 - n / n_pop)
        notes.append(f"finite-population correction for N = {n_pop:g}")
    if not math.isfinite(kappa):
        warnings.warn("Cohen's kappa is undefined: chance agreement is 1; NaN returned.",
                      DegenerateDataWarning, stacklevel=4)
        notes.append("undefined: chance agreement 1")
    return AgreementResult(
        coefficient="Cohen's kappa", value=kappa, observed=po, expected=pe, n_items=n,
        n_pairable=n, n_raters=2, n_categories=r.n_categories, standard_error=se,
        ci_method="normal", weights=wts.name, notes=tuple(notes), _null_se=se0,
    )


def _compute_parts(name: str, spec, r: Ratings, wts: Weights,
                   n_pop: float | None) -> AgreementResult:
    visit = _plan(spec.family, r, wts)
    sums = _sums(spec.family, r, wts, visit)
    m = r.n_categories
    queries = DataQueries(
        ss=lambda beta, center: _ss(spec.family, r, wts, visit, beta, center),
        check_scott=lambda: _check_two_ratings(r),
        cohen_null=lambda: cohen_null_from_sums(sums, r.n_raters, m, wts.matrix),
        fleiss_null=_fleiss_null_later(r))
    return result_from_sums(name, sums, wts, n_pop, n_raters=r.n_raters, n_categories=m,
                            n_rows=r.n_items, queries=queries, stacklevel=5)


def _fleiss_null_later(r: Ratings) -> Callable[[], float]:
    """Fleiss, Nee & Landis' SE under H0, computed when first asked for."""
    return lambda: fleiss_null_se(r.counts)


class DataQueries(NamedTuple):
    """What the finalize step may still ask of the data, beyond its column sums."""

    #: ``ss(beta, center)``: ``Σ_i (row_i · beta − center)²`` over the rated items (a
    #: second pass, or the carried second moments)
    ss: Callable[[np.ndarray, float], float]
    #: raises if an item has more than two ratings (Scott's π)
    check_scott: Callable[[], None]
    #: the standard errors under H0 of Cohen's and Fleiss' κ
    cohen_null: Callable[[], float]
    fleiss_null: Callable[[], float]


def result_from_sums(name: str, sums: np.ndarray, wts: Weights, n_pop: float | None, *,
                     n_raters: int, n_categories: int, n_rows: int, queries: DataQueries,
                     stacklevel: int) -> AgreementResult:
    """The AgreementResult of ``name`` from its column sums (the finalize step).

    ``n_rows`` counts the items of the data, rated or not; ``queries`` what the step
    may still ask of the data (a sum of squares, Scott's check, the SEs under H0).
    """
    ss, check_scott, cohen_null, fleiss_null = queries
    spec = SPECS[name]
    k, m = n_raters, n_categories
    parts = finalize(spec, sums, wts.matrix, k)
    parts = FinalizedCoefficient(*(float(v) for v in parts))
    n, n2 = round(parts.n_items), round(parts.n_pairable)
    label = spec.label
    if name == "gwet_ac1" and wts.weighted:
        label = "Gwet's AC2"
    notes: list[str] = list(wts.notes)
    n_raters = k

    if spec.family != "count":
        onehot = sums[3:] if spec.family == "rater" else sums[2:2 + k * m]
        _, _, valid = _rater_marginals(onehot.reshape(k, m))
        n_raters = int(valid.sum())
        if n_raters < k:
            notes.append(f"{k - n_raters} annotator(s) without ratings ignored")
        if name == "cohen_kappa" and n_raters != 2:
            raise ValueError(
                f"`cohen_kappa` needs exactly two annotators; these ratings have {n_raters} "
                "annotators with ratings. Use `conger_kappa` or `light_kappa` for more."
            )
        if n_raters < 2:
            raise ValueError(
                f"`{name}` needs at least two annotators with ratings; got {n_raters}."
            )
    if n2 == 0:
        raise ValueError(
            f"`{name}`: no item has two or more ratings ({k} annotator column(s)), so there "
            "is no observed agreement. Agreement needs at least two ratings of some item."
        )
    if name == "scott_pi":
        check_scott()

    if n < n_rows:
        notes.append(f"{n_rows - n} item(s) without ratings dropped")
    if n2 < n:
        notes.append(f"{n - n2} item(s) with one rating count in the marginals only "
                     "(Gwet 2014)")
    if name == "percent_agreement":
        notes.append(f"unanimous items: {round(sums[3])} of {n2} "
                     f"({sums[3] / n2:.1%})")
    if name == "light_kappa":
        notes.append("mean of the pairwise Cohen's kappas; observed and expected are the "
                     "means of the pairs' PA and PE")

    value = parts.value
    null_se = math.nan
    if not math.isfinite(value):
        reason = _degenerate_reason(spec, m, parts)
        warnings.warn(f"{label} is undefined: {reason}; NaN returned.",
                      DegenerateDataWarning, stacklevel=stacklevel)
        notes.append(f"undefined: {reason}")
        se = math.nan
        ci_method = "t"
    else:
        fce = name == "cohen_kappa" and n2 == n
        lin = linearization(spec, sums, parts, wts.matrix, k, fce=fce)
        sq = ss(lin.beta, lin.center)
        if n_pop is not None and n_pop < n:
            raise ValueError(
                f"`n_population` ({n_pop:g}) must be at least the number of rated items ({n})."
            )
        se = math.sqrt(max(variance(sq, n, lin.method, n_pop), 0.0)) if n >= 2 else math.nan
        ci_method = "normal" if lin.method == "fce" else "t"
        if name == "cohen_kappa":
            notes.append(
                "SE: Fleiss, Cohen & Everitt (1969), normal interval (as SAS PROC FREQ)"
                if fce else "SE: Gwet's linearised variance (missing ratings), t interval")
            if fce:
                null_se = cohen_null()
        if name == "fleiss_kappa" and not wts.weighted:
            null_se = fleiss_null  # computed on first use (it needs a pass over the items)
        if n < 2:
            warnings.warn(f"the standard error of {label} needs at least two rated items; "
                          "NaN returned.", DegenerateDataWarning, stacklevel=stacklevel)
            notes.append("standard error undefined: fewer than two rated items")
    if n_pop is not None:
        notes.append(f"finite-population correction for N = {n_pop:g}")
    return AgreementResult(
        coefficient=label, value=value, observed=parts.observed, expected=parts.expected,
        n_items=n, n_pairable=n2, n_raters=n_raters, n_categories=m, standard_error=se,
        ci_method=ci_method, weights=wts.name, notes=tuple(notes), _null_se=null_se,
        value_range=(0.0, 1.0) if name == "percent_agreement" else (-1.0, 1.0),
    )


def _check_two_ratings(r: Ratings) -> None:
    if r.has_raters and r.n_raters <= 2:
        return
    per_item = (r.counts.sum(axis=1) if not r.has_raters
                else np.count_nonzero(r.codes >= 0, axis=1))
    worst = int(np.argmax(per_item))
    if per_item[worst] > 2:
        raise ValueError(
            f"`scott_pi` is defined for at most two ratings per item; item "
            f"{_item_name(r.items[worst])} has {int(per_item[worst])}. Use `fleiss_kappa`, Fleiss' "
            "generalisation of Scott's pi to more ratings."
        )


def _item_name(item: Any) -> str:
    """An item id for a message: ``7`` or ``'a'``, never ``np.int64(7)``."""
    if isinstance(item, np.generic):
        item = item.item()
    return repr(item)


def _degenerate_reason(spec, m: int, parts: FinalizedCoefficient) -> str:
    if spec.chance == "gwet" and m < 2:
        return "AC1 needs at least two categories (only one is declared)"
    if spec.chance == "light":
        return "no pair of annotators has a defined Cohen's kappa (no jointly rated item, " \
               "or chance agreement 1)"
    return (f"chance agreement is {parts.expected:.6g} (every rating in one category, or "
            "weights that give full credit to every pair)")
