"""JudgeAuditResult: may a candidate replace a human annotator, join them, or neither."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from _goldnoise_lib.report import render, render_html_fragment
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import ConfidenceLevel, check_params, validate_params
from noise_models.judge._report import judge_report

__all__ = ["JudgeAuditResult"]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class JudgeAuditResult(Result):
    """The audit of one or more candidate annotators (judges) against the humans.

    Attributes
    ----------
    human_reliability : float
        The coefficient of the humans alone (the headline value).
    human_low, human_high : float
        Its bootstrap interval (percentile, items resampled).
    validated : bool
        False when the humans barely agree (``human_reliability`` below
        :data:`HUMAN_FLOOR`, 0.4): a judge cannot be validated against them.
    coefficient, level : str
        The coefficient (and Krippendorff's level of measurement, or None).
    margin : float
        The non-inferiority margin δ on the coefficient's scale.
    epsilon : float or None
        The Alt-Test's ε (None: no Alt-Test).
    scoring : str or None
        The Alt-Test's scoring: ``"accuracy"``, ``"rmse"`` (negative RMSE),
        ``"abs"`` (negative mean absolute difference) or a function's name
        (None: no Alt-Test).
    confidence_level : float
    n_resamples : int
    n_items : int
        Items with at least one human rating (the items of the swap test).
    humans, candidates : tuple of str
    swap : pandas.DataFrame
        One row per candidate: ``with_candidate`` (the coefficient with the
        candidate in one human's place, averaged over which human),
        ``humans`` (the humans' coefficient on the same items), ``difference``,
        ``low``, ``high`` (paired percentile bootstrap over the items the
        candidate rated), ``non_inferior`` (``low > −margin``) and ``n_items`` (the items
        the candidate rated: its swap and join are on those).
    join : pandas.DataFrame
        The same with the candidate added to all the humans.
    agreement : pandas.DataFrame
        Index (candidate, reference), reference = each human, ``"majority"``
        (strict majority of the humans) and ``"latent"`` (the humans-only
        spam fit's labels): ``n_items``, ``accuracy`` with an exact interval,
        ``kappa`` (Cohen's) with its analytic interval.
    confusion : pandas.DataFrame
        Long confusion counts: candidate, reference, candidate_label,
        reference_label, count.
    latent : pandas.DataFrame or None
        Every annotator (index) inside the latent-class fit of humans and
        candidates (MACE's spam model with item difficulty, the default):
        ``kind``, ``accuracy`` over easy and hard items
        (:meth:`~noise_models.LatentClassFit.annotator_frame`) with ``accuracy_low`` and
        ``accuracy_high`` (bootstrap, refitted), the spam parameters, and
        ``accuracy_easy`` / ``accuracy_hard`` (agreement with the humans-only
        fit's labels weighted by its posterior that the item is hard; NaN where
        the annotator's items carry less than 5 items' worth of that weight) and
        ``hard_share`` (the mean of that posterior over the items the annotator
        rated). None when the fit was not possible (see notes).
    alt_test : pandas.DataFrame or None
        With ``epsilon``: ``winning_rate``, ``advantage_probability``,
        ``passed`` per candidate.
    verdicts : pandas.DataFrame
        One row per candidate: ``verdict`` (``"replace"``, ``"join"``,
        ``"neither"`` or ``"not validated"``) and ``reason`` in words.
    notes : tuple of str
    bootstrap : agreement.BootstrapResult or None
        The paired bootstrap behind every interval (the humans' coefficient is its
        first statistic); :meth:`confidence_interval` reads other levels from it.
        Not part of ``to_dict()``.

    ``to_frame()``: the swap table with the join, Alt-Test and verdict columns.
    """

    _headline = "human_reliability"

    human_reliability: float
    human_low: float
    human_high: float
    validated: bool
    coefficient: str
    level: str | None
    margin: float
    epsilon: float | None
    confidence_level: float
    n_resamples: int
    n_items: int
    humans: tuple[str, ...]
    candidates: tuple[str, ...]
    scoring: str | None
    swap: pd.DataFrame = dataclasses.field(repr=False)
    join: pd.DataFrame = dataclasses.field(repr=False)
    agreement: pd.DataFrame = dataclasses.field(repr=False)
    confusion: pd.DataFrame = dataclasses.field(repr=False)
    latent: pd.DataFrame | None = dataclasses.field(repr=False)
    alt_test: pd.DataFrame | None = dataclasses.field(repr=False)
    verdicts: pd.DataFrame = dataclasses.field(repr=False)
    notes: tuple[str, ...] = ()
    bootstrap: Any = dataclasses.field(default=None, repr=False)

    _records = ("swap", "join", "agreement", "confusion", "latent", "alt_test", "verdicts")

    @validate_params(confidence_level=ConfidenceLevel(optional=True))
    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The humans' own coefficient's interval (the headline's).

        At the audit's level by default; another level is read from the same bootstrap
        replicates (the tables keep the audit's level).
        """
        check_params(JudgeAuditResult.confidence_interval, locals())
        if (confidence_level is None or float(confidence_level) == self.confidence_level
                or self.bootstrap is None):
            if confidence_level is not None and self.bootstrap is None:
                raise ValueError(f"this audit's intervals are at {self.confidence_level:g} "
                                 "and its replicates were not kept; rerun judge_audit with "
                                 f"confidence_level={confidence_level!r}.")
            return ConfidenceInterval(self.human_low, self.human_high)
        iv = self.bootstrap.confidence_interval(float(confidence_level))
        return ConfidenceInterval(float(iv.low[0]), float(iv.high[0]))

    def report(self, *, source: str = "ratings", estimates: dict | None = None) -> Any:
        """The report of ``goldnoise judge`` (a ``goldnoise.report.Report``).

        ``source`` names the data in the title; ``estimates`` (``{candidate:
        JudgeEstimateResult}``, optional) adds the prediction-powered estimates' section.
        """
        from noise_models.judge._report import estimate_section

        out = judge_report(self, source=source)
        if estimates:
            out.add(estimate_section(estimates))
        return out

    def summary(self) -> str:
        """The report as text, as ``goldnoise judge`` prints it."""
        return self.render("text")

    def render(self, fmt: str = "text") -> str:
        """The report of ``goldnoise judge`` as ``"text"``, ``"markdown"``, ``"json"`` or
        ``"csv"`` (its swap table)."""
        return render(judge_report(self), fmt)

    def _repr_html_(self) -> str:
        return render_html_fragment(judge_report(self))

    def to_frame(self) -> pd.DataFrame:
        """One row per candidate: swap, join, Alt-Test and the verdict."""
        out = self.swap.copy()
        join = self.join.rename(columns=lambda c: f"join_{c}").drop(columns="join_humans")
        out = out.join(join)
        if self.alt_test is not None:
            out = out.join(self.alt_test)
        return out.join(self.verdicts)

    def __repr__(self) -> str:
        verdicts = ", ".join(f"{c}: {v}" for c, v in self.verdicts["verdict"].items())
        return (f"JudgeAuditResult(human_reliability={self.human_reliability:.4g}, "
                f"{verdicts})")
