"""A judge (an LLM, a classifier) beside human annotators: its audit and prediction-powered estimates (SPEC §10).

judge_audit      -- may a candidate replace or join the humans: their own agreement, the
                    swap and join tests with paired bootstrap intervals, the candidate
                    against each human, the majority and the latent labels, inside the
                    latent-class fit, the Alt-Test beside the swap, a verdict
                                                                     -> JudgeAuditResult
swap_test        -- the swap (a human replaced by the candidate) and join (added) tests
                    alone, each candidate on the items it rated      -> SwapTestResult
JudgeAuditResult, SwapTestResult -- their results

ppi_mean         -- prediction-powered estimate of a mean from labelled values, the
                    judge's values on them and on unlabelled items: PPI (λ = 1), PPI++
                    (power-tuned λ), stratified PPI                  -> PPIResult
judge_estimate   -- a class's prevalence or the mean rating over all items from ratings:
                    the judge on every item, humans on some, one value per item (their
                    mean, majority or latent-class posterior)        -> JudgeEstimateResult
active_sample    -- which items humans should label: inclusion probabilities from the
                    judge's soft output (mixed with uniform), one draw of them
                                                                     -> ActiveSampleResult
labelled_sample  -- a random share of the human-rated items, to count as labelled -> list
PPIResult, JudgeEstimateResult -- the results: estimate, confidence_interval(), the
                    human-only interval, the effective sample-size gain

Modules: ``_audit`` (judge_audit), ``_swap`` (swap_test), ``_compare`` (the candidate
against references, the latent-class section), ``_result`` and ``_report`` (the audit's
result and its report), ``_ppi`` (the estimator and its result), ``_estimate`` (ratings to
item values), ``_active`` (active sampling and the inverse-probability-weighted estimate).
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from noise_models.judge._active import ActiveSampleResult, active_sample
    from noise_models.judge._audit import judge_audit
    from noise_models.judge._estimate import JudgeEstimateResult, judge_estimate, labelled_sample
    from noise_models.judge._ppi import PPIResult, ppi_mean
    from noise_models.judge._result import JudgeAuditResult
    from noise_models.judge._swap import SwapTestResult, swap_test

__getattr__, __dir__, __all__ = lazy_package(__name__)
