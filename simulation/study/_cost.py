"""How long a simulated study plan will take, from a short timed pilot of the simulation.

A simulated study costs about ``a + b · n · m`` seconds (``n`` items, ``m``
annotators: drawing and counting the ratings grows with both; ``a`` holds what
grows with the categories). Two sizes of a few studies each, timed after one
warm-up study (imports and compiled kernels load once), fit ``a`` and ``b``;
the pilot's half-width at the larger size predicts the size the search will
reach (half-widths shrink as ``1/√n``), and with it the studies the search
simulates: the doubling pass, about eight sizes of bracketing and bisection
near the answer, and the bootstrap comparison. The pilot's studies are drawn
from their own random streams, so the plan's results do not change with it.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from typing import Any

from simulation.study._design import Design
from simulation.study._simulate import StudyAnalysis, run_studies

__all__ = ["ANNOUNCE_SECONDS", "MAX_SECONDS", "MAX_STUDY_RATINGS", "PlanCost", "announce", "check_cost",
           "check_memory", "duration", "guess_size", "search_studies", "timed_pilot"]

#: A plan whose simulation is estimated to take longer is refused (``max_seconds``).
MAX_SECONDS = 1800.0
#: A simulation estimated to take this long says so on stderr even off a terminal.
ANNOUNCE_SECONDS = 10.0
#: Ratings (or item × category counts) one simulated study may hold in memory.
MAX_STUDY_RATINGS = 50_000_000
#: The pilot's sizes: the search's first size and four times it.
_PILOT_SIZES = (10, 40)
#: A timed batch of pilot studies lasts at least this long (or has this many studies).
_PILOT_BATCH_SECONDS = 0.1
_PILOT_MAX_BATCH = 32
#: Far from the pilot's own random streams: the plan's studies are numbered 0, 1, ...
_PILOT_OFFSET = 2**40
#: Resamples of the untimed bootstrap study that loads the bootstrap's kernels.
_PILOT_WARM_RESAMPLES = 5


@dataclasses.dataclass(frozen=True)
class PlanCost:
    """The timed pilot: seconds per study and the half-width it saw."""

    fixed: float          # seconds per study, whatever its size
    per_rating: float     # seconds per rating
    boot_factor: float    # a bootstrap study's extra cost, in plain studies
    half_width: float     # mean analytic half-width at the larger pilot size
    pilot_studies: int
    pilot_seconds: float
    n_raters: int

    def study(self, n_items: int, bootstrap: bool = False) -> float:
        t = self.fixed + self.per_rating * n_items * self.n_raters
        return t * (1.0 + self.boot_factor) if bootstrap else t


def check_memory(n_items: int, design: Design, what: str) -> None:
    """Refuse a study too large to hold: items × annotators, items × categories, or the
    categories × categories tables a coefficient builds."""
    q = design.n_categories
    size = max(n_items * design.n_raters, n_items * q, q * q)
    if size > MAX_STUDY_RATINGS:
        raise ValueError(
            f"{what}: one simulated study of {n_items:,} items with {design.n_raters:,} "
            f"annotators and {q:,} categories would hold {size:,} ratings or table cells "
            f"(items x annotators, items x categories, categories x categories), beyond the "
            f"{MAX_STUDY_RATINGS:,} a simulation holds in memory; plan with fewer annotators "
            "or categories (merge rare ones), or use a closed form where one applies (Cohen's "
            "kappa with two annotators and two categories; Krippendorff's alpha with "
            "`minimum`).")


def timed_pilot(design: Design, expected: float, analysis: StudyAnalysis, *, n_resamples: int,
                bootstrap: bool) -> PlanCost:
    """Time a few simulated studies at two sizes (see the module docstring)."""
    check_memory(_PILOT_SIZES[-1], design, "the design cannot even be piloted")
    start = time.perf_counter()

    def run(n: int, k: int, boot: bool = False, offset: int = 0,
            resamples: int = n_resamples) -> tuple[float, Any]:
        t = time.perf_counter()
        st = run_studies(design, n, expected, k, analysis=analysis, bootstrap=boot,
                         n_resamples=resamples if boot else 1,
                         sim_offset=_PILOT_OFFSET + offset)
        return (time.perf_counter() - t) / k, st

    import numpy as np

    import agreement

    n0, n1 = _PILOT_SIZES
    try:  # what the simulation skips as a degenerate study says here why nothing can be
        agreement.Ratings.from_wide(design.draw(_PILOT_OFFSET, n0, expected),
                                    categories=list(np.arange(design.n_categories, dtype=float)))
    except ValueError as exc:
        raise ValueError(f"this design cannot be simulated: {exc}") from None
    # warm-up, untimed: imports and compiled kernels load once, at both sizes
    run(n0, 1, offset=99)
    run(n1, 1, offset=98)
    if bootstrap:
        run(n0, 1, boot=True, offset=97, resamples=_PILOT_WARM_RESAMPLES)
    studies = 2 + bool(bootstrap)

    def timed(n: int, offset: int) -> tuple[float, Any]:
        # batches of 1, 2, 4, ... studies until one takes long enough to time
        k = 1
        while True:
            t, st = run(n, k, offset=offset)
            nonlocal studies
            studies += k
            if t * k >= _PILOT_BATCH_SECONDS or k >= _PILOT_MAX_BATCH:
                return t, st
            offset += k
            k *= 2

    t0, _ = timed(n0, 0)
    t1, st = timed(n1, 1000)
    m = design.n_raters
    per_rating = max((t1 - t0) / ((n1 - n0) * m), 0.0)
    fixed = max(t0 - per_rating * n0 * m, 0.0)
    boot_factor = 0.0
    if bootstrap:
        tb, _ = run(n1, 1, boot=True, offset=20)
        studies += 1
        boot_factor = max(tb / max(t1, 1e-9) - 1.0, 0.0)
    lo, hi = st.low["analytic"], st.high["analytic"]
    widths = [(h - lo_) / 2 for lo_, h in zip(lo, hi, strict=True)
              if math.isfinite(lo_) and math.isfinite(h)]
    half = sum(widths) / len(widths) if widths else math.nan
    return PlanCost(fixed=fixed, per_rating=per_rating, boot_factor=boot_factor,
                    half_width=half, pilot_studies=studies,
                    pilot_seconds=time.perf_counter() - start, n_raters=m)


def guess_size(cost: PlanCost, goal: str, o: Any) -> int:
    """The size the search will likely reach, from the pilot's half-width (∝ 1/√n);
    ``o`` are the plan's checked ``PlanOptions`` (the goal's values, the test, the level)."""
    from scipy.special import ndtri

    target, null, power, expected = o.target, o.null, o.power, o.expected
    alternative, significance, max_items = o.alternative, o.significance, o.max_items
    confidence_level, assured = o.confidence_level, o.assurance is not None
    n1 = _PILOT_SIZES[-1]
    h1 = cost.half_width
    if not (math.isfinite(h1) and h1 > 0):
        return max_items
    if goal == "width":
        n = n1 * (h1 / target) ** 2 * (1.15 if assured else 1.0)
    else:
        se1 = h1 / float(ndtri(0.5 + confidence_level / 2))
        a = significance / 2 if alternative == "two-sided" else significance
        n = n1 * ((float(ndtri(1 - a)) + float(ndtri(power))) * se1
                  / abs(expected - null)) ** 2
    return int(min(max(math.ceil(n), _PILOT_SIZES[0]), max_items))


def search_studies(size: int, *, n_sims: int, n_quick: int, max_items: int,
                   n_bootstrap_sims: int, start: int) -> list[tuple[int, int, bool]]:
    """(studies, items, bootstrap) of the search for a plan that ends near ``size``."""
    out = []
    n = start
    while n < size and n < max_items:
        out.append((n_quick, n, False))
        n = min(2 * n, max_items)
    out.append((n_quick, n, False))
    out += [(n_sims, min(size, max_items), False)] * 8  # bracket and bisection
    if n_bootstrap_sims:
        out.append((n_bootstrap_sims, size, True))
    return out


def duration(seconds: float) -> str:
    """Seconds in words: "40 s", "3 min 10 s", "2 h 5 min"."""
    s = round(seconds)
    if s < 60:
        return f"{max(s, 1)} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {(s % 3600) // 60} min"


def check_cost(seconds: float, max_seconds: float | None, cost: PlanCost, studies: int,
               what: str) -> None:
    """Refuse a simulation estimated beyond ``max_seconds``."""
    if max_seconds is not None and seconds > max_seconds:
        raise ValueError(
            f"{what} would take about {duration(seconds)} ({studies:,} simulated studies, "
            f"estimated from a timed pilot of {cost.pilot_studies} studies), more than "
            f"`max_seconds` ({duration(max_seconds)}); raise `max_seconds` to run it anyway "
            "(a progress bar shows on a terminal), lower `n_sims`, plan with fewer annotators or "
            "categories (study_tradeoff shows how the size changes with the annotators), or "
            "use a closed form where one applies (Cohen's kappa with two annotators and two "
            "categories; Krippendorff's alpha with `minimum`).")


def announce(what: str, seconds: float, studies: int, enabled: bool | None) -> None:
    """Say on stderr before starting how long the simulation will take: where bars are
    drawn, and for a simulation of :data:`ANNOUNCE_SECONDS` or more wherever stderr goes
    (a pipe, a CI log, a notebook), unless progress reports are off (``enabled=False``,
    ``GOLDNOISE_PROGRESS=0``)."""
    from _goldnoise_lib.progress import progress_enabled, progress_silenced

    long = seconds >= ANNOUNCE_SECONDS and not progress_silenced()
    if enabled or (enabled is None and (progress_enabled() or long)):
        print(f"{what}: about {studies:,} simulated studies, estimated {duration(seconds)} "
              "(from a timed pilot)", file=sys.stderr, flush=True)
