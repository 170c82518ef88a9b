"""``audit()``: every section of the audit as one result, the command line's report included."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.labels import labels_by_item
from _goldnoise_lib.report import section_from_result
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    ConfidenceLevel,
    Integer,
    Option,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from goldnoise._audit._latent import MODELS
from goldnoise._audit._options import AuditOptions
from goldnoise.report import Report, Section, render, render_html_fragment

__all__ = ["LEVELS", "AuditResult", "audit"]

#: Measurement levels of the labels for Krippendorff's α (``"auto"``: see :func:`audit`).
LEVELS = ("auto", "nominal", "ordinal", "interval", "ratio")


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class AuditResult(Result):
    """What a set of annotations is worth: the result of :func:`audit`.

    The sections, in reading order, are those of ``goldnoise audit``: ``data``,
    ``agreement`` (every coefficient with its interval), ``bootstrap`` (with
    ``bootstrap=B``), ``noise_bound`` (γ of the unanimously agreed items),
    ``kappa_audit`` (κ read through the easy/hard model), ``margin`` (the
    chance-difference margin), ``latent_class``, ``hard_items``, ``bracket`` and
    ``posterior_check`` (unless ``latent=False``), ``calibration`` (with
    ``verified=`` or ``gold=``) and ``gold`` (with ``gold=``). A section the data
    do not allow is kept, with ``status == "undefined"`` and the reason in words.

    Attributes
    ----------
    gamma : float
        The headline: the noise bound γ of the agreed subset (NaN when the data
        have no agreed subset to bound; the ``noise_bound`` section says why).
    report : goldnoise.report.Report
        The sections: prose, values, tables, notes and figures.
    agreement : pandas.DataFrame
        One row per coefficient computed: ``value``, ``standard_error``,
        ``ci_low``, ``ci_high``, ``ci_method``, ``observed``, ``expected``.
    bound : NoiseBound or None
        :func:`noise_models.noise_bound` of the ratings.
    kappa_audit : KappaAuditResult or None
        :func:`noise_models.audit_kappa` of the ratings.
    margin : ChanceMargin or None
        The chance-difference margin of the agreed subset (the exact binomial
        margin where Chebyshev's exceeds the hard items).
    fit : LatentClassFit or None
        The latent-class fit of ``model``.
    bracket : AgreedErrorBracket or None
        :func:`noise_models.agreed_error_bracket` of the fit.
    bootstrap : BootstrapResult-like pandas.DataFrame or None
        With ``bootstrap=B``: one row per coefficient, the analytic and the
        bootstrap (percentile and BCa) intervals side by side.

    ``to_dict()`` is the JSON report of ``goldnoise audit --format json``
    (schema :data:`goldnoise.report.SCHEMA_ID`, documented in
    :mod:`goldnoise.report`); ``summary()`` is its text; ``to_frame()`` is
    :attr:`agreement`; ``render(fmt)`` writes it as ``"text"``, ``"markdown"``,
    ``"json"`` or ``"csv"``.
    """

    gamma: float
    report: Report = dataclasses.field(repr=False)
    agreement: pd.DataFrame = dataclasses.field(repr=False)
    bound: Any = dataclasses.field(default=None, repr=False)
    kappa_audit: Any = dataclasses.field(default=None, repr=False)
    margin: Any = dataclasses.field(default=None, repr=False)
    fit: Any = dataclasses.field(default=None, repr=False)
    bracket: Any = dataclasses.field(default=None, repr=False)
    bootstrap: pd.DataFrame | None = dataclasses.field(default=None, repr=False)

    _headline = "gamma"
    _table = "agreement"

    @property
    def sections(self) -> dict[str, Section]:
        """The report's sections by key, in reading order."""
        return {s.key: s for s in self.report.sections}

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (``goldnoise audit --format json``), as plain Python values."""
        return self.report.to_json()

    def summary(self) -> str:
        """The report as text, as ``goldnoise audit`` prints it."""
        return render(self.report, "text")

    def render(self, fmt: str = "text") -> str:
        """The report as ``"text"``, ``"markdown"``, ``"json"`` or ``"csv"``."""
        return render(self.report, fmt)

    def __repr__(self) -> str:
        undefined = [s.key for s in self.report.sections if s.status != "ok"]
        tail = f", undefined: {', '.join(undefined)}" if undefined else ""
        return (f"AuditResult(gamma={self.gamma:.4g}, {len(self.report.sections)} sections"
                f"{tail})")

    def _repr_html_(self) -> str:
        return render_html_fragment(self.report)


def _gold_series(gold: Any) -> pd.Series | None:
    if gold is None:
        return None
    if isinstance(gold, pd.Series):
        return gold
    if isinstance(gold, Mapping):
        return pd.Series(dict(gold), dtype=object)
    if isinstance(gold, pd.DataFrame) and gold.shape[1] == 1:
        return gold.iloc[:, 0]
    raise TypeError("`gold` must map item ids to true labels: a pandas Series indexed by item "
                    f"or a dict; got {type(gold).__name__}.")


@validate_params(alpha=Alpha(), confidence_level=ConfidenceLevel(),
                 bootstrap=Resamples(1, optional=True), level=Option(LEVELS),
                 model=Option(MODELS), n_starts=Integer(1), rng=Rng(),
                 calibrate=Option(("held-out",), optional=True))
def audit(ratings: Any, *, model: str = "spam", hard: str | None = None,
          gold: Any = None, alpha: float = 0.95, confidence_level: float = 0.95,
          bootstrap: int | None = None, threshold: float | None = None, level: str = "auto",
          latent: bool = True, n_starts: int = 10, rng: int | None = 0,
          labels_ordered: bool = False, source: str | None = None,
          notes: Sequence[str] = (), calibrate: str | None = None,
          verified: Any = None, coefficients: Sequence[str] | None = None) -> AuditResult:
    """Audit a set of annotations: what ``goldnoise audit`` computes, as one result.

    Every agreement coefficient with its interval; the noise bound γ of the
    unanimously agreed items (the candidate gold standard); what κ implies
    under the easy/hard model; the chance-difference margin two systems
    compared on the agreed items must beat; a latent-class fit (who is
    reliable, which labels are likely wrong, which items are hard) with the
    agreed-error bracket; and, with ``gold``, accuracy against it.

    Parameters
    ----------
    ratings : Ratings, array-like or DataFrame
        The ratings (anything :func:`agreement.as_ratings` reads), or the
        ``LazyRatings`` of :func:`goldnoise.dask.read_ratings` (the larger-than-
        memory audit: the κ reading and the bracket need the labels in memory
        and say so).
    model : {"spam", "confusion", "one-coin", "easy-hard"}, default "spam"
        The latent-class annotator model (MACE's spam model, Dawid–Skene, one
        error rate per annotator, or the paper's easy/hard model M1).
    hard : {None, "marginal", "uniform"}
        A hard component added to the spam, confusion or one-coin model.
    gold : pandas.Series or dict, optional
        True labels by item id, for the ``gold`` section.
    alpha : float, default 0.95
        The paper's confidence α of the noise bound, the margin and the bracket.
    confidence_level : float, default 0.95
        Level of the coefficients' intervals.
    bootstrap : int, optional
        Also bootstrap every coefficient over items with this many resamples.
    threshold : float, optional
        A claimed κ threshold to check against κ's interval.
    level : {"auto", "nominal", "ordinal", "interval", "ratio"}, default "auto"
        Measurement level of the labels for Krippendorff's α; ``"auto"`` is
        nominal, plus ordinal and interval when ``labels_ordered``.
    latent : bool, default True
        Fit the latent-class model (and the bracket).
    n_starts : int, default 10
        EM starts of the latent-class fit.
    rng : int or None, default 0
        Seed of the EM starts, of the held-out check and of the bootstrap (the
        same seed, the same numbers). The default is ``goldnoise audit``'s
        ``--seed`` default, so the function and the command give the same
        numbers on the same data; the report prints it. ``None`` draws fresh
        entropy.
    labels_ordered : bool, default False
        Whether the labels' order was declared by the data (an ordered
        categorical column).
    calibrate : {None, "held-out"}
        ``"held-out"``: the latent-class posteriors tempered by held-out ratings
        (:class:`noise_models.LatentClassModel`).
    verified : pandas.Series or dict, optional
        True labels of a checked sample of items: the ``calibration`` section
        grades the fit's confidence against them (against ``gold`` when only
        that is given). Ids that are not in the ratings, or labels outside
        their categories, raise ``ValueError`` (in memory; over Dask the
        section says why it is left out).
    coefficients : sequence of str, optional
        Compute only these agreement coefficients (names as in
        :data:`agreement.STATISTICS`, e.g. ``["fleiss_kappa",
        "krippendorff_alpha"]``); default all. The bootstrap follows the
        same choice.
    source : str, optional
        Where the ratings came from, for the title.
    notes : sequence of str
        Remarks about the input (from reading it), shown in the data section.

    Returns
    -------
    AuditResult
        ``float(result)`` is γ; ``result.to_dict()`` is the JSON report and
        ``print(result.summary())`` the text of ``goldnoise audit``.

    See Also
    --------
    noise_models.noise_bound, noise_models.audit_kappa, agreement.agreement_table

    Examples
    --------
    >>> import goldnoise as gn
    >>> frame = gn.datasets.load_dawid_skene1979()
    >>> ratings = gn.Ratings.from_long(frame, item="patient", rater="observer",
    ...                                label="rating", replicates="separate")
    >>> res = gn.audit(ratings, rng=0)
    >>> res
    AuditResult(gamma=0.0625, 9 sections)
    >>> round(float(res.agreement.loc["Fleiss' kappa", "value"]), 4)
    0.5812
    >>> res.sections["bracket"].values["n_agreed"]
    16
    >>> res.to_dict()["schema"]
    'goldnoise.report/1'
    """
    check_params(audit, locals())
    gold = _gold_series(gold)
    if threshold is not None and not (np.isfinite(threshold) and -1.0 <= threshold <= 1.0):
        raise ValueError(f"`threshold` must be a κ value in [-1, 1]; got {threshold!r}.")
    if hard not in (None, "auto", "none", "marginal", "uniform", "difficulty"):
        raise ValueError(f"`hard` must be None, 'none', 'marginal', 'uniform' or "
                         f"'difficulty'; got {hard!r}.")
    lazy = hasattr(ratings, "shuffle_report")  # goldnoise.dask.LazyRatings
    if not lazy:
        from agreement import as_ratings

        ratings = as_ratings(ratings)
    verified = _gold_series(verified) if verified is not None else None
    if verified is not None and not lazy:
        # asked for by name: unknown ids or labels are an error, not a section left out
        labels_by_item(verified, ratings.items, ratings.categories, "verified")
    options = AuditOptions(model=model, hard=hard, gold=gold, alpha=float(alpha),
                           confidence_level=float(confidence_level), bootstrap=bootstrap,
                           threshold=threshold, level=level, latent=latent,
                           n_starts=n_starts, rng=rng, labels_ordered=labels_ordered,
                           source=source, notes=tuple(notes), calibrate=calibrate,
                           verified=verified, coefficients=coefficients)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if lazy:
            from goldnoise._audit._dask import dask_audit

            parts = dask_audit(ratings, options)
        else:
            parts = _memory_audit(ratings, options)
    parts["report"].notes.extend(" ".join(str(w.message).split()) for w in caught)
    return AuditResult(**parts)


def _memory_audit(r: Any, o: AuditOptions) -> dict[str, Any]:
    from goldnoise._audit._latent import calibration_section, check_section, gold_section
    from goldnoise._audit._sections import (
        agreement_section,
        bound_section,
        coefficient_frame,
        data_section,
        kappa_section,
        margin_section,
    )

    report = Report("audit", f"goldnoise audit: {o.title_source}",
                    parameters={"source": o.title_source, "alpha": o.alpha,
                                "confidence_level": o.confidence_level,
                                "threshold": o.threshold, "level": o.level,
                                "bootstrap": o.bootstrap, "seed": o.rng},
                    primary="agreement/coefficients")
    report.add(data_section(r, labels_ordered=o.labels_ordered, notes=o.notes))
    section, coefficients_rows = agreement_section(
        r, level=o.level, confidence_level=o.confidence_level,
        labels_ordered=o.labels_ordered, coefficients=o.coefficients)
    report.add(section)
    boot = None
    if o.bootstrap is not None:
        from goldnoise._audit._bootstrap import bootstrap_section

        analytic = {row["coefficient"]: row for row in coefficients_rows}
        section, rows = bootstrap_section(r, analytic, n_resamples=o.bootstrap, seed=o.rng,
                                          confidence_level=o.confidence_level)
        report.add(section)
        boot = pd.DataFrame(rows).set_index("coefficient") if rows else None
    section, bound = bound_section(r, alpha=o.alpha)
    report.add(section)
    ka_section, kappa_audit = kappa_section(r, bound, alpha=o.alpha, threshold=o.threshold,
                                            confidence_level=o.confidence_level)
    report.add(ka_section)
    m_section, margin = margin_section(bound, alpha=o.alpha)
    report.add(m_section)
    fitted = bracket = None
    if o.latent:
        sections, fitted, bracket = latent_class(r, o)
        for s in sections:
            report.add(s)
        if fitted is not None:
            report.add(check_section(fitted, o.rng))
            if o.verified is not None or o.gold is not None:
                report.add(calibration_section(
                    fitted, o.verified if o.verified is not None else o.gold,
                    "the verified sample" if o.verified is not None else "gold"))
    if o.gold is not None:
        report.add(gold_section(fitted, r, o.gold))
    return dict(gamma=float("nan") if bound is None else float(bound.gamma), report=report,
                agreement=coefficient_frame(coefficients_rows), bound=bound,
                kappa_audit=kappa_audit,
                margin=margin, fit=None if fitted is None else fitted.fit, bracket=bracket,
                bootstrap=boot)


def latent_class(r: Any, o: AuditOptions) -> tuple[list[Section], Any, Any]:
    """The latent-class sections (or the reason they are not computed), the fit, the bracket."""
    from goldnoise._audit._latent import fit_models, latent_sections
    from goldnoise._audit._text import capture_notes
    from noise_models import agreed_error_bracket

    title = "Latent-class fit: who is reliable, which labels are likely wrong"
    if not r.has_raters:
        return [section_from_result(None, "latent_class", title, undefined=(
            "a latent-class model needs to know which annotator gave which label, and these "
            "ratings are a count table"))], None, None
    if r.n_categories < 2:
        return [section_from_result(None, "latent_class", title, undefined=(
            f"every label is {r.categories[0]!r}: with one category there is nothing to "
            "estimate"))], None, None
    if r.describe()["items_with_two_or_more"] == 0:
        return [section_from_result(None, "latent_class", title,
                                    undefined="no item has two or more ratings")], None, None
    try:
        fitted = fit_models(r, o.model, hard=o.hard, n_starts=o.n_starts, seed=o.rng,
                            calibrate=o.calibrate)
    except ValueError as exc:
        return [section_from_result(None, "latent_class", title, undefined=str(exc))], None, None
    bracket, reason = None, None
    if not r.agreed.any():
        reason = "no item has unanimous labels, so there are no agreed labels to bracket"
    else:
        notes: list[str] = []
        try:
            with capture_notes(notes):
                bracket = agreed_error_bracket(r, alpha=o.alpha, model=fitted.fit)
        except ValueError as exc:
            reason = str(exc)
        fitted.notes += [n for n in notes if n not in fitted.notes]
    return latent_sections(fitted, gold=o.gold, alpha=o.alpha, bracket=bracket,
                           bracket_reason=reason, bootstrap=o.bootstrap,
                           seed=o.rng), fitted, bracket
