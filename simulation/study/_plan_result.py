"""The planner's results: :class:`StudyPlan` and :class:`StudyTradeoff`."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import pandas as pd

from _goldnoise_lib.results import Result

__all__ = ["StudyPlan", "StudyTradeoff"]


@dataclasses.dataclass(frozen=True)
class StudyPlan(Result):
    """How many items a study needs, and how its intervals behave at that size.

    Attributes
    ----------
    coefficient : str
        The coefficient planned for (a function name of ``agreement``).
    goal : {"width", "power", "minimum"}
        Interval half-width ≤ ``target``; power of the test against ``null``;
        Bloch & Kraemer's smallest acceptable α (``minimum``).
    n_items : int
        Items needed (sizes round up).
    method : {"closed-form", "simulation"}
    n_raters, n_categories : int
    expected : float
        The coefficient's assumed value.
    target, null, power, minimum : float or None
        The goal's parameters.
    confidence_level, significance : float or None
    recommended_interval : str or None
        ``"analytic"``, ``"percentile"`` or ``"bca"`` (None when nothing was
        simulated): the analytic interval when its
        coverage is not significantly below nominal (Wilson interval), else BCa,
        else the percentile interval.
    half_width, achieved_power, coverage : float
        At ``n_items``: the mean half-width and coverage of the recommended
        interval and the test's power (NaN where not computed).
    n_ratings : float
        Expected ratings at ``n_items`` (``n_items · n_raters · (1 − missing)``); for
        the ``minimum`` goal, Krippendorff's number of values (codings) itself, of
        which ``n_items`` is the units ``⌈n_ratings / n_raters⌉``.
    n_range : tuple of int or None
        From a pilot: the items needed at the ends of the pilot's interval.
    formula : str
        The closed form used, or how the size was searched.
    notes : tuple of str
    table : pandas.DataFrame
        One row per evaluated size and interval method: ``n_items``, ``interval``,
        ``coverage`` (and its Wilson interval), ``mean_half_width``, ``power``,
        ``reach_share`` (width goals), ...
    assurance : float or None
        Width goals: the share of studies planned to reach the half-width
        (``None``: the *mean* half-width is the target, which about half of the
        studies miss).
    reach_share : float
        Width goals: the share of the simulated studies at ``n_items`` whose
        analytic interval reached the half-width (NaN for closed forms).

    ``to_frame()`` returns ``table``; ``float(plan)`` is ``n_items``.
    """

    _headline: ClassVar[str] = "n_items"
    _records = _table = "table"
    _summary = (
        "{coefficient}: {goal==minimum:{n_ratings:,.0f} values, {n_items} units|{n_items} items} "
        "({method})",
        ("goal==width", "  target: {width_goal} at an expected value of {expected:.4g}"),
        ("goal==power", "  target: power {power:g} to reject {null:g} at significance "
         "{significance:g} when the value is {expected:.4g}"),
        ("goal==minimum", "  target: alpha above {minimum:g} at significance {significance:g}"),
        ("goal==minimum", "  values: Krippendorff's unit, one coder's value for one unit "
         "({n_raters} coders per unit); {n_categories} categories"),
        ("goal!=minimum", "  {n_raters} annotators, {n_categories} categories; about "
         "{n_ratings:,.0f} ratings"),
        "  recommended interval: {recommended_interval} (coverage {coverage:.3f}, mean "
        "half-width {half_width:.4f})",
        ("achieved_power!=nan", "  power at that size: {achieved_power:.3f}"),
        "  from the pilot's interval: {n_range[0]} to {n_range[1]} items",
        "  {formula}", ("notes", "  * {}"))

    coefficient: str
    goal: str
    n_items: int
    method: str
    n_raters: int
    n_categories: int
    expected: float
    target: float | None
    null: float | None
    power: float | None
    minimum: float | None
    confidence_level: float
    significance: float | None
    recommended_interval: str | None
    half_width: float
    achieved_power: float
    coverage: float
    n_ratings: float
    n_range: tuple[int, int] | None
    formula: str
    notes: tuple[str, ...]
    table: pd.DataFrame = dataclasses.field(repr=False, compare=False)
    assurance: float | None = None
    reach_share: float = math.nan

    def __repr__(self) -> str:
        return (f"StudyPlan({self.coefficient}, goal={self.goal!r}, n_items={self.n_items}, "
                f"method={self.method!r}, recommended_interval={self.recommended_interval!r})")

    def width_goal(self) -> str:
        """The width goal in words: which half-width, and for which share of studies."""
        if self.goal != "width":
            return ""
        reach = ("" if not math.isfinite(self.reach_share) else
                 f"; {self.reach_share:.0%} of the simulated studies reach it")
        if self.assurance is not None:
            return (f"a {self.confidence_level:.0%} interval half-width of at most "
                    f"{self.target:g} in {self.assurance:.0%} of studies (assurance "
                    f"{self.assurance:g}{reach})")
        return (f"a mean {self.confidence_level:.0%} interval half-width of at most "
                f"{self.target:g} (no assurance: about half of the studies get a wider "
                f"interval{reach}; set `assurance`, e.g. 0.8)")

    def plot(self, ax: Any = None) -> Any:
        """Half-width (and coverage) of the intervals against the number of items."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 4))
        t = self.table
        curve = t[(t["interval"] == "analytic") & (t["stage"] != "comparison")]
        curve = curve.sort_values("n_items")
        ax.plot(curve["n_items"], curve["mean_half_width"], marker="o", color="C0",
                label="analytic half-width (simulated)")
        comp = t[t["stage"] == "comparison"]
        for i, (_, row) in enumerate(comp.iterrows()):
            ax.plot([row["n_items"]], [row["mean_half_width"]], marker="s", linestyle="",
                    color=f"C{i + 1}", label=f"{row['interval']}: half-width "
                                             f"{row['mean_half_width']:.3f}, coverage "
                                             f"{row['coverage']:.3f}")
        if self.target is not None:
            ax.axhline(self.target, color="grey", linestyle=":", label="target half-width")
        ax.axvline(self.n_items, color="black", linestyle="--", label=f"n = {self.n_items}")
        ax.set_xscale("log")
        ax.set_xlabel("items (log scale)")
        ax.set_ylabel(f"mean half-width of the {self.confidence_level:.0%} interval")
        ax.set_title(f"{self.coefficient}: {self.n_items} items ({self.method})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        return ax


@dataclasses.dataclass(frozen=True)
class StudyTradeoff(Result):
    """More items or more annotators: the cheapest design for a target half-width.

    Attributes
    ----------
    n_raters : int
        Annotators per item of the cheapest design.
    n_items : int
        Its items.
    cost : float
        Its cost: ``n_items · (cost_per_item + n_raters · (1 − missing) · cost_per_rating)``.
    table : pandas.DataFrame
        One row per number of annotators: ``n_raters``, ``n_items``, ``n_ratings``, ``cost``.
    """

    _headline: ClassVar[str] = "n_raters"
    _records = _table = "table"

    coefficient: str
    n_raters: int
    n_items: int
    cost: float
    table: pd.DataFrame = dataclasses.field(repr=False, compare=False)

