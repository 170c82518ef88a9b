"""The audit of ratings held by Dask workers (``goldnoise.dask.read_ratings``).

Every statistic runs as partial -> combine -> finalize over the workers'
partitions and equals the in-memory audit's. Sections: the data (with what the
shuffle moved), every coefficient, the noise bound γ, the chance-difference
margin and the latent-class fit. The κ reading and the agreed-error bracket need
the labels in memory and say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from _goldnoise_lib.report import section_from_result
from goldnoise._audit._sections import describe_bound
from goldnoise._audit._text import capture_notes
from goldnoise.report import Report, Section

if TYPE_CHECKING:
    from goldnoise._audit._options import AuditOptions

__all__ = ["dask_audit"]


def _data_section(lazy: Any) -> Section:
    s = section_from_result(None, "data", "Data")
    rep = lazy.shuffle_report
    s.values.update({"n_items": lazy.n_items, "n_raters": lazy.n_raters,
                     "n_categories": lazy.n_categories, "n_ratings": lazy.n_ratings,
                     "categories": [str(c) for c in lazy.schema.categories],
                     "partitions": lazy.npartitions, "shuffle": rep.to_dict()})
    s.lines.append(f"{lazy.n_items} items, {lazy.n_raters} annotators, {lazy.n_categories} "
                   f"categories, {lazy.n_ratings} ratings, in {lazy.npartitions} Dask "
                   "partitions")
    s.lines.append(str(rep))
    shown = ", ".join(str(c) for c in list(lazy.schema.categories)[:12])
    more = f", ... ({lazy.n_categories} in all)" if lazy.n_categories > 12 else ""
    s.lines.append(f"categories: {shown}{more}")
    return s


def _bound_section(lazy: Any, alpha: float) -> tuple[Section, Any]:
    from noise_models import noise_bound

    s = section_from_result(None, "noise_bound", f"Noise bound of the gold standard (easy/hard "
                            f"model, confidence alpha = {alpha:g})")
    try:
        with capture_notes(s.notes):
            bound = noise_bound(lazy, alpha=alpha)
    except ValueError as exc:
        return s.undefined(f"the bound is not defined here: {exc}"), None
    describe_bound(s, bound, alpha)
    return s, bound


def dask_audit(lazy: Any, o: AuditOptions) -> dict[str, Any]:
    """The parts of an :class:`~goldnoise.AuditResult` computed over Dask partitions."""
    from goldnoise._audit._latent import fit_models, latent_sections
    from goldnoise._audit._sections import agreement_section, coefficient_frame, margin_section

    if (o.gold is not None or o.bootstrap is not None or o.calibrate
            or o.verified is not None):
        raise ValueError("the audit of Dask-held ratings takes neither `gold`, `bootstrap`, "
                         "`calibrate` nor `verified` (audit the ratings in memory for those)")
    report = Report("audit", f"goldnoise audit: {o.title_source} (Dask)",
                    parameters={"source": o.title_source, "engine": "dask",
                                "alpha": o.alpha, "confidence_level": o.confidence_level,
                                "threshold": o.threshold, "level": o.level},
                    primary="agreement/coefficients")
    data = report.add(_data_section(lazy))
    data.notes += o.notes
    section, coefficients_rows = agreement_section(
        lazy, level=o.level, confidence_level=o.confidence_level,
        labels_ordered=o.labels_ordered, coefficients=o.coefficients)
    report.add(section)
    section, bound = _bound_section(lazy, o.alpha)
    report.add(section)
    report.add(section_from_result(
        None, "kappa_audit", "The kappa claim, read through the model",
        undefined="not computed with --engine dask (it reads the labels in memory)"))
    m_section, margin = margin_section(bound, alpha=o.alpha)
    report.add(m_section)
    fit = None
    if o.latent:
        try:
            fitted = fit_models(lazy, o.model, hard=o.hard, n_starts=o.n_starts, seed=o.rng)
        except ValueError as exc:
            report.add(section_from_result(None, "latent_class", "Latent-class fit",
                                           undefined=str(exc)))
        else:
            fit = fitted.fit
            for s in latent_sections(
                    fitted, gold=None, alpha=o.alpha, bracket=None,
                    bracket_reason="the agreed-error bracket is not computed with --engine "
                                   "dask", seed=o.rng):
                report.add(s)
    return dict(gamma=float("nan") if bound is None else float(bound.gamma), report=report,
                agreement=coefficient_frame(coefficients_rows), bound=bound, kappa_audit=None,
                margin=margin, fit=fit, bracket=None, bootstrap=None)
