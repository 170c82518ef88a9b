"""Per-item sufficient statistics and the finalize step of every coefficient.

Each coefficient is ``finalize(Σ_i s_i)``: a function of column sums of
per-item statistics ``s_i`` (SPEC §1). :func:`item_statistics` returns those
per-item rows so that other packages can resample items (a bootstrap is
``finalize(multiplicity @ rows)``) or add the sums of chunks of items.

These layouts of columns serve the coefficients:

* count family (percent agreement, Fleiss, Scott, Brennan–Prediger, Gwet):
  ``rated, pairable, agreement, unanimous, p[c] for each category``;
* rater family (Cohen, Conger): ``rated, pairable, agreement, x[j, c]`` for
  each annotator ``j`` and category ``c``;
* pair family (Light): ``rated, pairable, x[j, c], both[j, l], agree[j, l]``
  for each pair of annotators ``j < l``;
* the intraclass correlations (``icc1`` ... ``icc3k``): ``complete, Σ_j y_ij,
  (Σ_j y_ij)², Σ_j y_ij², y_ij`` for each annotator ``j`` (``y`` the rating less a
  fixed shift; zeros for an item with a missing rating), the sums of the two-way
  ANOVA; Lin's CCC (``lin_ccc``): ``complete, y_ij, y_ij y_il`` for ``j ≤ l``;
* Krippendorff's α, each unit's coincidences (Krippendorff 2011): for the
  nominal, interval and ratio levels ``rated, pairable, d_o, n[c]`` (the
  unit's disagreement ``Σ_ck o_u[c, k] δ²_ck`` and coincidence marginals
  ``n[c] = a[i, c]``, both 0 unless pairable); for the ordinal level, whose
  metric depends on the marginals of the whole sample, ``rated, pairable`` and
  ``o[c, k]`` for ``c ≤ k``. Every resample thus recomputes both the observed
  and the expected disagreement.

``rated`` is 1 if item ``i`` has a rating, ``pairable`` if it has two or
more, ``agreement`` is ``PA_i`` (weighted; 0 for fewer than two ratings),
``unanimous`` marks pairable items whose ratings all agree, ``p[c]`` is
``a[i, c] / r[i]``, ``x[j, c]`` is 1 if annotator ``j`` put the item in
``c``, ``both[j, l]`` is 1 if both annotators rated it and ``agree[j, l]`` is
their weighted agreement on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from _goldnoise_lib.lazy import lazy_module
from agreement import _krippendorff as _kr
from agreement._ratings import Ratings, as_ratings
from agreement._weights import weight_matrix

# Numba kernels, imported at first use (import agreement stays fast).
_kernels = lazy_module("agreement._kernels")

__all__ = ["SCALE_STATISTICS", "CoefficientInfo", "FinalizedCoefficient", "ItemStatistics",
           "coefficient_info", "item_statistics"]

# 1 − PE at or below this is "chance agreement is 1": the coefficient is undefined.
PE_TOL = 1e-12


@dataclass(frozen=True)
class CoefficientInfo:
    """What kind of coefficient a name stands for (see :func:`coefficient_info`).

    Attributes
    ----------
    name : str
        The public function's name, e.g. ``"fleiss_kappa"``.
    label : str
        The name a person reads, e.g. ``"Fleiss' kappa"``.
    family : str
        The layout of its per-item rows (module docstring): ``"count"`` (needs
        only each item's category counts), ``"rater"`` or ``"pair"`` (needs the
        annotators' identities), ``"alpha"`` (Krippendorff's α, whose rows
        depend on the level of measurement), ``"anova"`` (the intraclass
        correlations) or ``"moments"`` (Lin's CCC); the last two need numbers.
    chance : str
        Its chance model: ``"none"``, ``"fleiss"``, ``"bp"``, ``"gwet"``,
        ``"conger"``, ``"light"`` or ``"alpha"``; for the intraclass
        correlations the form (``"ICC1"`` ... ``"ICC3k"``), for Lin's CCC ``"ccc"``.
    """

    name: str
    label: str
    family: str
    chance: str




SPECS = {s.name: s for s in (
    CoefficientInfo("percent_agreement", "Percent agreement", "count", "none"),
    CoefficientInfo("fleiss_kappa", "Fleiss' kappa", "count", "fleiss"),
    CoefficientInfo("scott_pi", "Scott's pi", "count", "fleiss"),
    CoefficientInfo("cohen_kappa", "Cohen's kappa", "rater", "conger"),
    CoefficientInfo("conger_kappa", "Conger's kappa", "rater", "conger"),
    CoefficientInfo("light_kappa", "Light's kappa", "pair", "light"),
    CoefficientInfo("brennan_prediger", "Brennan-Prediger", "count", "bp"),
    CoefficientInfo("gwet_ac1", "Gwet's AC1", "count", "gwet"),
)}
ALPHA = CoefficientInfo("krippendorff_alpha", "Krippendorff's alpha", "alpha", "alpha")
#: Rating scales (numeric labels): the intraclass correlations, rows of the two-way ANOVA
#: (family "anova", chance model = the form), and Lin's CCC, rows of first and second
#: moments (family "moments").
SCALE_SPECS = {s.name: s for s in (
    CoefficientInfo("icc1", "ICC(1,1)", "anova", "ICC1"),
    CoefficientInfo("icc2", "ICC(2,1)", "anova", "ICC2"),
    CoefficientInfo("icc3", "ICC(3,1)", "anova", "ICC3"),
    CoefficientInfo("icc1k", "ICC(1,k)", "anova", "ICC1k"),
    CoefficientInfo("icc2k", "ICC(2,k)", "anova", "ICC2k"),
    CoefficientInfo("icc3k", "ICC(3,k)", "anova", "ICC3k"),
    CoefficientInfo("lin_ccc", "Lin's concordance correlation", "moments", "ccc"),
)}
SCALE_STATISTICS = tuple(SCALE_SPECS)


class FinalizedCoefficient(NamedTuple):
    """A coefficient and its parts, from column sums (arrays over leading axes).

    ``value`` is NaN where the coefficient is undefined (chance agreement 1,
    no pairable item, fewer than two annotators with ratings).
    """

    value: Any
    observed: Any
    expected: Any
    n_items: Any
    n_pairable: Any


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, np.true_divide(a, np.where(b != 0, b, 1.0)), np.nan)


def _kappa(pa, pe):
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (1.0 - pe) > PE_TOL
        return np.where(ok, (pa - pe) / np.where(ok, 1.0 - pe, 1.0), np.nan)


def _rater_marginals(counts):
    """Each annotator's category shares over the items they rated, and who rated."""
    ng = counts.sum(axis=-1)
    valid = ng > 0
    p = _div(counts, ng[..., None])
    p = np.where(valid[..., None], p, 0.0)
    return p, ng, valid


def pair_index(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Annotator pairs ``(j, l)``, ``j < l``, in the order of the pair columns."""
    j, l_ = np.triu_indices(k, 1)
    return j, l_


def finalize(spec: CoefficientInfo, sums: np.ndarray, w: np.ndarray, k: int) -> FinalizedCoefficient:
    """The coefficient of ``spec`` from column sums ``sums[..., n_columns]``."""
    s = np.asarray(sums, dtype=np.float64)
    m = w.shape[0]
    n, n2 = s[..., 0], s[..., 1]
    if spec.family == "count":
        pa = _div(s[..., 2], n2)
        pi = _div(s[..., 4:4 + m], n[..., None])  # π_c: item-average of a[i,c]/r[i]
        if spec.chance == "none":
            pe = np.zeros_like(pa)
        elif spec.chance == "fleiss":  # Σ_cl w_cl π_c π_l (Fleiss 1971; Gwet 2014 eq. 5.1)
            pe = np.einsum("...c,cl,...l->...", pi, w, pi)
        elif spec.chance == "bp":  # Σ w / m² (Brennan & Prediger 1981; Gwet 2014)
            pe = np.full_like(pa, w.sum() / m**2)
        else:  # gwet: Σ w / (m(m−1)) · Σ_c π_c (1 − π_c) (Gwet 2008, 2014)
            pe = (w.sum() / (m * (m - 1)) * np.sum(pi * (1.0 - pi), axis=-1)
                  if m >= 2 else np.full_like(pa, np.nan))
        value = pa if spec.chance == "none" else _kappa(pa, pe)
        return FinalizedCoefficient(value, pa, pe, n, n2)
    counts = s[..., -k * m:] if spec.family == "rater" else s[..., 2:2 + k * m]
    counts = counts.reshape(*s.shape[:-1], k, m)
    p, _, valid = _rater_marginals(counts)
    ke = valid.sum(axis=-1)
    if spec.family == "rater":
        pa = _div(s[..., 2], n2)
        # Conger (1980): mean over ordered pairs of annotators g ≠ h of p_g' W p_h,
        # each annotator's marginals over the items they rated (Gwet 2014).
        tot = p.sum(axis=-2)
        own = np.einsum("...gc,cl,...gl->...", p, w, p)
        pe = _div(np.einsum("...c,cl,...l->...", tot, w, tot) - own, ke * (ke - 1.0))
        pe = np.where(ke >= 2, pe, np.nan)
        return FinalizedCoefficient(_kappa(pa, pe), pa, pe, n, n2)
    # Light (1971): mean over annotator pairs of Cohen's κ of the pair.
    npairs = k * (k - 1) // 2
    both = s[..., 2 + k * m:2 + k * m + npairs]
    agree = s[..., 2 + k * m + npairs:2 + k * m + 2 * npairs]
    j, l_ = pair_index(k)
    pa_pair = _div(agree, both)
    pe_pair = np.einsum("...pc,cl,...pl->...p", p[..., j, :], w, p[..., l_, :])
    kappa_pair = _kappa(pa_pair, pe_pair)
    ok = np.isfinite(kappa_pair) & (both >= 2)  # a pair's κ needs two common items
    n_ok = ok.sum(axis=-1)
    value = _div(np.where(ok, kappa_pair, 0.0).sum(axis=-1), n_ok)
    pa = _div(np.where(ok, pa_pair, 0.0).sum(axis=-1), n_ok)
    pe = _div(np.where(ok, pe_pair, 0.0).sum(axis=-1), n_ok)
    return FinalizedCoefficient(value, pa, pe, n, n2)


def column_names(spec: CoefficientInfo, ratings: Ratings) -> tuple[str, ...]:
    cats = [str(c) for c in ratings.categories]
    if spec.family == "count":
        return ("rated", "pairable", "agreement", "unanimous", *(f"p[{c}]" for c in cats))
    raters = [str(r) for r in ratings.raters]
    onehot = tuple(f"x[{r}, {c}]" for r in raters for c in cats)
    if spec.family == "rater":
        return ("rated", "pairable", "agreement", *onehot)
    j, l_ = pair_index(len(raters))
    pairs = [f"{raters[a]}, {raters[b]}" for a, b in zip(j, l_, strict=True)]
    return ("rated", "pairable", *onehot, *(f"both[{p}]" for p in pairs),
            *(f"agree[{p}]" for p in pairs))


def count_rows_from_counts(counts: np.ndarray, w: np.ndarray, weighted: bool) -> np.ndarray:
    """Count-family rows from a count table ``a[i, c]`` (no annotator identity)."""
    a = np.asarray(counts, dtype=np.float64)
    n, m = a.shape
    r = a.sum(axis=1)
    rows = np.zeros((n, 4 + m))
    rows[:, 0] = r >= 1
    rows[:, 1] = r >= 2
    num = np.einsum("ic,ic->i", a, a @ w - 1.0) if weighted else np.einsum("ic,ic->i", a, a - 1.0)
    pair = r >= 2
    rows[pair, 2] = num[pair] / (r[pair] * (r[pair] - 1.0))
    rows[:, 3] = pair & ((a > 0).sum(axis=1) == 1)
    rated = r >= 1
    rows[rated, 4:] = a[rated] / r[rated, None]
    return rows


@dataclass(frozen=True, repr=False)
class ItemStatistics:
    """Per-item sufficient statistics of one coefficient.

    The coefficient is ``finalize(sums())``; a resample of items with
    multiplicities ``w`` is ``finalize(sums(w))``; chunks of items add their
    ``sums()`` before :meth:`finalize`.

    Attributes
    ----------
    coefficient : str
        Name of the coefficient's function, e.g. ``"fleiss_kappa"``.
    columns : tuple of str
        Names of the columns (see the module docstring for the layouts).
    values : ndarray of float64, shape (n_items, n_columns)
        One row per item of the ratings, in their order (items without
        ratings have a row of zeros). Read-only.
    weights : ndarray of float64, shape (m, m)
        The agreement weights used.
    n_raters, n_categories : int
        Annotator columns and categories of the ratings.
    level : str or None
        Krippendorff's α only: the level of measurement (else None).
    category_values : ndarray of float64, shape (m,), or None
        Krippendorff's α only: the categories' values its metric uses.
    """

    coefficient: str
    columns: tuple[str, ...]
    values: np.ndarray
    weights: np.ndarray
    n_raters: int
    n_categories: int
    level: str | None = None
    category_values: np.ndarray | None = None

    def sums(self, multiplicity: npt.ArrayLike | None = None) -> np.ndarray:
        """Column sums, optionally with per-item multiplicities.

        Parameters
        ----------
        multiplicity : array_like, shape (n_items,) or (n_resamples, n_items), optional
            Non-negative weight of each item (e.g. how often a bootstrap draw
            took it). Default: each item once.

        Returns
        -------
        ndarray, shape (n_columns,) or (n_resamples, n_columns)
        """
        if multiplicity is None:
            return self.values.sum(axis=0)
        mult = np.asarray(multiplicity, dtype=np.float64)
        if mult.ndim not in (1, 2) or mult.shape[-1] != self.values.shape[0]:
            raise ValueError(
                f"`multiplicity` must have shape (n_items,) or (n_resamples, n_items) with "
                f"n_items = {self.values.shape[0]}; got shape {mult.shape}."
            )
        if not np.all(np.isfinite(mult)) or np.any(mult < 0):
            raise ValueError("`multiplicity` must be finite and non-negative.")
        return mult @ self.values

    def finalize(self, sums: npt.ArrayLike) -> FinalizedCoefficient:
        """The coefficient and its parts from column sums.

        Parameters
        ----------
        sums : array_like, shape (..., n_columns)

        Returns
        -------
        FinalizedCoefficient
            Arrays of shape ``sums.shape[:-1]`` (floats for 1-D sums); NaN
            where the coefficient is undefined. No warning is issued: the
            public coefficient functions do that.
        """
        s = np.asarray(sums, dtype=np.float64)
        if s.shape[-1:] != (len(self.columns),):
            raise ValueError(
                f"`sums` must end with an axis of {len(self.columns)} columns; got shape "
                f"{s.shape}."
            )
        if self.coefficient == ALPHA.name:
            alpha, obs, exp, n_units = _kr.alpha_finalize(s, self.category_values, self.level)
            out = FinalizedCoefficient(alpha, obs, exp, n_units, n_units)
        elif self.coefficient in SCALE_SPECS:
            out = _scale_finalize(SCALE_SPECS[self.coefficient], s, self.n_raters)
        else:
            out = finalize(SPECS[self.coefficient], s, self.weights, self.n_raters)
        if s.ndim == 1:
            return FinalizedCoefficient(*(float(v) for v in out))
        return out

    def __repr__(self) -> str:
        return (f"ItemStatistics({self.coefficient}: {self.values.shape[0]} items × "
                f"{len(self.columns)} columns)")


def _scale_finalize(spec: CoefficientInfo, s: np.ndarray, k: int) -> FinalizedCoefficient:
    """An ICC form or Lin's CCC from sums of its rows (no observed/expected parts: NaN)."""
    if spec.family == "anova":
        from agreement._icc import icc_from_sums

        value = icc_from_sums(s, k, spec.chance)
    else:
        from agreement._concordance import ccc_from_sums

        value = ccc_from_sums(s, k)
    nan = np.full(s.shape[:-1], np.nan)
    return FinalizedCoefficient(value, nan, nan, s[..., 0], s[..., 0])


def scale_statistics(r: Ratings, spec: CoefficientInfo) -> ItemStatistics:
    """The ANOVA (ICC) or moment (CCC) rows of numeric ratings; an incomplete item is zeros."""
    from agreement._concordance import moment_columns, moment_rows
    from agreement._icc import anova_columns, anova_rows
    from agreement._scale import ratings_values, slot_matrix

    x = ratings_values(r, f"`{spec.name}`")
    # any fixed shift will do (the coefficients do not depend on it): the scale's middle,
    # the same for every subset of annotators of these ratings
    vals = np.asarray(r.category_values, dtype=np.float64)
    shift = float((vals.min() + vals.max()) / 2.0) if vals.size else 0.0
    raters = [str(x_) for x_ in r.raters]
    k = r.n_raters
    complete = int(np.count_nonzero(~np.isnan(x).any(axis=1)))
    if spec.chance in ("ICC1", "ICC1k") and complete < 2:
        # a crowd design: the one-way forms read each item's k ratings, as icc() does
        slots = slot_matrix(x)
        if slots is not None:
            x, raters, k = slots.values, slots.raters, slots.values.shape[1]
    if spec.family == "anova":
        rows, cols = anova_rows(x, shift), anova_columns(raters)
    else:
        rows, cols = moment_rows(x, shift), moment_columns(raters)
    rows.setflags(write=False)
    return ItemStatistics(spec.name, cols, rows, np.eye(r.n_categories), k, r.n_categories)


def coefficient_info(coefficient: Any) -> CoefficientInfo:
    """The kind of a coefficient given by name or function.

    Parameters
    ----------
    coefficient : str or function
        A coefficient's name (one of :data:`STATISTICS`) or the function itself.

    Returns
    -------
    CoefficientInfo
        Its name, printed label, family of per-item rows and chance model.

    Raises
    ------
    TypeError, ValueError
        If ``coefficient`` names no coefficient.

    Examples
    --------
    >>> from agreement import coefficient_info, fleiss_kappa
    >>> coefficient_info(fleiss_kappa).family
    'count'
    >>> coefficient_info("krippendorff_alpha").label
    "Krippendorff's alpha"
    """
    names = sorted([*SPECS, ALPHA.name, *SCALE_SPECS])
    if callable(coefficient) and getattr(coefficient, "__name__", None) in names:
        coefficient = coefficient.__name__
    if not isinstance(coefficient, str):
        raise TypeError(
            f"`coefficient` must be the name of a coefficient, one of {names}; "
            f"got {type(coefficient).__name__}."
        )
    if coefficient not in names:
        raise ValueError(f"`coefficient` must be one of {names}; got {coefficient!r}.")
    if coefficient in SCALE_SPECS:
        return SCALE_SPECS[coefficient]
    return ALPHA if coefficient == ALPHA.name else SPECS[coefficient]


def alpha_statistics(r: Ratings, level: Any, counts: np.ndarray | None = None) -> ItemStatistics:
    """α's per-unit rows for Ratings ``r`` (``counts``: rows of other items, optional)."""
    r, level, values, _ = _kr._krippendorff_alpha_iv(r, level)
    rows = _kr.alpha_item_rows(r.counts if counts is None else counts, values, level)
    rows.setflags(write=False)
    m = r.n_categories
    return ItemStatistics(ALPHA.name, _kr.alpha_columns(level, r.categories), rows, np.eye(m),
                          r.n_raters, m, level, values)


def item_statistics(ratings: Any, coefficient: Any, *, weights: Any = None,
                    level: Any = None) -> ItemStatistics:
    """Per-item sufficient statistics of a coefficient.

    Parameters
    ----------
    ratings : Ratings or array_like
        Raw items × annotators data are wrapped with :func:`as_ratings`.
    coefficient : str or function
        ``"percent_agreement"``, ``"fleiss_kappa"``, ``"scott_pi"``,
        ``"cohen_kappa"``, ``"conger_kappa"``, ``"light_kappa"``,
        ``"brennan_prediger"``, ``"gwet_ac1"`` or ``"krippendorff_alpha"`` (or
        the function itself); for numeric ratings also the intraclass
        correlations ``"icc1"``, ``"icc2"``, ``"icc3"``, ``"icc1k"``,
        ``"icc2k"``, ``"icc3k"`` and Lin's ``"lin_ccc"`` (:data:`SCALE_STATISTICS`),
        whose rows are an item's ANOVA sums or moments (zeros for an item with
        a missing rating: listwise deletion).
    weights : None, str or array_like, shape (m, m)
        As in the coefficient's function (not for Krippendorff's α here).
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Krippendorff's α only: the level of measurement (default "nominal").

    Returns
    -------
    ItemStatistics

    Raises
    ------
    ValueError
        If the coefficient needs annotator identity and ``ratings`` is a count
        table, or for an unknown coefficient or invalid weights; if ``level``
        is given for a coefficient other than α, or ``weights`` for α.

    Notes
    -----
    The rows are computed by one parallel pass over the code matrix and take
    ``n_items × n_columns`` floats; for very large data, call this on chunks
    of items and add their :meth:`ItemStatistics.sums`. The rater and pair
    layouts have a column per annotator and category (and per pair of
    annotators), so they suit designs with few annotators.

    Examples
    --------
    >>> from agreement import item_statistics
    >>> st = item_statistics([[1, 1], [1, 2], [2, 2]], "fleiss_kappa")
    >>> st.columns
    ('rated', 'pairable', 'agreement', 'unanimous', 'p[1]', 'p[2]')
    >>> round(st.finalize(st.sums()).value, 4)
    0.3333
    >>> round(st.finalize(st.sums([2, 0, 1])).value, 4)  # a bootstrap draw
    1.0

    Krippendorff's α resamples units: both disagreements are recomputed.

    >>> st = item_statistics([[1, 1], [1, 2], [2, 2], [2, 3]], "krippendorff_alpha",
    ...                      level="interval")
    >>> st.columns
    ('rated', 'pairable', 'd_o', 'n[1]', 'n[2]', 'n[3]')
    >>> round(st.finalize(st.sums()).value, 4), round(st.finalize(st.sums([0, 2, 1, 1])).value, 4)
    (0.5, 0.087)
    """
    spec = coefficient_info(coefficient)
    r = as_ratings(ratings)
    if spec.name in SCALE_SPECS:
        if weights is not None or level is not None:
            raise ValueError(f"`weights` and `level` do not apply to `{spec.name}`, which "
                             "reads the ratings' numbers.")
        return scale_statistics(r, spec)
    if spec is ALPHA:
        if weights is not None:
            raise ValueError(
                "`weights` does not apply to Krippendorff's α; its metric is set by `level` "
                "('nominal', 'ordinal', 'interval' or 'ratio')."
            )
        return alpha_statistics(r, "nominal" if level is None else level)
    if level is not None:
        raise ValueError(
            f"`level` applies to Krippendorff's α only; got level={level!r} for "
            f"`{spec.name}` (use `weights=` for weighted agreement)."
        )
    wts = weight_matrix(weights, r)
    if spec.family == "count":
        if r.has_raters:
            rows = _kernels.item_rows("count", r.codes, wts.matrix, wts.weighted)
        else:
            rows = count_rows_from_counts(r.counts, wts.matrix, wts.weighted)
    else:
        codes = r.require_raters(f"`{spec.name}`")
        rows = _kernels.item_rows(spec.family, codes, wts.matrix, wts.weighted)
    rows.setflags(write=False)
    return ItemStatistics(spec.name, column_names(spec, r), rows, wts.matrix, r.n_raters,
                          r.n_categories)
