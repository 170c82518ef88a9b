"""Every agreement coefficient of one data set, side by side."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    check_confidence_level,
    check_params,
    validate_params,
)
from agreement import _api
from agreement._chunked import is_chunked
from agreement._item_stats import coefficient_info
from agreement._partial import finalize_sums, table_over_chunks
from agreement._ratings import as_ratings
from agreement._result import AgreementResult
from agreement._weights import weight_matrix

__all__ = ["agreement_table"]

COLUMNS = ["value", "standard_error", "ci_low", "ci_high", "ci_method", "observed",
           "expected", "n_items", "n_pairable", "n_raters", "notes"]

# (row label, function, needs annotator identity, extra requirement)
_ROWS = (
    ("Percent agreement", _api.percent_agreement, False),
    ("Cohen's kappa", _api.cohen_kappa, True),
    ("Scott's pi", _api.scott_pi, False),
    ("Fleiss' kappa", _api.fleiss_kappa, False),
    ("Conger's kappa", _api.conger_kappa, True),
    ("Light's kappa", _api.light_kappa, True),
    ("Brennan-Prediger", _api.brennan_prediger, False),
    ("Gwet's AC1", _api.gwet_ac1, False),
)


def _row(res: AgreementResult, level: float, extra_notes: tuple[str, ...] = ()) -> dict:
    ci = res.confidence_interval(level)
    return {
        "value": res.value, "standard_error": res.standard_error, "ci_low": ci.low,
        "ci_high": ci.high, "ci_method": res.ci_method, "observed": res.observed,
        "expected": res.expected, "n_items": res.n_items, "n_pairable": res.n_pairable,
        "n_raters": res.n_raters, "notes": "; ".join((*res.notes, *extra_notes)),
    }


def _skipped(note: str) -> dict:
    out = dict.fromkeys(COLUMNS, math.nan)
    out.update(ci_method="", n_items=pd.NA, n_pairable=pd.NA, n_raters=pd.NA,
               notes=f"not computed: {note}")
    return out


def _one(run, fn, ratings, confidence, **kwargs) -> tuple[dict, str | None]:
    """Run one coefficient; refusals become notes, degenerate NaNs are collected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateDataWarning)
        try:
            res = run(fn, ratings, **kwargs)
        except ValueError as err:
            return _skipped(str(err)), None
    degenerate = [str(w.message) for w in caught
                  if issubclass(w.category, DegenerateDataWarning)]
    for w in caught:  # anything else goes on to the caller unchanged
        if not issubclass(w.category, DegenerateDataWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return _row(res, confidence), ("; ".join(degenerate) or None)


#: The order of the rating-scale rows (computed when named in `coefficients`).
SCALE_ORDER = ("icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k", "lin_ccc", "kendall_w")


def _wanted(coefficients: Any) -> set[str]:
    """The names asked for (the categorical coefficients by default), each checked."""
    if coefficients is None:
        return {fn.__name__ for _, fn, _ in _ROWS} | {"krippendorff_alpha"}
    if isinstance(coefficients, str) or callable(coefficients):
        coefficients = [coefficients]
    names = {"kendall_w" if (c == "kendall_w" or getattr(c, "__name__", None) == "kendall_w")
             else coefficient_info(c).name for c in coefficients}
    if not names:
        raise ValueError("`coefficients` names no coefficient; leave it out for all of them.")
    return names


def _scale_row(name: str, r: Any, confidence: float) -> tuple[str, dict, str | None]:
    """One rating-scale row (an ICC form, Lin's CCC or Kendall's W), or its refusal."""
    from agreement._concordance import kendall_w, lin_ccc
    from agreement._icc import icc

    label = ("Kendall's W" if name == "kendall_w" else coefficient_info(name).label)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateDataWarning)
        try:
            if name == "kendall_w":
                res = kendall_w(r)
            elif name == "lin_ccc":
                res = lin_ccc(r, confidence_level=confidence)
            else:
                res = icc(r, form=coefficient_info(name).chance, confidence_level=confidence)
        except ValueError as err:
            return label, _skipped(str(err)), None
    problem = "; ".join(str(w.message) for w in caught
                        if issubclass(w.category, DegenerateDataWarning)) or None
    notes = list(res.notes)
    if name == "kendall_w":
        se, low, high, method = math.nan, math.nan, math.nan, ""
        notes.insert(0, f"chi-square({res.df}) = {res.chi_square:.4g}, p = {res.p_value:.3g}")
    elif name == "lin_ccc":
        se, (low, high), method = res.standard_error, res.confidence_interval(), "fisher-z"
    else:
        se, (low, high), method = math.nan, res.confidence_interval(), "F"
        notes.insert(0, f"F({res.df1:g}, {res.df2:g}) = {res.f_statistic:.4g}, "
                        f"p = {res.p_value:.3g}")
    return label, {"value": res.value, "standard_error": se, "ci_low": low, "ci_high": high,
                   "ci_method": method, "observed": math.nan, "expected": math.nan,
                   "n_items": res.n_items, "n_pairable": res.n_items,
                   "n_raters": res.n_raters, "notes": "; ".join(notes)}, problem


@validate_params(confidence_level=ConfidenceLevel())
def agreement_table(ratings: Any, *, weights: Any = None,
                    confidence_level: float = 0.95,
                    coefficients: Sequence[Any] | None = None) -> pd.DataFrame:
    """Every coefficient of SPEC §1 on the same ratings, one row each.

    Parameters
    ----------
    ratings : Ratings or array_like, shape (n_items, n_raters)
        Raw items × annotators data are wrapped with
        :func:`~agreement.as_ratings`; count tables work too, the
        coefficients that need annotator identity (Cohen, Conger, Light)
        being left out with a note (in a count table, as in Fleiss' 1971
        design, annotators are interchangeable slots).
    weights : None, str or array_like, shape (m, m)
        Agreement weights for the Gwet-family coefficients (percent agreement
        to Gwet's AC1/AC2): a name of :func:`~agreement.named_weights` or a
        symmetric matrix. Krippendorff's α uses its own metrics instead:
        the nominal row always, the ordinal and interval rows when the
        categories are ordered.
    confidence_level : float, default 0.95
        Level of the intervals, each of its coefficient's default kind
        (``ci_method``: normal for Cohen's κ, Student's t otherwise).
    coefficients : sequence of str or functions, optional
        Compute only these (names as in :data:`~agreement.STATISTICS` and
        :data:`~agreement.SCALE_STATISTICS`, or ``"kendall_w"``, e.g.
        ``["fleiss_kappa", "krippendorff_alpha"]``, or the functions); the
        table then has only their rows. Default: every coefficient of
        categories. The rows of a rating scale -- the ICC forms
        (:func:`~agreement.icc`), Lin's concordance correlation and Kendall's
        W -- come only when named (numbers are a scale only where the caller
        says so: class codes 1..4 are categories): their intervals are
        F-based, Fisher-z and none, the ICC's F test and W's χ² test are in
        ``notes``; they need in-memory ratings with annotator identity.

    Returns
    -------
    pandas.DataFrame
        Indexed by coefficient, with columns ``value``, ``standard_error``,
        ``ci_low``, ``ci_high``, ``ci_method``, ``observed``, ``expected``,
        ``n_items``, ``n_pairable``, ``n_raters`` and ``notes``. A coefficient
        that does not apply to these data (e.g. Cohen's κ for three
        annotators) keeps its row, with NaN values and the reason in
        ``notes``.

    Raises
    ------
    ValueError
        For invalid ``weights`` or ``confidence_level``.

    Warns
    -----
    DegenerateDataWarning
        Once, if some coefficients are undefined on these data (NaN rows);
        the reasons are in their notes.

    Examples
    --------
    >>> from agreement import agreement_table
    >>> table = agreement_table([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2], [3, 3, 3]])
    >>> table["value"].round(3).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'Percent agreement': 0.733, "Cohen's kappa": nan, "Scott's pi": nan,
     "Fleiss' kappa": 0.583, "Conger's kappa": 0.6, "Light's kappa": 0.606,
     'Brennan-Prediger': 0.6, "Gwet's AC1": 0.608,
     "Krippendorff's alpha (nominal)": 0.611,
     "Krippendorff's alpha (ordinal)": 0.723,
     "Krippendorff's alpha (interval)": 0.778}
    >>> table.loc["Cohen's kappa", "notes"]
    'not computed: `cohen_kappa` needs exactly two annotators; these ratings have 3 annotators with ratings. Use `conger_kappa` or `light_kappa` for more.'
    >>> agreement_table([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2], [3, 3, 3]],
    ...                 coefficients=["icc2", "lin_ccc", "kendall_w"])["value"].round(3).to_dict()
    {'ICC(2,1)': 0.805, "Lin's concordance correlation": 0.767, "Kendall's W": 0.867}
    >>> agreement_table([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2], [3, 3, 3]],
    ...                 coefficients=["fleiss_kappa", "krippendorff_alpha"]).index.tolist()
    ["Fleiss' kappa", "Krippendorff's alpha (nominal)", "Krippendorff's alpha (ordinal)", "Krippendorff's alpha (interval)"]
    """
    check_params(agreement_table, locals())
    level = check_confidence_level(confidence_level)
    wanted = _wanted(coefficients)
    r, run = _runner(ratings, weights, wanted)
    weight_matrix(weights, r)  # validate once, before any coefficient runs
    rows: dict[str, dict] = {}
    undefined: list[str] = []
    _coefficient_rows(run, r, level, weights, wanted, rows, undefined)
    # Rating scales, when named: numbers are a scale only where the caller says so.
    _scale_rows(wanted, is_chunked(ratings), r, level, rows, undefined)
    if undefined:
        warnings.warn(
            f"undefined on these data (NaN, reason in `notes`): {', '.join(undefined)}.",
            DegenerateDataWarning, stacklevel=2)
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=COLUMNS)
    frame.index.name = "coefficient"
    for col in ("n_items", "n_pairable", "n_raters"):
        frame[col] = frame[col].astype("Int64")
    return frame


def _runner(ratings: Any, weights: Any, wanted: set[str]) -> tuple[Any, Callable]:
    """The ratings (a chunked source: its schema) and how a row's coefficient is run on
    them: called in memory, or finalized from sums of one pass over the chunks."""
    if is_chunked(ratings):
        # One pass over the count chunks for the count-table rows and one over the chunks
        # of ratings for the others; each row is finalized from its sums.
        r = ratings.schema
        sums = table_over_chunks(ratings, weights=weights, names=wanted)

        def run(fn, _ratings, **kwargs):
            key = fn.__name__ if "level" not in kwargs else f"{fn.__name__}:{kwargs['level']}"
            if key not in sums:
                raise ValueError("too many per-item columns for chunked data (many "
                                 "annotators or categories)")
            return finalize_sums(sums[key])
    else:
        r = as_ratings(ratings)

        def run(fn, ratings, **kwargs):
            return fn(ratings, **kwargs)
    return r, run


def _coefficient_rows(run: Callable, r: Any, level: float, weights: Any, wanted: set[str],
                      rows: dict[str, dict], undefined: list[str]) -> None:
    """The rows of the nominal coefficients and of Krippendorff's α at each level the
    ratings allow, into ``rows``; the labels of the undefined ones into ``undefined``."""
    for label, fn, needs_raters in _ROWS:
        if fn.__name__ not in wanted:
            continue
        if needs_raters and not r.has_raters:
            rows[label] = _skipped("needs annotator identity, and these ratings are a "
                                   "count table")
            continue
        row, problem = _one(run, fn, r, level, weights=weights)
        if fn is _api.gwet_ac1 and weights is not None and row["ci_method"]:
            label = "Gwet's AC2"
        rows[label] = row
        if problem:
            undefined.append(label)
    levels = (["nominal"] + (["ordinal", "interval"] if r.ordered else [])
              if "krippendorff_alpha" in wanted else [])
    for lvl in levels:
        label = f"Krippendorff's alpha ({lvl})"
        row, problem = _one(run, _api.krippendorff_alpha, r, level, level=lvl)
        rows[label] = row
        if problem:
            undefined.append(label)


def _scale_rows(wanted: set[str], chunked: bool, r: Any, level: float, rows: dict[str, dict],
                undefined: list[str]) -> None:
    """The rows of the rating-scale coefficients asked for, into ``rows`` (skipped for
    chunked data and count tables); the labels of the undefined ones into ``undefined``."""
    scale = [n for n in SCALE_ORDER if n in wanted]
    if scale and chunked:
        for name in scale:
            label = "Kendall's W" if name == "kendall_w" else coefficient_info(name).label
            rows[label] = _skipped("the rating-scale coefficients need the ratings in memory "
                                   "(listwise deletion reads whole items)")
    elif scale:
        for name in scale:
            if not r.has_raters:
                label = "Kendall's W" if name == "kendall_w" else coefficient_info(name).label
                rows[label] = _skipped("needs annotator identity, and these ratings are a "
                                       "count table")
                continue
            label, row, problem = _scale_row(name, r, level)
            rows[label] = row
            if problem:
                undefined.append(label)
