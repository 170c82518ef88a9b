"""The intraclass correlations of Shrout & Fleiss (1979) and McGraw & Wong (1996).

Every form is a function of the mean squares of the two-way ANOVA of an
items × annotators table of numbers, and those are functions of sums over items
of ``1``, ``Σ_j x_ij``, ``(Σ_j x_ij)²``, ``Σ_j x_ij²`` and ``x_ij`` for each
annotator ``j``: the per-item rows of :func:`anova_rows`, which the bootstrap
engine and the swap test resample like every other coefficient's rows
(:func:`agreement.item_statistics` with ``"icc1"`` ... ``"icc3k"``).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Option,
    check_confidence_level,
    check_params,
    validate_params,
)
from agreement._scale import listwise, scale_numbers, slot_matrix

__all__ = ["FORMS", "ICCResult", "anova_columns", "anova_rows", "icc", "icc_from_sums"]

FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
#: McGraw & Wong's (1996) names of Shrout & Fleiss's forms (as psych and pingouin print).
TYPES = {"ICC1": "ICC(1,1)", "ICC2": "ICC(A,1)", "ICC3": "ICC(C,1)",
         "ICC1k": "ICC(1,k)", "ICC2k": "ICC(A,k)", "ICC3k": "ICC(C,k)"}
DESCRIPTIONS = {
    "ICC1": "one-way random effects, single rater",
    "ICC2": "two-way random effects, absolute agreement, single rater",
    "ICC3": "two-way mixed effects, consistency, single rater",
    "ICC1k": "one-way random effects, mean of k raters",
    "ICC2k": "two-way random effects, absolute agreement, mean of k raters",
    "ICC3k": "two-way mixed effects, consistency, mean of k raters",
}


# ------------------------------------------------------------------ sums and mean squares
def anova_columns(raters: list[str]) -> tuple[str, ...]:
    return ("complete", "sum", "sum_squared", "sum_of_squares", *(f"x[{r}]" for r in raters))


def anova_rows(x: np.ndarray, shift: float = 0.0) -> np.ndarray:
    """Per-item rows ``(complete, Σ_j y, (Σ_j y)², Σ_j y², y_1..y_k)``, ``y = x − shift``.

    An item with a missing rating (NaN) has a row of zeros: listwise deletion is
    built into the rows. The shift (any constant; the forms do not depend on it)
    keeps the sums of squares away from cancellation.
    """
    x = np.asarray(x, dtype=np.float64)
    complete = ~np.isnan(x).any(axis=1)
    y = np.where(complete[:, None], x - shift, 0.0)
    s = y.sum(axis=1)
    return np.column_stack([complete.astype(np.float64), s, s * s, (y * y).sum(axis=1), y])


def mean_squares(sums: Any, k: int) -> dict[str, Any]:
    """n and the mean squares (items, raters, error, within items) from column sums."""
    s = np.asarray(sums, dtype=np.float64)
    n, t, rows2, sq = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
    cols = s[..., 4:4 + k]
    with np.errstate(divide="ignore", invalid="ignore"):
        correction = t * t / (n * k)
        ss_total = sq - correction
        ss_items = rows2 / k - correction
        ss_raters = (cols * cols).sum(axis=-1) / n - correction
        # Rounding can leave an exact zero slightly negative.
        ss_items, ss_raters = np.maximum(ss_items, 0.0), np.maximum(ss_raters, 0.0)
        ss_error = np.maximum(ss_total - ss_items - ss_raters, 0.0)
        ss_within = np.maximum(ss_total - ss_items, 0.0)
        return {"n": n, "ms_items": ss_items / (n - 1), "ms_raters": ss_raters / (k - 1),
                "ms_error": ss_error / ((n - 1) * (k - 1)), "ms_within": ss_within / (n * (k - 1))}


def _forms(ms: dict[str, Any], k: int) -> dict[str, Any]:
    """The six forms (Shrout & Fleiss 1979, Table 2; McGraw & Wong 1996, Table 4)."""
    n, msr, msc = ms["n"], ms["ms_items"], ms["ms_raters"]
    mse, msw = ms["ms_error"], ms["ms_within"]
    # A denominator within rounding of zero (relative to the mean squares) is zero: the
    # form is undefined, not ±1e16 (ICC2k's msr + (msc − mse)/n cancels exactly on some
    # data, and to about 1e-16 once the scale is changed).
    # (msc and mse are NaN on a crowd design's slots: the one-way forms read msr and msw)
    scale = sum(np.nan_to_num(np.abs(v)) for v in (msr, msc, mse, msw))

    def ratio(num: Any, den: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.abs(den) > 1e-12 * scale, num / den, np.nan)

    return {
        "ICC1": ratio(msr - msw, msr + (k - 1) * msw),
        "ICC2": ratio(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n),
        "ICC3": ratio(msr - mse, msr + (k - 1) * mse),
        "ICC1k": ratio(msr - msw, msr),
        "ICC2k": ratio(msr - mse, msr + (msc - mse) / n),
        "ICC3k": ratio(msr - mse, msr),
    }


def icc_from_sums(sums: Any, k: int, form: str) -> Any:
    """One form's value from column sums (leading axes kept; NaN where undefined)."""
    ms = mean_squares(sums, k)
    v = np.asarray(_forms(ms, k)[form], dtype=np.float64)
    ok = (ms["n"] >= 2) & np.isfinite(v)
    return np.where(ok, v, np.nan)


def _tables(ms: dict[str, float], k: int, level: float) -> pd.DataFrame:
    """The six forms with their F tests and exact F-based intervals (McGraw & Wong 1996)."""
    from scipy import stats

    n = ms["n"]
    msr, msc, mse, msw = ms["ms_items"], ms["ms_raters"], ms["ms_error"], ms["ms_within"]
    val = _forms(ms, k)
    q = 1.0 - (1.0 - level) / 2.0
    df1, df_w, df_e = n - 1.0, n * (k - 1.0), (n - 1.0) * (k - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_w, f_e = msr / msw, msr / mse
        p_w, p_e = stats.f.sf(f_w, df1, df_w), stats.f.sf(f_e, df1, df_e)
        # Shrout & Fleiss (1979) eqs. 6-7 and 14; McGraw & Wong (1996) Table 7, cases 1 and 3.
        f1l, f1u = f_w / stats.f.ppf(q, df1, df_w), f_w * stats.f.ppf(q, df_w, df1)
        f3l, f3u = f_e / stats.f.ppf(q, df1, df_e), f_e * stats.f.ppf(q, df_e, df1)
        # ICC(A,1): Satterthwaite's degrees of freedom (McGraw & Wong 1996, Table 7, case 2A).
        icc2 = val["ICC2"]
        fj = msc / mse
        c = n * (1.0 + (k - 1.0) * icc2) - k * icc2
        v = df_e * (k * icc2 * fj + c) ** 2 / (df1 * k * k * icc2 * icc2 * fj * fj + c * c)
        f2u, f2l = stats.f.ppf(q, df1, v), stats.f.ppf(q, v, df1)
        l2 = n * (msr - f2u * mse) / (f2u * (k * msc + (k * n - k - n) * mse) + n * msr)
        u2 = n * (f2l * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f2l * msr)
        ci = {
            "ICC1": ((f1l - 1) / (f1l + k - 1), (f1u - 1) / (f1u + k - 1)),
            "ICC2": (l2, u2),
            "ICC3": ((f3l - 1) / (f3l + k - 1), (f3u - 1) / (f3u + k - 1)),
            "ICC1k": (1 - 1 / f1l, 1 - 1 / f1u),
            "ICC2k": (l2 * k / (1 + l2 * (k - 1)), u2 * k / (1 + u2 * (k - 1))),
            "ICC3k": (1 - 1 / f3l, 1 - 1 / f3u),
        }
    one_way = {"ICC1", "ICC1k"}
    rows = []
    for f in FORMS:
        ok = math.isfinite(val[f])
        rows.append({
            "form": f, "type": TYPES[f], "description": DESCRIPTIONS[f],
            "value": float(val[f]) if ok else math.nan,
            "f_statistic": float(f_w if f in one_way else f_e),
            "df1": float(df1), "df2": float(df_w if f in one_way else df_e),
            "p_value": float(p_w if f in one_way else p_e),
            "ci_low": float(ci[f][0]) if ok else math.nan,
            "ci_high": float(ci[f][1]) if ok else math.nan})
    return pd.DataFrame(rows).set_index("form")


# ------------------------------------------------------------------------------- result
@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class ICCResult(Result):
    """An intraclass correlation, with the five other forms beside it.

    Attributes
    ----------
    value : float
        The ICC of the chosen ``form`` (the headline value); NaN when undefined.
    form : str
        ``"ICC1"``, ``"ICC2"``, ``"ICC3"``, ``"ICC1k"``, ``"ICC2k"`` or ``"ICC3k"``.
    f_statistic, df1, df2, p_value : float
        The F test of H0: ICC = 0 for that form (MSR/MSW for the one-way forms,
        MSR/MSE for the two-way forms).
    ci_low, ci_high : float
        Its exact F-based interval at ``confidence_level``.
    confidence_level : float
    n_items, n_raters : int
        Complete items used and annotators (on a crowd design, where each item has
        annotators of its own: the items and their number of ratings k).
    n_dropped : int
        Items left out for a missing rating (listwise deletion).
    ms_items, ms_raters, ms_error, ms_within : float
        The mean squares of the ANOVA: between items (MSR), between annotators
        (MSC), residual (MSE) and within items (MSW, the one-way error).
    table : pandas.DataFrame
        All six forms (index ``form``): ``type`` (McGraw & Wong's name),
        ``description``, ``value``, ``f_statistic``, ``df1``, ``df2``,
        ``p_value``, ``ci_low``, ``ci_high``. ``to_frame()`` returns it.
    notes : tuple of str
    """

    _headline: ClassVar[str] = "value"

    value: float
    form: str
    f_statistic: float
    df1: float
    df2: float
    p_value: float
    ci_low: float
    ci_high: float
    confidence_level: float
    n_items: int
    n_raters: int
    n_dropped: int
    ms_items: float
    ms_raters: float
    ms_error: float
    ms_within: float
    table: pd.DataFrame = dataclasses.field(repr=False)
    notes: tuple[str, ...] = ()

    _records = _table = "table"
    _summary = (
        "{form} = {value:.3f}, {confidence_level:g%} CI [{ci_low:.3f}, {ci_high:.3f}]; "
        "F({df1:g}, {df2:.4g}) = {f_statistic:.3f}, p = {p_value:.3g} ({n_items} items, "
        "{n_raters} annotators)",
        ("table", "  {name} {type}: {value:.3f} [{ci_low:.3f}, {ci_high:.3f}]  {description}"),
        ("notes", "  note: {}"))

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The exact F-based interval of :attr:`form` at another level (default: as computed)."""
        check_params(ICCResult.confidence_interval, locals())
        if confidence_level is None:
            return ConfidenceInterval(self.ci_low, self.ci_high)
        ms = {key: np.float64(v) for key, v in (
            ("n", self.n_items), ("ms_items", self.ms_items), ("ms_raters", self.ms_raters),
            ("ms_error", self.ms_error), ("ms_within", self.ms_within))}
        row = _tables(ms, self.n_raters, float(confidence_level)).loc[self.form]
        return ConfidenceInterval(float(row["ci_low"]), float(row["ci_high"]))

    def __repr__(self) -> str:
        return (f"ICCResult({self.form}={self.value:.4g}, ci=[{self.ci_low:.4g}, "
                f"{self.ci_high:.4g}], n_items={self.n_items}, n_raters={self.n_raters})")


@validate_params(form=Option(FORMS), confidence_level=ConfidenceLevel())
def icc(ratings: Any, *, form: str = "ICC2", confidence_level: float = 0.95) -> ICCResult:
    r"""The intraclass correlation of ratings on a numeric scale, all six forms.

    Parameters
    ----------
    ratings : Ratings, array_like or pandas.DataFrame, shape (n_items, n_raters)
        Numbers (a numeric array or DataFrame is read as it is; other input
        through :func:`agreement.as_ratings`, whose labels must be numbers).
        NaN / None is a missing rating.
    form : {"ICC2", "ICC1", "ICC3", "ICC1k", "ICC2k", "ICC3k"}, default "ICC2"
        The headline form (Shrout & Fleiss's names): ``ICC1`` one-way random
        effects; ``ICC2`` two-way random effects, absolute agreement (McGraw &
        Wong's ICC(A,1)); ``ICC3`` two-way mixed effects, consistency (ICC(C,1));
        the ``k`` forms are the reliability of the mean of the k annotators.
        ``ICC2`` is the default: annotators (or a judge) drawn from a population
        and judged on their absolute values. Every form is in :attr:`ICCResult.table`.
    confidence_level : float, default 0.95

    Returns
    -------
    ICCResult
        The chosen form's value, F test and interval; ``to_frame()`` gives the
        six forms.

    Raises
    ------
    ValueError
        For non-numeric labels, fewer than two annotators with ratings, or
        fewer than two items rated by every annotator.

    Warns
    -----
    DegenerateDataWarning
        When the forms are undefined (every rating the same: all mean squares
        are 0); the values are then NaN.

    Notes
    -----
    With :math:`n` items and :math:`k` annotators, the mean squares between
    items (MSR), between annotators (MSC), residual (MSE) and within items
    (MSW) give (Shrout & Fleiss 1979, Table 2)

    .. math:: \mathrm{ICC1} = \frac{MSR - MSW}{MSR + (k-1)MSW}, \quad
              \mathrm{ICC2} = \frac{MSR - MSE}{MSR + (k-1)MSE + k(MSC - MSE)/n}, \quad
              \mathrm{ICC3} = \frac{MSR - MSE}{MSR + (k-1)MSE},

    and the means of k ratings ``ICC1k = (MSR − MSW)/MSR``,
    ``ICC2k = (MSR − MSE)/(MSR + (MSC − MSE)/n)``, ``ICC3k = (MSR − MSE)/MSR``.
    The F tests are MSR/MSW on (n − 1, n(k − 1)) degrees of freedom for the
    one-way forms and MSR/MSE on (n − 1, (n − 1)(k − 1)) for the others; the
    intervals are the exact F-based ones of McGraw & Wong (1996, Table 7),
    ICC(A,1)'s with Satterthwaite's degrees of freedom -- the formulas of R's
    ``psych::ICC`` and pingouin's ``intraclass_corr``.

    **Missing ratings**: listwise deletion. Annotators with no rating are left
    out, then every item missing a rating of a remaining annotator; the notes
    count them (the ANOVA needs a balanced table, as in ``psych::ICC`` without
    ``lmer`` and pingouin's ``nan_policy="omit"``).

    **A crowd design** (each item rated by k annotators of its own, so that at most
    one item is rated by all of them, as on crowd platforms): listwise deletion
    would leave nothing, and the two-way forms, which compare annotators across
    items, are not defined. The one-way forms are: Shrout & Fleiss's case 1 is
    this design (each target rated by a different set of k judges), and ICC1 and
    ICC1k read each item's k ratings without who gave them. With the same number
    k of ratings on every item they are computed on those ratings (the two-way
    rows of the table are NaN); asking for a two-way form is an error that names
    ``form="ICC1"``. With unequal numbers of ratings per item use
    :func:`krippendorff_alpha` at ``level="interval"``.

    References
    ----------
    Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: Uses in
    assessing rater reliability. Psychological Bulletin, 86(2), 420–428.
    https://doi.org/10.1037/0033-2909.86.2.420

    McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some
    intraclass correlation coefficients. Psychological Methods, 1(1), 30–46.
    https://doi.org/10.1037/1082-989X.1.1.30

    Examples
    --------
    Shrout & Fleiss's (1979) Table 4: six targets, four judges.

    >>> from agreement import icc
    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...      [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> res = icc(x)
    >>> round(res.value, 2), [round(v, 2) for v in res.confidence_interval()]
    (0.29, [0.02, 0.76])
    >>> res.to_frame()["value"].round(2).to_dict()
    {'ICC1': 0.17, 'ICC2': 0.29, 'ICC3': 0.71, 'ICC1k': 0.44, 'ICC2k': 0.62, 'ICC3k': 0.91}
    """
    check_params(icc, locals())
    level = check_confidence_level(confidence_level)
    x, raters = scale_numbers(ratings, "`icc`")
    try:
        sm, one_way = listwise(x, raters, "`icc`"), False
    except ValueError as exc:
        sm, one_way = slot_matrix(x), True
        if sm is None:
            raise
        if form not in ("ICC1", "ICC1k"):
            raise ValueError(f"`icc` form={form!r} needs annotators crossed with items; here "
                             f"each item has {sm.values.shape[1]} ratings from annotators of "
                             "its own: use form='ICC1' (or 'ICC1k'), the one-way forms, which "
                             "do not read who rated.") from exc
    x = sm.values[~np.isnan(sm.values).any(axis=1)] if one_way else sm.values
    n, k = x.shape
    sums = anova_rows(x, float(np.mean(x))).sum(axis=0)
    ms = {key: np.float64(v) for key, v in mean_squares(sums, k).items()}
    if one_way:  # slots are not annotators: no between-annotator or residual mean square
        ms["ms_raters"] = ms["ms_error"] = np.float64(np.nan)
    table = _tables(ms, k, level)
    if one_way:
        table.loc[["ICC2", "ICC3", "ICC2k", "ICC3k"], ["f_statistic", "df2", "p_value"]] = np.nan
    notes = list(sm.notes)
    if not np.isfinite(table["value"]).any():
        notes.append("undefined: every rating is the same (all mean squares are 0)")
        warnings.warn("`icc` is undefined: every rating is the same (all mean squares are 0); "
                      "returning NaN.", DegenerateDataWarning, stacklevel=2)
    return _result(table, form, level, ms, sm, notes)


def _result(table: pd.DataFrame, form: str, level: float, ms: dict[str, Any], sm: Any,
            notes: list[str]) -> ICCResult:
    """The :class:`ICCResult` of ``form`` from the table of every form and the mean
    squares of the items × raters matrix ``sm``."""
    n, k = int(np.count_nonzero(~np.isnan(sm.values).any(axis=1))), sm.values.shape[1]
    row = table.loc[form]
    return ICCResult(
        value=float(row["value"]), form=form, f_statistic=float(row["f_statistic"]),
        df1=float(row["df1"]), df2=float(row["df2"]), p_value=float(row["p_value"]),
        ci_low=float(row["ci_low"]), ci_high=float(row["ci_high"]), confidence_level=level,
        n_items=int(n), n_raters=int(k), n_dropped=sm.n_dropped_items,
        ms_items=float(ms["ms_items"]), ms_raters=float(ms["ms_raters"]),
        ms_error=float(ms["ms_error"]), ms_within=float(ms["ms_within"]),
        table=table, notes=tuple(notes))
