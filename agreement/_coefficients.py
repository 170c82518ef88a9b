"""The chance-corrected agreement coefficients of SPEC §1 (Krippendorff's α aside).

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

from agreement import _chunked
from _goldnoise_lib.errors import DegenerateDataWarning
from agreement._item_stats import (
    SPECS,
    FinalizedCoefficient,
    _rater_marginals,
    count_rows_from_counts,
    finalize,
)
from _goldnoise_lib.lazy import lazy_module
from agreement._light import COLUMN_MAX_PAIRS, light, stats_from_sums
from agreement._null import cohen_from_table, cohen_null_from_sums, contingency, fleiss_null_se
from agreement._ratings import Ratings, as_ratings
from agreement._result import AgreementResult, with_clip_note
from agreement._variance import linearization, variance
from agreement._weights import Weights, weight_matrix

# Numba kernels, imported at first use (import agreement stays fast).
_kernels = lazy_module("agreement._kernels")

__all__ = [
    "brennan_prediger",
    "cohen_kappa",
    "conger_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "light_kappa",
    "percent_agreement",
    "scott_pi",
]


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


# From this many annotators on, the rater and pair families run column kernels.
_COLUMNS_FROM = 6


def _plan(family: str, r: Ratings, wts: Weights) -> _Pass:
    if family == "count" and not r.has_raters:
        return _Pass(count_rows_from_counts(r.counts, wts.matrix, wts.weighted), None)
    n, k = r.codes.shape
    m = r.n_categories
    # Few possible rating patterns: one histogram pass, then the per-item statistics
    # once per distinct pattern, weighted by its count. Pattern keys are cheaper to
    # compute; the count family can also key on the multiset of an item's labels.
    kinds = ("pattern", "multiset") if family == "count" else ("pattern",)
    fits = [kd for kd in kinds if _kernels.n_keys(kd, k, m) <= min(_kernels.MAX_KEYS, 4 * n)]
    if fits:
        kind = fits[0]
        keys, mult = _kernels.key_histogram(r.codes, m, kind)
        small = _kernels.keys_to_codes(keys, kind, k, m, r.codes.dtype)
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


def _compute(name: str, ratings: Any, weights: Any, n_population: Any) -> AgreementResult:
    if _chunked.is_chunked(ratings):  # partial -> combine -> finalize over the chunks
        return _chunked.run_chunked("coefficient", name, ratings, weights=weights,
                                    n_population=n_population)
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
    return result_from_sums(
        name, sums, wts, n_pop, n_raters=r.n_raters, n_categories=m, n_rows=r.n_items,
        ss=lambda beta, center: _ss(spec.family, r, wts, visit, beta, center),
        check_scott=lambda: _check_two_ratings(r),
        cohen_null=lambda: cohen_null_from_sums(sums, r.n_raters, m, wts.matrix),
        fleiss_null=_fleiss_null_later(r), stacklevel=5)


def _fleiss_null_later(r: Ratings) -> Callable[[], float]:
    """Fleiss, Nee & Landis' SE under H0, computed when first asked for."""
    return lambda: fleiss_null_se(r.counts)


def result_from_sums(name: str, sums: np.ndarray, wts: Weights, n_pop: float | None, *,
                     n_raters: int, n_categories: int, n_rows: int,
                     ss: Callable[[np.ndarray, float], float],
                     check_scott: Callable[[], None], cohen_null: Callable[[], float],
                     fleiss_null: Callable[[], float], stacklevel: int) -> AgreementResult:
    """The AgreementResult of ``name`` from its column sums (the finalize step).

    ``ss(beta, center)`` returns ``Σ_i (row_i · beta − center)²`` over the rated
    items (a second pass, or the carried second moments); ``n_rows`` counts the
    items of the data, rated or not; ``check_scott`` raises if an item has more
    than two ratings; ``cohen_null`` and ``fleiss_null`` give the SEs under H0.
    """
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


_PARAMS = """
    Parameters
    ----------
    ratings : Ratings or array_like, shape (n_items, n_raters)
        The ratings; a raw items × annotators array or DataFrame (NaN/None
        missing) is wrapped with :func:`~agreement.as_ratings`.{counts}
    weights : None, str or array_like, shape (m, m), optional
        Agreement weights (Gwet 2014, as irrCAC): ``None`` (or ``"identity"``)
        counts only identical ratings; ``"linear"``, ``"quadratic"``,
        ``"ordinal"``, ``"radical"``, ``"ratio"``, ``"circular"`` and
        ``"bipolar"`` are computed from the categories' numeric values (or
        their declared order ``1..m``) over the declared categories (formulas
        in :func:`~agreement.named_weights`; the notes state the values used).
        A matrix must have ones on the diagonal and values in [0, 1], and be
        symmetric (only :func:`cohen_kappa` accepts a non-symmetric one).
    n_population : float, optional
        Size of the population of items the sample was drawn from; applies
        the finite-population correction ``1 − n / N`` to the variance.
        Default: infinite.

    Returns
    -------
    AgreementResult
        ``value``, ``observed`` (PA), ``expected`` (PE), counts, the analytic
        ``standard_error`` and ``.confidence_interval()``.

    Raises
    ------
    ValueError
        If no item has two ratings{raters}, or for invalid ``weights``.
    TypeError
        If ``weights`` or ``n_population`` has the wrong type.

    Warns
    -----
    DegenerateDataWarning
        When chance agreement is 1 (e.g. one category only): the value is
        NaN.
"""
_COUNTS_OK = ("\n        A count table (:meth:`Ratings.from_counts`) works too: this "
              "coefficient needs\n        no annotator identity.")
_NEEDS_RATERS = ("\n        Annotator identity is needed: count tables are refused. "
                 "Annotators\n        without any rating are ignored.")


def _doc(counts_ok: bool, raters: str = ""):
    def deco(fn):
        fn.__doc__ = fn.__doc__.replace(
            "    {params}\n",
            _PARAMS.format(counts=_COUNTS_OK if counts_ok else _NEEDS_RATERS,
                           raters=raters).lstrip("\n"))
        return fn
    return deco


@_doc(True)
def percent_agreement(ratings: Any, *, weights: Any = None,
                      n_population: float | None = None) -> AgreementResult:
    """Observed agreement ``PA``: the mean share of agreeing pairs of ratings.

    {params}
    Notes
    -----
    ``PA = mean_i Σ_c a_ic (Σ_l w_cl a_il − 1) / (r_i (r_i − 1))`` over the
    items with ``r_i ≥ 2`` ratings (SPEC §1); ``expected`` is 0. The notes
    give the share of unanimous items. Standard error: Gwet (2014), t
    interval with ``n − 1`` degrees of freedom.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.).
    Advanced Analytics. ISBN 978-0970806284.

    Examples
    --------
    >>> from agreement import percent_agreement
    >>> res = percent_agreement([["a", "a", "a"], ["a", "b", "b"], ["b", "b", None]])
    >>> round(res.value, 4)
    0.7778
    >>> res.notes[0]
    'unanimous items: 2 of 3 (66.7%)'
    >>> res.confidence_interval().high, res.clipped()  # the t interval is clipped at 1
    (1.0, True)
    """
    return _compute("percent_agreement", ratings, weights, n_population)


@_doc(True)
def fleiss_kappa(ratings: Any, *, weights: Any = None,
                 n_population: float | None = None) -> AgreementResult:
    """Fleiss' κ (Fleiss 1971; Siegel & Castellan's K), with Gwet's weights.

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl π_c π_l`` with ``π_c`` the item-average of
    ``a_ic / r_i``; with complete data and no weights this is Fleiss' (1971)
    κ (statsmodels' ``fleiss_kappa``). Standard error: Gwet's linearised
    variance (Gwet 2008, 2014; irrCAC ``fleiss.kappa.raw``), t interval.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin* 76(5), 378–382. https://doi.org/10.1037/h0031619

    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in
    the presence of high agreement. *British Journal of Mathematical and
    Statistical Psychology* 61, 29–48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    The standard worked example (Wikipedia, "Fleiss' kappa"): 10 subjects,
    14 annotators, 5 categories, as a count table; κ = 0.210.

    >>> from agreement import Ratings, fleiss_kappa
    >>> table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...          [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...          [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> res = fleiss_kappa(Ratings.from_counts(table))
    >>> round(res.value, 3)
    0.21
    """
    return _compute("fleiss_kappa", ratings, weights, n_population)


@_doc(True, " or an item has more than two ratings")
def scott_pi(ratings: Any, *, weights: Any = None,
             n_population: float | None = None) -> AgreementResult:
    """Scott's π: Fleiss' κ for at most two ratings per item (Scott 1955).

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl π_c π_l`` with the pooled marginals of both ratings.
    Standard error: Gwet's linearised variance (t interval); irrCAC's
    ``scott2.table`` divides the same sum of squares by ``n`` instead of
    ``n − 1``.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: The case of nominal
    scale coding. *Public Opinion Quarterly* 19(3), 321–325.
    https://doi.org/10.1086/266577

    Examples
    --------
    >>> from agreement import scott_pi
    >>> round(scott_pi([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.4667
    """
    return _compute("scott_pi", ratings, weights, n_population)


@_doc(False, ", or the ratings do not have exactly two annotators")
def cohen_kappa(ratings: Any, *, weights: Any = None,
                n_population: float | None = None) -> AgreementResult:
    """Cohen's κ for two annotators, weighted κ (Cohen 1968) with ``weights``.

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl p_1c p_2l`` from each annotator's own marginals.
    Standard error: Fleiss, Cohen & Everitt (1969), the asymptotic variance
    SAS PROC FREQ, R's vcd and irrCAC's ``kappa2.table`` report, with a
    normal interval by default (``result.confidence_interval(method="t")``
    for irrCAC's t interval). With missing ratings the estimate follows Gwet
    (2014) — ``PA`` over the items both rated, each annotator's marginals
    over the items they rated — and the standard error is Gwet's linearised
    variance (as :func:`conger_kappa` on the same two annotators), t
    interval. A contingency table is read with
    :meth:`Ratings.from_contingency`.

    ``weights`` may be a non-symmetric matrix (Cohen 1968: when the two
    annotators' roles differ, e.g. one is the criterion): rows are the first
    annotator's categories, columns the second's; this needs complete data.
    ``result.test()`` tests κ = 0 with the Fleiss–Cohen–Everitt variance
    under H0 (SAS PROC FREQ's "ASE under H0") when the data are complete.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales.
    *Educational and Psychological Measurement* 20(1), 37–46.
    https://doi.org/10.1177/001316446002000104

    Cohen, J. (1968). Weighted kappa. *Psychological Bulletin* 70(4), 213–220.
    https://doi.org/10.1037/h0026256

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard
    errors of kappa and weighted kappa. *Psychological Bulletin* 72(5),
    323–327. https://doi.org/10.1037/h0028106

    Examples
    --------
    The SAS PROC FREQ documentation example (κ 0.4842, ASE 0.1380, 95% CI
    0.2137–0.7547):

    >>> from agreement import Ratings, cohen_kappa
    >>> table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    >>> res = cohen_kappa(Ratings.from_contingency(table))
    >>> round(res.value, 4), round(res.standard_error, 4)
    (0.4842, 0.138)
    >>> [round(x, 4) for x in res.confidence_interval(0.95)]
    [0.2137, 0.7547]
    >>> round(res.test().standard_error, 4)  # ASE under H0
    0.1484
    """
    return _compute("cohen_kappa", ratings, weights, n_population)


@_doc(False, ", fewer than two annotators rated anything")
def conger_kappa(ratings: Any, *, weights: Any = None,
                 n_population: float | None = None) -> AgreementResult:
    """Conger's κ: Cohen's κ generalised to many annotators (Conger 1980).

    {params}
    Notes
    -----
    ``PE`` is the mean over ordered pairs of distinct annotators ``g ≠ h`` of
    ``Σ_cl w_cl p_gc p_hl``, each annotator's marginals ``p_g`` taken over the
    items that annotator rated (Gwet 2014). Standard error: Gwet's linearised
    variance (irrCAC ``conger.kappa.raw``), t interval.

    References
    ----------
    Conger, A. J. (1980). Integration and generalization of kappas for
    multiple raters. *Psychological Bulletin* 88(2), 322–328.
    https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    >>> from agreement import conger_kappa
    >>> res = conger_kappa([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2]])
    >>> round(res.observed, 4), round(res.expected, 4), round(res.value, 4)  # 5/13
    (0.6667, 0.4583, 0.3846)
    """
    return _compute("conger_kappa", ratings, weights, n_population)


@_doc(False, ", fewer than two annotators rated anything")
def light_kappa(ratings: Any, *, weights: Any = None,
                n_population: float | None = None) -> AgreementResult:
    """Light's κ: the mean of Cohen's κ over all pairs of annotators (Light 1971).

    {params}
    Notes
    -----
    Each pair's κ follows :func:`cohen_kappa` (with missing ratings: ``PA``
    over the items both rated, each annotator's marginals over the items they
    rated). Pairs whose κ is undefined (no item rated by both, or chance
    agreement 1) are left out of the mean. ``observed`` and ``expected`` are
    the mean ``PA`` and ``PE`` of the pairs. Standard error: the mean over
    pairs of each pair's Gwet linearisation (delta method), t interval. The
    cost grows with the number of annotator pairs.

    References
    ----------
    Light, R. J. (1971). Measures of response agreement for qualitative data:
    Some generalizations and alternatives. *Psychological Bulletin* 76(5),
    365–377. https://doi.org/10.1037/h0031643

    Examples
    --------
    >>> from agreement import light_kappa

    The pairs' κ are 0.5, 0.2 and 0.5:

    >>> round(light_kappa([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2]]).value, 4)
    0.4
    """
    return _compute("light_kappa", ratings, weights, n_population)


@_doc(True)
def brennan_prediger(ratings: Any, *, weights: Any = None,
                     n_population: float | None = None) -> AgreementResult:
    """Brennan–Prediger's coefficient (Bennett's S): chance agreement ``Σ w / m²``.

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl / m²`` over the declared categories (``1/m`` unweighted):
    declaring unused categories changes the value. Standard error: Gwet's
    linearised variance (irrCAC ``bp.coeff.raw``), t interval.

    References
    ----------
    Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: Some uses,
    misuses, and alternatives. *Educational and Psychological Measurement*
    41(3), 687–699. https://doi.org/10.1177/001316448104100307

    Examples
    --------
    >>> from agreement import brennan_prediger
    >>> round(brennan_prediger([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.5
    """
    return _compute("brennan_prediger", ratings, weights, n_population)


@_doc(True)
def gwet_ac1(ratings: Any, *, weights: Any = None,
             n_population: float | None = None) -> AgreementResult:
    """Gwet's AC1, and AC2 when weighted (Gwet 2008, 2014).

    {params}
    Notes
    -----
    ``PE = Σ_cl w_cl / (m (m − 1)) · Σ_c π_c (1 − π_c)`` with ``π_c`` the
    item-average of ``a_ic / r_i`` over the declared categories. Standard
    error: Gwet's linearised variance (irrCAC ``gwet.ac1.raw``), t interval.
    With one declared category AC1 is undefined (NaN and a warning).

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in
    the presence of high agreement. *British Journal of Mathematical and
    Statistical Psychology* 61, 29–48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    >>> from agreement import gwet_ac1
    >>> res = gwet_ac1([[1, 1], [1, 2], [2, 3], [3, 3]], weights="linear")
    >>> res.coefficient, round(res.observed, 4), round(res.expected, 6), round(res.value, 4)
    ("Gwet's AC2", 0.75, 0.546875, 0.4483)
    """
    return _compute("gwet_ac1", ratings, weights, n_population)
