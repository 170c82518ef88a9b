"""Planning an agreement study: how many items for an interval's width or a test's power (SPEC §8).

study_size       -- items needed for a target half-width, a test's power, or Bloch &
                    Kraemer's smallest α; closed forms in their scope (Cantor 1996 for
                    Cohen's κ; Krippendorff's table for α), simulation for every
                    coefficient, annotators, categories and missing rate; the interval
                    method that covers at that size                    -> StudyPlan
simulate_study   -- coverage, width and power of the analytic, percentile and BCa
                    intervals at a given size                         -> DataFrame
study_tradeoff   -- more items or more annotators: the cheapest design -> StudyTradeoff
judge_plan       -- once a judge labels every item (SPEC §10): the human-labelled items
                    and humans per item for a PPI++ interval's half-width, or for the
                    swap test's non-inferiority power at a margin      -> JudgePlan
swap_test        -- may a candidate stand in for a human (swap) or join them: the
                    coefficient's change with paired bootstrap intervals (the test
                    goldnoise.judge_audit reports and judge_plan sizes) -> SwapTestResult
StudyPlan, StudyTradeoff, JudgePlan, SwapTestResult -- the results
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.study._judge import JudgePlan, judge_plan
    from simulation.study._plan import (
        StudyPlan,
        StudyTradeoff,
        simulate_study,
        study_size,
        study_tradeoff,
    )
    from simulation.study._swap import SwapTestResult, swap_test

__getattr__, __dir__ = lazy_package(__name__)

__all__ = ["JudgePlan", "StudyPlan", "StudyTradeoff", "SwapTestResult", "judge_plan",
           "simulate_study", "study_size", "study_tradeoff", "swap_test"]
