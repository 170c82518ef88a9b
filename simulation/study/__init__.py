"""Planning an agreement study: how many items for an interval's width or a test's power (SPEC §8).

study_size_for_width   -- items for an interval's half-width (mean, or reached by an
                          `assurance` share of studies); Cantor's variance for Cohen's κ,
                          simulation for every coefficient, annotators, categories and
                          missing rate; the interval method that covers -> StudyPlan
study_size_for_power   -- items for a test's power against a null value; Cantor (1996)
                          for Cohen's κ, simulation elsewhere             -> StudyPlan
study_size_for_minimum -- Krippendorff's α: Bloch & Kraemer's values (and units) for a
                          smallest acceptable α, as Krippendorff tabulates it -> StudyPlan
simulate_study   -- coverage, width and power of the analytic, percentile and BCa
                    intervals at a given size                         -> DataFrame
study_tradeoff   -- more items or more annotators: the cheapest design -> StudyTradeoff
judge_plan       -- once a judge labels every item (SPEC §10): the human-labelled items
                    and humans per item for a PPI++ interval's half-width, or for the
                    swap test's non-inferiority power at a margin (the test is
                    noise_models.swap_test)                            -> JudgePlan
StudyPlan, StudyTradeoff, JudgePlan -- the results
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.study._judge import JudgePlan, judge_plan
    from simulation.study._plan import (
        study_size_for_minimum,
        study_size_for_power,
        study_size_for_width,
        study_tradeoff,
    )
    from simulation.study._plan_result import StudyPlan, StudyTradeoff
    from simulation.study._simulate_study import simulate_study

__getattr__, __dir__, __all__ = lazy_package(__name__)
