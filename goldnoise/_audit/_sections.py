"""The sections of the audit: data, agreement, the noise bound, the κ claim, the margin.

Each builder takes ratings (and the options its numbers depend on) and returns a
:class:`~goldnoise.report.Section`; a section the data do not allow is kept and
says why in words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._audit._figures import coefficient_forest, hard_count_posterior
from goldnoise._audit._text import capped_margin, capture_notes, p_text, pct, plural
from goldnoise.report import Column, Section

__all__ = ["agreement_section", "bound_section", "coefficient_frame", "data_section",
           "describe_bound", "kappa_section", "margin_section"]

# ------------------------------------------------------------------ sections
def data_section(r: Any, *, labels_ordered: bool = False, notes: Sequence[str] = ()) -> Section:
    s = section_from_result(None, "data", "Data")
    d = r.describe()
    lo, hi = d["ratings_per_item_min"], d["ratings_per_item_max"]
    s.values.update({"n_items": r.n_items, "n_raters": r.n_raters,
                     "n_categories": r.n_categories, "n_ratings": r.n_ratings,
                     "categories": [str(c) for c in r.categories],
                     "ratings_per_item_min": lo, "ratings_per_item_max": hi,
                     "items_with_one_rating": d["items_with_one_rating"],
                     "count_table": not r.has_raters})
    s.lines.append(f"{plural(r.n_items, 'item')}, {plural(r.n_raters, 'annotator')}, "
                   f"{plural(r.n_categories, 'category', 'categories')}, "
                   f"{plural(r.n_ratings, 'rating')}")
    if not r.has_raters:
        s.lines.append("a count table: the annotators are unnamed slots, so coefficients that "
                       "need annotator identity are left out")
    if hi and lo == hi:
        s.lines.append(f"every item has {lo} ratings")
    elif hi:
        s.lines.append(f"ratings per item vary from {lo} to {hi} "
                       f"(mean {d['ratings_per_item_mean']:.1f})")
    shown = ", ".join(str(c) for c in list(r.categories)[:12])
    more = f", ... ({r.n_categories} in all)" if r.n_categories > 12 else ""
    s.lines.append(f"categories: {shown}{more}")
    numeric = r.categories.dtype.kind in "iuf"
    if numeric and r.n_categories > 10 and not labels_ordered:
        s.notes.append(f"{r.n_categories} numeric categories: if they are scores on a scale, "
                       "add --level interval (or ordinal) for Krippendorff's alpha on that "
                       "scale; the other coefficients treat every value as its own category")
    s.notes += list(notes)
    return s


def _ci_cell(row: dict) -> str:
    lo, hi = row.get("ci_low"), row.get("ci_high")
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "-"
    return f"[{lo:.4f}, {hi:.4f}]"


def _alpha_rows(ratings: Any, levels: list[str], confidence_level: float) -> dict[str, dict]:
    from agreement import krippendorff_alpha

    rows = {}
    for lvl in levels:
        name = f"Krippendorff's alpha ({lvl})"
        try:
            res = krippendorff_alpha(ratings, level=lvl)
        except ValueError as exc:
            rows[name] = {"value": math.nan, "notes": f"not computed: {exc}"}
            continue
        ci = res.confidence_interval(confidence_level)
        rows[name] = {"value": res.value, "standard_error": res.standard_error,
                      "ci_low": ci.low, "ci_high": ci.high, "ci_method": res.ci_method,
                      "observed": res.observed, "expected": res.expected,
                      "notes": "; ".join(res.notes)}
    return rows


#: The rows of a rating scale the audit adds (agreement_table computes them when named).
SCALE_ROWS = ("icc1", "icc2", "icc3", "lin_ccc", "kendall_w")


def _with_scale(r: Any, level: str, labels_ordered: bool) -> list[str] | None:
    """Every coefficient, plus a rating scale's when the level makes numbers a scale.

    Numbers are a scale at the interval and ratio levels (or ``auto`` with a declared
    order): the ICC forms, Lin's CCC and Kendall's W; at the ordinal level Kendall's W
    only. Class codes 1..4 at the nominal level stay categories.
    """
    from agreement import STATISTICS

    numeric = bool(getattr(r, "has_raters", False)) and r.categories.dtype.kind in "iuf"
    if not numeric or r.n_categories < 3:
        return None
    if level in ("interval", "ratio") or (level == "auto" and labels_ordered):
        return [*STATISTICS, *SCALE_ROWS]
    return [*STATISTICS, "kendall_w"] if level == "ordinal" else None


def agreement_section(r: Any, *, level: str, confidence_level: float,
                      labels_ordered: bool = False, coefficients: Any = None
                      ) -> tuple[Section, list[dict[str, Any]]]:
    """The agreement section and its rows (one dict per defined coefficient)."""
    from agreement import agreement_table

    s = section_from_result(None, "agreement", "Agreement")
    notes: list[str] = []
    if coefficients is None:
        coefficients = _with_scale(r, level, labels_ordered)
    with capture_notes(notes):
        table = agreement_table(r, confidence_level=confidence_level, coefficients=coefficients)
    with_alpha = any(name.startswith("Krippendorff's alpha") for name in table.index)
    # agreement_table adds ordinal and interval alpha for any numeric labels; here the
    # level decides: numeric sense ids or class codes are categories unless said otherwise.
    rows = {name: dict(row) for name, row in table.iterrows()
            if not name.startswith("Krippendorff's alpha (") or name.endswith("(nominal)")}
    extra = {"auto": ["ordinal", "interval"] if labels_ordered else [],
             "nominal": [], "ordinal": ["ordinal"], "interval": ["interval"],
             "ratio": ["ratio"]}[level] if with_alpha else []
    if extra:
        if not r.ordered:
            notes.append(f"--level {level}: the labels ({', '.join(map(str, r.categories[:5]))}"
                         f"{', ...' if r.n_categories > 5 else ''}) have no order; only the "
                         "nominal alpha is shown")
        else:
            with capture_notes(notes):
                rows.update(_alpha_rows(r, extra, confidence_level))
    done, skipped = [], []
    for name, row in rows.items():
        value = row.get("value")
        entry = {"coefficient": name, **{k: row.get(k) for k in (
            "value", "standard_error", "ci_low", "ci_high", "ci_method", "observed",
            "expected")}}
        entry["expected"] = None if name == "Percent agreement" else entry["expected"]
        if value is None or (isinstance(value, float) and math.isnan(value)):
            reason = str(row.get("notes") or "undefined for these data").removeprefix(
                "not computed: ").replace("undefined: ", "")
            skipped.append(f"{name} not computed: {reason}")
            entry["reason"] = reason
        else:
            done.append(entry)
            if row.get("notes"):
                s.notes.append(f"{name}: {row['notes']}")
        s.values.setdefault("coefficients", {})[name] = {
            k: entry.get(k) for k in ("value", "standard_error", "ci_low", "ci_high",
                                      "observed", "expected")} | (
            {"reason": entry["reason"]} if "reason" in entry else {})
    s.values["confidence_level"] = confidence_level
    pct_label = f"{100 * confidence_level:g}% CI"
    s.tables.append(report_table("coefficients", [
        Column("coefficient", "coefficient", align="<"),
        Column("value", "value", ".4f"), Column("standard_error", "SE", ".4f"),
        Column("ci", pct_label, cell=_ci_cell, align="<", data=False),
        Column("observed", "observed", ".4f"), Column("expected", "expected", ".4f"),
    ], done))
    s.values.pop("coefficients", None)
    if done:
        s.figures.append(coefficient_forest(done, confidence_level))
    if not done:
        s.undefined("no coefficient is defined on these data: " + "; ".join(skipped))
    else:
        s.notes += skipped
    s.notes += [n for n in notes if "undefined on these data (NaN" not in n]
    return s, done


def bound_section(r: Any, *, alpha: float) -> tuple[Section, Any]:
    from noise_models import noise_bound

    s = section_from_result(None, "noise_bound", f"Noise bound of the gold standard (easy/hard "
                            f"model, confidence alpha = {alpha:g})")
    d = r.describe()
    n, agreed = d["items_with_two_or_more"], d["agreed_items"]
    s.values.update({"n": n, "agreed": agreed, "d": n - agreed})
    if n == 0:
        return s.undefined("no item has two or more ratings, so no item can be agreed or "
                           "disagreed on"), None
    if agreed == n and r.n_categories < 2:
        return s.undefined(f"all {n} items carry the one category {r.categories[0]!r}; with a "
                           "single category agreement says nothing about noise"), None
    if agreed == 0:
        return s.undefined(f"none of the {n} items has unanimous labels, so there is no agreed "
                           "subset (candidate gold standard) to bound; the latent-class "
                           "section estimates the labels instead"), None
    try:
        with capture_notes(s.notes):
            bound = noise_bound(r, alpha=alpha)
    except ValueError as exc:
        return s.undefined(f"the bound is not defined here: {exc}"), None
    describe_bound(s, bound, alpha)
    s.figures.append(posterior_figure(bound, alpha))
    return s, bound


def describe_bound(s: Section, bound: Any, alpha: float) -> None:
    """The bound's values, its two sentences and its notes, into section ``s``."""
    s.values.update({"n": bound.n, "d": bound.d, "agreed": bound.agreed, "p": bound.p,
                     "t0": bound.t0, "hidden_hard": bound.hidden_hard, "gamma": bound.gamma,
                     "alpha": alpha, "method": bound.method})
    s.lines += [
        f"{bound.agreed} items agreed unanimously, {bound.d} disagreed; chance that a hard item "
        f"comes out unanimous p = {p_text(bound.p)}",
        f"with confidence {alpha:g}, at most {bound.hidden_hard} of the {bound.agreed} agreed "
        f"items are hidden coin-flips: gamma = {bound.gamma:.4f} ({pct(bound.gamma)} of the "
        "agreed subset)",
    ]
    s.notes += list(bound.notes)
    if bound.chance is not None:
        s.notes += [n for n in bound.chance.notes if n not in s.notes]


def posterior_figure(bound: Any, alpha: float) -> Any:
    """The posterior of the number of hard items from d to a little past t0."""
    import numpy as np

    d, t0, n = bound.d, bound.t0, bound.n
    post = bound.posterior
    # Where the posterior has its mass (99.8%), with d and t0 in view when they are near.
    lo = max(d, post.quantile(0.001) - 2)
    hi = min(n, max(t0 + 2, post.quantile(0.999) + 2))
    if lo - d <= max(10, (hi - lo) // 5):
        lo = d
    # Every count while there are few; else 400 evenly spaced ones (drawn as a curve).
    # Python integers throughout: counts beyond int64 (n = 1e20) stay exact.
    step = (hi - lo) / 399
    h = (list(range(lo, hi + 1)) if hi - lo <= 400 else
         sorted({lo + round(k * step) for k in range(400)}))
    pmf = np.asarray(bound.posterior.pmf(np.array(h, dtype=object)), dtype=float)
    return hard_count_posterior(h, pmf.tolist(), d=d, t0=t0, alpha=alpha)


def kappa_section(r: Any, bound: Any, *, alpha: float, threshold: float | None,
                  confidence_level: float) -> tuple[Section, Any]:
    from noise_models import audit_kappa

    title = ("The kappa claim, read through the model (kappa estimates the share of easy "
             "items)")
    if bound is None:
        return section_from_result(None, "kappa_audit", title, undefined=(
            "it needs the noise bound of the agreed items, which is not defined here (see "
            "above)")), None
    notes: list[str] = []
    try:
        with capture_notes(notes):
            ka = audit_kappa(r, alpha=alpha, threshold=threshold,
                             confidence_level=confidence_level)
    except ValueError as exc:
        return section_from_result(None, "kappa_audit", title, notes=notes,
                                   undefined=str(exc)), None
    s = section_from_result(ka, "kappa_audit", title, exclude=("notes",), notes=notes)
    interval = (f", {100 * ka.confidence_level:g}% CI [{ka.kappa_interval.low:.4f}, "
                f"{ka.kappa_interval.high:.4f}]" if ka.kappa_interval is not None else "")
    s.lines += [
        f"Fleiss' kappa {ka.kappa:.4f}{interval}",
        f"-> about {ka.easy_items:.1f} easy items of {ka.n}; {ka.expected_agreed:.1f} agreed "
        f"expected, {ka.agreed} observed; point noise of the agreed subset "
        f"{pct(ka.point_noise)}, gamma {pct(ka.gamma)}",
    ]
    if ka.threshold is not None and ka.threshold_in_interval is not None:
        where = "inside" if ka.threshold_in_interval else "outside"
        s.lines.append(f"the claimed threshold {ka.threshold:g} is {where} kappa's interval")
    s.notes += list(ka.notes)
    return s, ka


def margin_section(bound: Any, *, alpha: float) -> tuple[Section, Any]:

    s = section_from_result(None, "margin", "Comparing two systems on the agreed subset "
                            "(chance-difference margin)")
    if bound is None:
        return s.undefined("there is no agreed subset to compare systems on"), None
    margin, margin_note = capped_margin(bound.agreed, bound.gamma, alpha)
    s.values.update({"margin": margin.margin, "share": margin.share, "sigma": margin.sigma,
                     "hard_items": margin.R, "agreed": bound.agreed, "alpha": alpha,
                     "method": margin.method})
    s.lines.append(f"systems equally good on easy items can differ by chance by up to "
                   f"{margin.margin:.1f} items ({pct(margin.share)} of {bound.agreed}) at "
                   f"alpha = {alpha:g} ({margin.method} bound)")
    if margin_note:
        s.notes.append(margin_note)
    return s, margin


def coefficient_frame(rows: list[dict[str, Any]]) -> Any:
    """The rows of :func:`agreement_section` as a frame indexed by the coefficient's name."""
    import pandas as pd

    cols = ["value", "standard_error", "ci_low", "ci_high", "ci_method", "observed", "expected"]
    frame = pd.DataFrame([{k: row.get(k) for k in ["coefficient", *cols]} for row in rows],
                         columns=["coefficient", *cols])
    return frame.set_index("coefficient")
