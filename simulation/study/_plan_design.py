"""One plan's design as objects: what an entry was asked (:class:`PlanOptions`), the checked
design and goal the search runs on (:class:`PlanDesign`), and the search's simulated studies
(:class:`Search`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from simulation.study._cost import MAX_SECONDS
from simulation.study._design import Design
from simulation.study._simulate import StudyAnalysis, run_studies

__all__ = ["PlanDesign", "PlanOptions", "Search"]


@dataclasses.dataclass(frozen=True)
class PlanOptions:
    """What an entry of the planner was asked, as given: the keyword options of
    :func:`~simulation.study_size_for_width`, :func:`~simulation.study_size_for_power` and
    :func:`~simulation.study_size_for_minimum` (documented there), with their defaults."""

    coefficient: str
    expected: float | None = None
    target: float | None = None
    null: float | None = None
    power: float | None = None
    alternative: str = "greater"
    minimum: float | None = None
    significance: float | None = None
    n_raters: int | None = None
    n_categories: int | None = None
    category_shares: Any = None
    missing: float | None = None
    level: str | None = None
    confidence_level: float = 0.95
    method: str = "auto"
    n_sims: int = 500
    n_bootstrap_sims: int = 200
    n_resamples: int = 499
    max_items: int = 20_000
    chance: str = "shares"
    pilot: Any = None
    rng: Any = None
    assurance: float | None = None
    max_seconds: float | None = MAX_SECONDS
    progress: bool | None = None


@dataclasses.dataclass(frozen=True)
class PlanDesign:
    """A plan's checked design and goal (width or power): what the search simulates, what
    it must reach, and how (``options`` are the checked options; ``notes`` collects the
    plan's notes as it is made)."""

    options: PlanOptions
    goal: str
    n_raters: int
    shares: np.ndarray
    missing: float
    level: str | None
    design: Design
    use_closed: bool
    notes: list[str]
    pilot_ci: Any = None

    @property
    def analysis(self) -> StudyAnalysis:
        """How every simulated study is analysed (:func:`run_studies`)."""
        o = self.options
        return StudyAnalysis(confidence_level=o.confidence_level, level=self.level,
                             null=o.null if self.goal == "power" else None,
                             alternative=o.alternative)


class Search:
    """The simulated studies of one plan's search: each size evaluated once, on common
    random numbers; the quick pass (doubling) uses the first ``n_quick`` of the same
    studies."""

    def __init__(self, d: PlanDesign, tick: Any) -> None:
        self.d, self.tick = d, tick
        self.rows: dict[int, dict] = {}
        self.quick_rows: dict[int, dict] = {}
        self.n_quick = min(d.options.n_sims, 200)

    def evaluate(self, n: int, quick: bool = False) -> dict:
        """The analytic interval's (or test's) performance row at ``n`` items."""
        d, o = self.d, self.d.options
        store, count = (self.quick_rows, self.n_quick) if quick else (self.rows, o.n_sims)
        if n in self.rows:
            return self.rows[n]
        if n not in store:
            st = run_studies(d.design, n, o.expected, count, analysis=d.analysis,
                             bootstrap=False, n_resamples=1, tick=self.tick)
            store[n] = st.row("analytic", o.expected,
                              o.significance if d.goal == "power" else None,
                              target=o.target if d.goal == "width" else None,
                              assurance=o.assurance)
        return store[n]

    def met(self, row: dict) -> bool:
        """Whether a performance row meets the goal."""
        goal, o = self.d.goal, self.d.options
        if goal == "width" and o.assurance is not None:
            return row["reach_share"] >= o.assurance
        if goal == "width":
            return row["degenerate"] < row["n_sims"] and row["mean_half_width"] <= o.target
        return row.get("power", 0.0) >= o.power
