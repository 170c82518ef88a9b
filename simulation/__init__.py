"""What simulates or plans: labels with known truth and the checks built on them (SPEC §3, §6, §8, §9).

One public subpackage per topic, every public name also importable from here. The
subpackages stand on three floors, each importing only subpackages on the floors below
it, and only through their ``__init__`` (tests/test_architecture.py):

    floor 3   crosscheck                      a model's ranking beside the annotation model
    floor 2   detection  consistency  noising  label errors found, consistency, noise made
    floor 1   scores  generators  calibration  study  reannotation
              model scores, labels with known truth, coverage, planning, re-annotation

The bootstrap is not here: every package resamples through one core below them all
(``_goldnoise_lib.resampling``); its public faces sit beside what they resample:
``agreement.bootstrap``, ``agreement.bootstrap_rows``, ``agreement.span_intervals``,
``noise_models.annotator_intervals``.

Generators (simulation.generators)
----------------------------------
simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations
simulate_spans        -- span annotations with boundary, label and missed-span errors and
                         the true spans                            -> SimulatedSpans

Aliases kept for compatibility (deprecated: import them from their home)
------------------------------------------------------------------------
bootstrap, bootstrap_rows, BootstrapResult, poisson_partial, poisson_combine,
poisson_finalize, PoissonParts, span_intervals  -- from agreement
annotator_intervals                            -- from noise_models
(the same objects as at their homes; the modules simulation.bootstrap, simulation.spans
and simulation.reliability, once subpackages, are deprecated alias modules of them)

Calibration (simulation.calibration)
------------------------------------
gamma_coverage            -- how often the true hard share of the agreed items is ≤ γ,
                             per true hard count                           -> DataFrame
verified_sample_coverage  -- the same for verified_sample_bound             -> DataFrame

Model scores from files (simulation.scores)
-------------------------------------------
load_scores           -- per-item probs/logits/loss of models trained elsewhere, from
                         .npz/.npy/.csv/.tsv/.parquet/.jsonl, aligned to items by id
                                                                   -> ModelScores
ensemble              -- average probabilities or logits (FME)     -> ModelScores
item_loss             -- cross-entropy of the given label (per model and item)
ScorePrecisionWarning -- scores stored as float16: ties and rounding ahead

Noising protocols (simulation.noising)
--------------------------------------
perturb_uniform, perturb_class_conditional, dissenting_label, dissenting_worker,
crowd_majority        -- exactly round(rate · n) errors, seeded, with provenance
mix_protocols         -- several protocols splitting the count     -> NoisyLabels
perturb_similar       -- NoisywikiHow: items most similar to another class take its class,
                         per noise source, with provenance         -> NoisyLabels
voter_labels          -- CILN voter pools: votes from several models' distributions
                                                                   -> SoftLabels

Finding label errors (simulation.detection)
-------------------------------------------
label_error_ranking   -- loss (FML/FME), self-confidence, normalized margin,
                         confident learning                        -> Ranking
detection_metrics     -- AP, AUROC, P/R/F1 at k, P@k curve, bootstrap intervals
                                                                   -> DetectionResult
detection_replicates  -- the metrics under given item multiplicities
detected_error_rate   -- verified error share of the top q%        -> DetectedErrorRateResult
loss_separability     -- AUROC and overlap of the loss, noisy vs clean, with intervals
                                                                   -> SeparabilityResult
overlap_coefficient   -- Weitzman's overlap of two samples

Planning an agreement study (simulation.study, SPEC §8)
--------------------------------------------------------
study_size_for_width  -- items for an interval half-width (the mean, or reached by an
                         `assurance` share of studies)             -> StudyPlan
study_size_for_power  -- items for a test's power against a null value -> StudyPlan
study_size_for_minimum -- Krippendorff's α: Bloch & Kraemer's values and units for a
                         smallest acceptable α (Krippendorff's table) -> StudyPlan
study_size            -- the three behind one call, the goal chosen by the arguments
                         given; closed forms (Cantor 1996, Krippendorff's table) or
                         simulation for every coefficient; the interval method that
                         covers at that size                       -> StudyPlan
simulate_study        -- coverage, width, power of analytic / percentile / BCa intervals
                         at a given size                           -> DataFrame
study_tradeoff        -- more items or more annotators: the cheapest design -> StudyTradeoff
judge_plan            -- once a judge labels every item: the human-labelled items (and
                         humans per item) for a PPI interval's half-width, or for the swap
                         test's non-inferiority power at a margin (SPEC §10; the test
                         is noise_models.swap_test)                -> JudgePlan

Re-annotation and expert checks (simulation.reannotation, SPEC §6)
-------------------------------------------------------------------
next_batch            -- the items for one more rating: uniform, random, uncertainty,
                         margin, expected-error-reduction, hard    -> DataFrame
verification_batch    -- items for expert checks, ranked + random strata with inclusion
                         probabilities                             -> DataFrame
residual_errors       -- an upper confidence bound on the wrong labels left (a stopping
                         rule)                                     -> ResidualErrorResult
replay                -- a policy replayed on real data with more ratings than it starts
                         with, round by round, against the truth   -> ReplayResult
compare_policies      -- several policies on the same seeds: one table, a plot
                                                                   -> PolicyComparisonResult

Label consistency across subsets (simulation.consistency, SPEC §7)
-------------------------------------------------------------------
subset_consistency    -- span F1 on a probe set of models trained under several
                         conditions, paired bootstrap intervals of the differences
                         (documents resampled), a verdict (Zeng et al. 2021)
                                                                   -> SubsetConsistencyResult

Cross-check against the annotation model (simulation.crosscheck)
----------------------------------------------------------------
crosscheck            -- model loss vs disagreement and the latent-class posterior,
                         flagged agreed items vs γ, a verdict      -> CrosscheckResult
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from agreement import (  # deprecated aliases: their home is agreement
        BootstrapResult,
        PoissonParts,
        bootstrap,
        bootstrap_rows,
        poisson_combine,
        poisson_finalize,
        poisson_partial,
        span_intervals,
    )
    from noise_models import annotator_intervals  # deprecated alias: its home is noise_models
    from simulation.calibration import gamma_coverage, verified_sample_coverage
    from simulation.consistency import SubsetConsistencyResult, subset_consistency
    from simulation.crosscheck import CrosscheckResult, crosscheck
    from simulation.detection import (
        DetectedErrorRateResult,
        DetectionResult,
        Ranking,
        SeparabilityResult,
        detected_error_rate,
        detection_metrics,
        detection_replicates,
        label_error_ranking,
        loss_separability,
        overlap_coefficient,
    )
    from simulation.generators import (
        SimulatedAnnotations,
        SimulatedSpans,
        simulate_annotations,
        simulate_spans,
    )
    from simulation.noising import (
        NoisyLabels,
        crowd_majority,
        dissenting_label,
        dissenting_worker,
        mix_protocols,
        perturb_class_conditional,
        perturb_similar,
        perturb_uniform,
        voter_labels,
    )
    from simulation.reannotation import (
        PolicyComparisonResult,
        ReplayResult,
        ResidualErrorResult,
        compare_policies,
        next_batch,
        replay,
        residual_errors,
        verification_batch,
    )
    from simulation.scores import (
        ModelScores,
        ScorePrecisionWarning,
        ensemble,
        item_loss,
        load_scores,
    )
    from simulation.study import (
        JudgePlan,
        StudyPlan,
        StudyTradeoff,
        judge_plan,
        simulate_study,
        study_size,
        study_size_for_minimum,
        study_size_for_power,
        study_size_for_width,
        study_tradeoff,
    )

__getattr__, __dir__ = lazy_package(__name__)

__all__: list[str] = [
    "SimulatedAnnotations",
    "simulate_annotations",
]

# spans and sequences (SPEC §7)
__all__ += [
    "SimulatedSpans",
    "simulate_spans",
    "span_intervals",
]

# bootstrap and calibration (SPEC §3)
__all__ += [
    "BootstrapResult",
    "PoissonParts",
    "bootstrap",
    "bootstrap_rows",
    "gamma_coverage",
    "poisson_combine",
    "poisson_finalize",
    "poisson_partial",
    "verified_sample_coverage",
]

# model scores, noising, detection, cross-check (SPEC §3)
__all__ += [
    "CrosscheckResult",
    "DetectedErrorRateResult",
    "DetectionResult",
    "ModelScores",
    "NoisyLabels",
    "Ranking",
    "ScorePrecisionWarning",
    "crosscheck",
    "crowd_majority",
    "detected_error_rate",
    "detection_metrics",
    "detection_replicates",
    "dissenting_label",
    "dissenting_worker",
    "ensemble",
    "item_loss",
    "label_error_ranking",
    "load_scores",
    "mix_protocols",
    "perturb_class_conditional",
    "perturb_uniform",
]

# planning an agreement study (SPEC §8)
__all__ += [
    "JudgePlan",
    "StudyPlan",
    "StudyTradeoff",
    "judge_plan",
    "simulate_study",
    "study_size",
    "study_size_for_minimum",
    "study_size_for_power",
    "study_size_for_width",
    "study_tradeoff",
]

# the seed benchmarks' noise constructions (SPEC §9)
__all__ += [
    "SeparabilityResult",
    "loss_separability",
    "overlap_coefficient",
    "perturb_similar",
    "voter_labels",
]

# re-annotation, expert checks and the certificate (SPEC §6)
__all__ += [
    "PolicyComparisonResult",
    "ReplayResult",
    "ResidualErrorResult",
    "compare_policies",
    "next_batch",
    "replay",
    "residual_errors",
    "verification_batch",
]

# annotator reliability with intervals (SPEC §5)
__all__ += [
    "annotator_intervals",
]

# label consistency across subsets of span annotations (SPEC §7)
__all__ += [
    "SubsetConsistencyResult",
    "subset_consistency",
]
