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
StudyPlan, StudyTradeoff, JudgePlan -- the results
"""

from simulation.study._judge import JudgePlan, judge_plan
from simulation.study._plan import (
    StudyPlan,
    StudyTradeoff,
    simulate_study,
    study_size,
    study_tradeoff,
)

__all__ = ["JudgePlan", "StudyPlan", "StudyTradeoff", "judge_plan", "simulate_study",
           "study_size", "study_tradeoff"]
