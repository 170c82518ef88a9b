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
POLICIES              -- the names of next_batch's policies, in that order
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
    from simulation.calibration import *  # noqa: F403
    from simulation.consistency import *  # noqa: F403
    from simulation.crosscheck import *  # noqa: F403
    from simulation.detection import *  # noqa: F403
    from simulation.generators import *  # noqa: F403
    from simulation.noising import *  # noqa: F403
    from simulation.reannotation import *  # noqa: F403
    from simulation.scores import *  # noqa: F403
    from simulation.study import *  # noqa: F403

__getattr__, __dir__, __all__ = lazy_package(__name__)
